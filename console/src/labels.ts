// Labels that can be read: a file's label carries enough of its path to
// tell it from the other files of the same name ("api/src/index.ts", not
// "index.ts" four times), and no label is drawn over another (a greedy
// pass, most important first, keeps a label only where it fits). Pure:
// renderer.ts draws what LabelBoxes accepts.

import type { GNode } from './model';

/** pathOf is the path a node's label may show: a file's or a doc's. */
function pathOf(n: GNode): string {
  if ((n.kind === 'file' || n.kind === 'doc') && n.path) return n.path;
  if (n.kind === 'file' && n.id.startsWith('file:')) return n.id.slice('file:'.length);
  return '';
}

/**
 * uniqueNames gives each file and doc among nodes the shortest tail of its
 * path that no other of them ends with: "index.ts" while it is the only
 * one, "web/index.ts" and "api/index.ts" when there are two. Other nodes
 * are not in the map.
 */
export function uniqueNames(nodes: Iterable<GNode>): Map<string, string> {
  const items: Item[] = [];
  for (const n of nodes) {
    const p = pathOf(n);
    if (p) items.push({ id: n.id, path: p, from: p.lastIndexOf('/') + 1 });
  }
  const out = new Map<string, string>();
  nameItems(items, out);
  return out;
}

/** An item to name: its tail is path.slice(from). */
interface Item {
  id: string;
  path: string;
  from: number;
}

/** nameItems names items by the shortest tails that tell them apart, into out. */
function nameItems(items: Item[], out: Map<string, string>): void {
  // A longer tail moves from back to the slash before it (no splitting:
  // an opened project has thousands). Group by tails of growing length
  // until each is alone.
  let pending = items;
  while (pending.length > 0) {
    const byTail = new Map<string, Item[]>();
    for (const it of pending) {
      const tail = it.path.slice(it.from);
      let l = byTail.get(tail);
      if (!l) byTail.set(tail, (l = []));
      l.push(it);
    }
    const next: Item[] = [];
    for (const [tail, l] of byTail) {
      if (l.length === 1 || l.every((it) => it.from === 0)) {
        for (const it of l) out.set(it.id, tail);
      } else {
        for (const it of l) if (it.from > 0) it.from = it.path.lastIndexOf('/', it.from - 2) + 1;
        next.push(...l);
      }
    }
    pending = next;
  }
}

/**
 * UniqueNames is uniqueNames kept up to date as nodes come. Only paths
 * of the same file name can need more of their path to tell them apart,
 * so a node added names again only itself and the nodes held of its file
 * name: opening a second project does not name the first one's
 * thousands of files again. Nodes do not leave: a view that drops some
 * starts a new one.
 */
export class UniqueNames {
  /** The paths held, by file name. */
  private readonly byName = new Map<string, Array<{ id: string; path: string }>>();
  private readonly names = new Map<string, string>();

  /** add takes in the nodes not held yet, and names again the held ones of their file names. */
  add(nodes: Iterable<GNode>): void {
    const touched = new Set<string>();
    for (const n of nodes) {
      const p = pathOf(n);
      if (!p || this.names.has(n.id)) continue;
      const name = p.slice(p.lastIndexOf('/') + 1);
      let l = this.byName.get(name);
      if (!l) this.byName.set(name, (l = []));
      l.push({ id: n.id, path: p });
      this.names.set(n.id, name);
      if (l.length > 1) touched.add(name);
    }
    for (const name of touched) {
      nameItems(
        this.byName.get(name)!.map((it) => ({ ...it, from: it.path.lastIndexOf('/') + 1 })),
        this.names,
      );
    }
  }

  /** get is a node's name, or undefined for a node that is not a file or doc held. */
  get(id: string): string | undefined {
    return this.names.get(id);
  }
}

/** A label's box on screen, in CSS pixels from the top left of the graph. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * LabelBoxes accepts label boxes that overlap none accepted before, in a
 * uniform grid so that a check looks at the few boxes nearby (a frame
 * places hundreds of labels).
 */
export class LabelBoxes {
  private readonly cells = new Map<number, Box[]>();
  readonly accepted: Array<Box & { id: string; text: string }> = [];

  constructor(private readonly cell = 64) {}

  clear(): void {
    this.cells.clear();
    this.accepted.length = 0;
  }

  private keys(b: Box): number[] {
    const out: number[] = [];
    const x0 = Math.floor(b.x / this.cell);
    const x1 = Math.floor((b.x + b.w) / this.cell);
    const y0 = Math.floor(b.y / this.cell);
    const y1 = Math.floor((b.y + b.h) / this.cell);
    for (let i = x0; i <= x1; i++) for (let j = y0; j <= y1; j++) out.push(i * 100003 + j);
    return out;
  }

  /** fits reports whether b overlaps no accepted box. */
  fits(b: Box): boolean {
    for (const k of this.keys(b)) {
      for (const o of this.cells.get(k) ?? []) if (overlaps(b, o)) return false;
    }
    return true;
  }

  /** add accepts b (whether it fits or not: a label that must show). */
  add(b: Box, id: string, text: string): void {
    for (const k of this.keys(b)) {
      let l = this.cells.get(k);
      if (!l) this.cells.set(k, (l = []));
      l.push(b);
    }
    this.accepted.push({ ...b, id, text });
  }

  /** offer adds b when it fits, and says whether it did. */
  offer(b: Box, id: string, text: string): boolean {
    if (!this.fits(b)) return false;
    this.add(b, id, text);
    return true;
  }
}

// Deterministic starting positions for the force layout: projects on a
// circle, what a project owns scattered around it, the rest next to a
// placed neighbour. Pure; the same graph always gets the same seed.

import type { GEdge, GNode } from '../model';

export interface Point {
  x: number;
  y: number;
}

/** hash32 is FNV-1a over UTF-16 code units. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32 is a tiny seeded PRNG in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** inDisk returns a point uniformly spread in a disk, seeded by id. */
export function inDisk(id: string, cx: number, cy: number, r: number): Point {
  const rand = mulberry32(hash32(id));
  const a = rand() * Math.PI * 2;
  const d = Math.sqrt(rand()) * r;
  return { x: cx + Math.cos(a) * d, y: cy + Math.sin(a) * d };
}

function projectOf(n: GNode): string | undefined {
  if (n.kind === 'project') return n.name;
  return n.project || undefined;
}

export function seedPositions(nodes: readonly GNode[], edges: readonly GEdge[]): Map<string, Point> {
  const out = new Map<string, Point>();
  const total = nodes.length;
  const radius = 10 * Math.sqrt(Math.max(1, total));

  const members = new Map<string, number>();
  for (const n of nodes) {
    const p = projectOf(n);
    if (p !== undefined) members.set(p, (members.get(p) ?? 0) + 1);
  }
  const projects = [...members.keys()].sort();
  const centres = new Map<string, Point>();
  projects.forEach((p, i) => {
    if (projects.length === 1) centres.set(p, { x: 0, y: 0 });
    else {
      const a = (i / projects.length) * Math.PI * 2;
      centres.set(p, { x: Math.cos(a) * radius, y: Math.sin(a) * radius });
    }
  });

  const rest: GNode[] = [];
  for (const n of nodes) {
    const p = projectOf(n);
    const c = p !== undefined ? centres.get(p) : undefined;
    if (!c) {
      rest.push(n);
      continue;
    }
    if (n.kind === 'project') out.set(n.id, { x: c.x, y: c.y });
    else out.set(n.id, inDisk(n.id, c.x, c.y, 3 * Math.sqrt(members.get(p!)!) + 2));
  }
  if (rest.length === 0) return out;

  const adjacent = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    let l = adjacent.get(a);
    if (!l) adjacent.set(a, (l = []));
    l.push(b);
  };
  for (const e of edges) {
    link(e.source, e.target);
    link(e.target, e.source);
  }
  rest.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const n of rest) {
    const near = [...new Set(adjacent.get(n.id) ?? [])]
      .sort()
      .map((m) => out.get(m))
      .filter((p): p is Point => !!p);
    if (near.length > 0) {
      let x = 0;
      let y = 0;
      for (const p of near) {
        x += p.x;
        y += p.y;
      }
      out.set(n.id, inDisk(n.id, x / near.length, y / near.length, 4));
    } else {
      out.set(n.id, inDisk(n.id, 0, 0, radius * 1.25));
    }
  }
  return out;
}

/**
 * placeNear positions a node that joins a laid-out graph (a refetch, a
 * search result): next to the centroid of its placed neighbours, or in the
 * middle of the bounding box when it has none.
 */
export function placeNear(id: string, neighbours: readonly Point[], fallback: Point, spread: number): Point {
  if (neighbours.length === 0) return inDisk(id, fallback.x, fallback.y, spread * 2);
  let x = 0;
  let y = 0;
  for (const p of neighbours) {
    x += p.x;
    y += p.y;
  }
  return inDisk(id, x / neighbours.length, y / neighbours.length, spread);
}

// The project level of the knowledge graph: what the explorer opens on
// when a workspace has more nodes than read as a picture. Projects are
// circles sized by what they own, grouped into the directories that hold
// them (compound circles, as Nx groups projects by folder); expanding a
// project puts its folders and files inside its circle, folder circles
// holding their files. The layout is d3-hierarchy's circle packing:
// deterministic, instant at a few thousand circles, and a project keeps
// about its size when it opens (its collapsed area is what it owns).
// Pure: the sigma side is explorer.ts.

import { hierarchy, pack, type HierarchyCircularNode } from 'd3-hierarchy';
import type { GEdge, GNode, GraphData } from './model';

/** A circle of the layout, in graph units (sigma draws them with sizes in the same units). */
export interface Circle {
  id: string;
  /** What the circle is called: a group's or folder's directory below its parent's, a node's name. */
  name: string;
  x: number;
  y: number;
  r: number;
  depth: number;
  role: 'group' | 'project' | 'folder' | 'leaf';
  /** The circle holding this one ('' at the top). */
  parent: string;
}

/** holdsTotal is how many nodes a project of level=projects owns. */
export function holdsTotal(n: GNode): number {
  let t = 0;
  for (const v of Object.values(n.holds ?? {})) t += v;
  return t;
}

/** projectLabel is what a collapsed project says: its name and what it owns. */
export function projectLabel(n: GNode): string {
  const t = holdsTotal(n);
  return t > 0 ? `${n.name} · ${t}` : n.name;
}

/**
 * projectLevel is the level=projects answer made from a whole graph (a
 * snapshot): the project nodes, each with what it owns by kind (holds),
 * and the dependency edges between projects.
 */
export function projectLevel(g: GraphData): GraphData {
  const kind = new Map(g.nodes.map((n) => [n.id, n.kind]));
  const holds = new Map<string, Record<string, number>>();
  for (const e of g.edges) {
    if (e.kind !== 'owns' || !e.source.startsWith('project:')) continue;
    let m = holds.get(e.source);
    if (!m) holds.set(e.source, (m = {}));
    const k = kind.get(e.target) ?? 'unknown';
    m[k] = (m[k] ?? 0) + 1;
  }
  const nodes = g.nodes.filter((n) => n.kind === 'project').map((n) => ({ ...n, holds: holds.get(n.id) ?? {} }));
  const edges = g.edges.filter((e) => e.source.startsWith('project:') && e.target.startsWith('project:') && e.kind !== 'owns');
  return { nodes, edges };
}

/**
 * projectContents is what `select=project:NAME` answers, made from a whole
 * graph: the project, its neighbours (what it owns, the projects it
 * depends on and that depend on it) and the edges among them.
 */
export function projectContents(g: GraphData, project: string): GraphData {
  const seed = `project:${project}`;
  const ids = new Set<string>([seed]);
  for (const e of g.edges) {
    if (e.source === seed) ids.add(e.target);
    else if (e.target === seed) ids.add(e.source);
  }
  return { nodes: g.nodes.filter((n) => ids.has(n.id)), edges: g.edges.filter((e) => ids.has(e.source) && ids.has(e.target)) };
}

/** Edge kinds the project level shows as nesting (a circle in its circle), never as lines. */
const NESTING = new Set(['owns', 'contains']);

/**
 * drawnContents is what `select=TERMS&edge_limit=cap` answers, made from
 * a whole answer (a snapshot's projectContents): no nesting edges, the
 * edges with a project at either end, and the others only when there are
 * at most cap of them; omitted counts what was left out, by kind.
 */
export function drawnContents(g: GraphData, cap: number): GraphData {
  const projects = new Set(g.nodes.filter((n) => n.kind === 'project').map((n) => n.id));
  const omitted: Record<string, number> = {};
  const between: GEdge[] = [];
  const inner: GEdge[] = [];
  for (const e of g.edges) {
    if (NESTING.has(e.kind)) omitted[e.kind] = (omitted[e.kind] ?? 0) + 1;
    else if (projects.has(e.source) || projects.has(e.target)) between.push(e);
    else inner.push(e);
  }
  if (inner.length <= cap) return { nodes: g.nodes, edges: [...between, ...inner], omitted };
  for (const e of inner) omitted[e.kind] = (omitted[e.kind] ?? 0) + 1;
  return { nodes: g.nodes, edges: between, omitted };
}

/**
 * innerOmitted is how many relations among what a project holds its
 * contents left out (drawnContents): edges that would be lines, not nesting.
 */
export function innerOmitted(contents: GraphData): number {
  let n = 0;
  for (const [k, v] of Object.entries(contents.omitted ?? {})) if (!NESTING.has(k)) n += v;
  return n;
}

/**
 * owned are the nodes a project's contents hold that belong inside its
 * circle: what it owns, not the projects around it. An owned node names
 * its project; an answer with its owns edges says it again.
 */
export function owned(contents: GraphData, project: string): GNode[] {
  const seed = `project:${project}`;
  const mine = new Set<string>();
  for (const e of contents.edges) if (e.kind === 'owns' && e.source === seed) mine.add(e.target);
  return contents.nodes.filter((n) => mine.has(n.id) || (n.kind !== 'project' && n.project === project));
}

/** Node ids of the layout's own circles. */
export const groupId = (dir: string): string => `group:${dir}`;
export const folderId = (project: string, dir: string): string => `folder:${project}/${dir}`;

interface Tree {
  id: string;
  name: string;
  /** A group's or folder's directory (from the root, or from its project). */
  dir?: string;
  role: Circle['role'];
  value?: number;
  /** A radius fixed beforehand (a project packed on its own, a spiral of leaves). */
  fixedR?: number;
  children?: Tree[];
  /**
   * The leaves a project's directory holds, in the answer's order, not
   * yet tree nodes: a folder of many files keeps them here for its
   * spiral, and only those d3 packs become nodes (packTree).
   */
  held?: Leaf[];
}

/** Leaf is what a circle of a project's file or doc needs. */
type Leaf = Pick<GNode, 'id' | 'name'>;

const leafTree = (l: Leaf): Tree => ({ id: l.id, name: l.name, role: 'leaf', value: 1 });

const dirOf = (p: string): string => {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
};

/**
 * dirTree hangs what fill puts in the directory tree under root (fill
 * asks ensure for a directory's node), then folds every directory with a
 * single child into that child (a chain of lone directories is one step,
 * not several nested circles).
 */
function dirTree(root: Tree, fill: (ensure: (dir: string) => Tree) => void, makeDir: (dir: string) => Tree): Tree {
  const dirs = new Map<string, Tree>([['', root]]);
  const ensure = (dir: string): Tree => {
    let t = dirs.get(dir);
    if (t) return t;
    t = makeDir(dir);
    t.children = [];
    dirs.set(dir, t);
    ensure(dirOf(dir)).children!.push(t);
    return t;
  };
  fill(ensure);
  const fold = (t: Tree): Tree => {
    if (!t.children) return t;
    t.children = t.children.map(fold);
    if (t !== root && (t.role === 'group' || t.role === 'folder') && t.children.length + (t.held?.length ?? 0) === 1) return t.children[0] ?? leafTree(t.held![0]!);
    return t;
  };
  return fold(root);
}

/**
 * A project's inside, packed on its own around (0, 0): its folders and
 * what it owns, with positions relative to the project's centre. An open
 * project is packed once per answer of the server (ProjectPack.inside is
 * that answer's owned nodes), and the project level only moves it.
 */
export interface ProjectPack {
  /** The owned nodes it was packed from: a new answer is packed again. */
  inside: readonly GNode[];
  r: number;
  circles: Circle[];
}

/** Golden angle: consecutive leaves of a spiral are this far apart around it. */
const GOLDEN = Math.PI * (3 - Math.sqrt(5));
/** Spiral scale: its nearest leaves (radius 1) are 2.6 apart, the gap d3's padding of 0.6 leaves. */
const SPIRAL_STEP = 1.69;
/** A folder of only leaves, this many or more, lays them on a spiral instead of packing them. */
const SPIRAL_MIN = 12;
/** Folders and projects pad their children by this much (groups by more). */
const INNER_PADDING = 0.6;

/** packTree packs a tree with d3 and returns its circles, relative to (0, 0), and the outer radius. */
function packTree(tree: Tree, depth0: number, parent0: string, skip: string): { r: number; circles: Circle[] } {
  // A folder holding only leaves, many of them, is packed as one circle
  // and its leaves put on a sunflower spiral inside it: d3's front-chain
  // packing costs about as much per leaf as all the rest of an opening,
  // and equal circles need none of it.
  const spirals = new Map<Tree, Leaf[]>();
  const strip = (t: Tree) => {
    if (!t.children) return;
    const held = t.held ?? [];
    const n = t.children.length + held.length;
    if (t.role !== 'group' && n >= SPIRAL_MIN && t.children.every((c) => !c.children)) {
      spirals.set(t, t.children.length === 0 ? held : [...t.children, ...held]);
      t.fixedR = SPIRAL_STEP * Math.sqrt(n - 0.5) + 1 + INNER_PADDING;
      t.value = n;
      return;
    }
    // Few, or beside folders: d3 packs them.
    if (held.length > 0) {
      for (const l of held) t.children.push(leafTree(l));
      t.held = undefined;
    }
    for (const c of t.children) strip(c);
  };
  strip(tree);
  const h = hierarchy(tree, (t) => (spirals.has(t) ? undefined : t.children))
    .sum((t) => (t.children && !spirals.has(t) ? 0 : (t.value ?? 1)))
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0) || (a.data.id < b.data.id ? -1 : 1));
  const laid = pack<Tree>()
    .size([0, 0])
    .radius((n) => n.data.fixedR ?? Math.sqrt(n.value ?? 1))
    .padding((n) => (n.data.role === 'group' ? 3 : INNER_PADDING))(h);
  const out: Circle[] = [];
  laid.each((n: HierarchyCircularNode<Tree>) => {
    const parent = n.parent && n.parent.data.id !== skip ? n.parent.data.id : parent0;
    if (n.data.id !== skip) out.push({ id: n.data.id, name: n.data.name, x: n.x, y: n.y, r: n.r, depth: depth0 + n.depth, role: n.data.role, parent });
    const leaves = spirals.get(n.data);
    if (!leaves) return;
    const depth = depth0 + n.depth + 1;
    for (let i = 0; i < leaves.length; i++) {
      const l = leaves[i]!;
      const d = SPIRAL_STEP * Math.sqrt(i + 0.5);
      out.push({ id: l.id, name: l.name, x: n.x + d * Math.cos(i * GOLDEN), y: n.y + d * Math.sin(i * GOLDEN), r: 1, depth, role: 'leaf', parent: n.data.id });
    }
  });
  return { r: laid.r, circles: out };
}

/**
 * packProject packs an open project's inside on its own: its files and
 * docs in the folders holding them, a package in the folder it is (a Go
 * package is a directory), the rest (targets) at its top. Leaves have
 * radius 1; the project's circle is the first.
 */
export function packProject(p: GNode, inside: readonly GNode[]): ProjectPack {
  const top: Tree = { id: p.id, name: p.name, role: 'project', children: [] };
  const base = p.path && p.path !== '.' ? `${p.path}/` : '';
  // Each node joins the directory holding it (from the project's own), as
  // a leaf held, not a tree node: an open project has thousands.
  const fill = (ensure: (dir: string) => Tree) => {
    for (const n of inside) {
      const path = !n.path ? '' : n.kind === 'file' || n.kind === 'doc' ? n.path : n.kind === 'package' ? `${n.path}/` : '';
      const slash = path.lastIndexOf('/');
      const dir = slash < base.length || !path.startsWith(base) ? '' : path.slice(base.length, slash);
      (ensure(dir).held ??= []).push(n);
    }
  };
  const tree = dirTree(top, fill, (dir) => ({ id: folderId(p.name, dir), name: dir, dir, role: 'folder' }));
  if ((tree.children?.length ?? 0) + (tree.held?.length ?? 0) === 0) return { inside, r: 1, circles: [{ id: p.id, name: p.name, x: 0, y: 0, r: 1, depth: 0, role: 'project', parent: '' }] };
  rename(tree, '');
  // d3 centres the whole, the project's circle, on (0, 0).
  const { r, circles } = packTree(tree, 0, '', '');
  return { inside, r, circles };
}

/** rename names a folded chain by its whole path below the directory that holds it ("src/lib", not "lib"). */
function rename(t: Tree, parentDir: string): void {
  if (t.dir !== undefined) {
    t.name = parentDir && t.dir.startsWith(`${parentDir}/`) ? t.dir.slice(parentDir.length + 1) : t.dir;
    if (t.role === 'folder' && t.name === '') t.name = '.';
  }
  const next = t.role === 'project' ? '' : (t.dir ?? parentDir);
  for (const c of t.children ?? []) rename(c, next);
}

/**
 * packLayout lays out the project level: projects grouped by the
 * directories holding them, each collapsed project a circle whose area is
 * what it owns, each expanded one holding its folders and what it owns
 * (files, docs and packages in their folders; targets and the rest at its
 * top). Leaves have radius 1. packs keeps each open project's own packing
 * between calls (by project name): a project is packed again only when
 * its owned nodes are a new array, so opening a second project or moving
 * the others costs the projects' circles, not their contents.
 */
export function packLayout(projects: GNode[], expanded: ReadonlyMap<string, readonly GNode[]>, packs: Map<string, ProjectPack> = new Map()): Map<string, Circle> {
  for (const name of [...packs.keys()]) if (!expanded.has(name)) packs.delete(name);
  const root: Tree = { id: 'group:', name: '', role: 'group', children: [] };
  const items = projects.map((p) => {
    const inside = expanded.get(p.name);
    let node: Tree;
    if (inside) {
      let pk = packs.get(p.name);
      if (!pk || pk.inside !== inside) packs.set(p.name, (pk = packProject(p, inside)));
      // Packed already: a leaf of its own radius here, whose value orders
      // it among the others as its contents did.
      node = { id: p.id, name: p.name, role: 'project', value: Math.max(1, inside.length), fixedR: pk.r };
    } else {
      node = { id: p.id, name: p.name, role: 'project', value: Math.max(1, holdsTotal(p)) };
    }
    return { dir: p.path && p.path !== '.' ? dirOf(p.path) : '', node };
  });
  const tree = dirTree(root, (ensure) => items.forEach((it) => ensure(it.dir).children!.push(it.node)), (dir) => ({ id: groupId(dir), name: dir, dir, role: 'group' }));
  rename(tree, '');
  const byId = new Map<string, ProjectPack>();
  for (const p of projects) {
    const pk = expanded.has(p.name) ? packs.get(p.name) : undefined;
    if (pk) byId.set(p.id, pk);
  }
  const out = new Map<string, Circle>();
  for (const c of packTree(tree, 0, '', 'group:').circles) {
    out.set(c.id, c);
    const pk = c.role === 'project' ? byId.get(c.id) : undefined;
    if (!pk) continue;
    // The project's own circles, moved onto it (the project's is c).
    for (const ic of pk.circles) {
      if (ic.id !== c.id) out.set(ic.id, { id: ic.id, name: ic.name, x: c.x + ic.x, y: c.y + ic.y, r: ic.r, depth: c.depth + ic.depth, role: ic.role, parent: ic.parent });
    }
  }
  return out;
}

/**
 * shownEdges are the edges the project level draws: dependencies between
 * projects, and among what is inside expanded projects the relations
 * (imports, links, references, depends); ownership is the circles'
 * nesting and is not drawn again.
 */
export function shownEdges(edges: GEdge[], shown: (id: string) => boolean): GEdge[] {
  return edges.filter((e) => !NESTING.has(e.kind) && shown(e.source) && shown(e.target));
}

/**
 * within is the part of g within hops edges of id, either way, with the
 * edges among it: what `select=<id's term> depth:N` answers, made from a
 * whole graph (the focus of a snapshot).
 */
export function within(g: GraphData, id: string, hops: number): GraphData {
  const adj = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    let l = adj.get(a);
    if (!l) adj.set(a, (l = []));
    l.push(b);
  };
  for (const e of g.edges) {
    link(e.source, e.target);
    link(e.target, e.source);
  }
  const seen = new Set<string>([id]);
  let frontier = [id];
  for (let d = 0; d < hops && frontier.length > 0; d++) {
    const next: string[] = [];
    for (const u of frontier) for (const v of adj.get(u) ?? []) if (!seen.has(v)) (seen.add(v), next.push(v));
    frontier = next;
  }
  return { nodes: g.nodes.filter((n) => seen.has(n.id)), edges: g.edges.filter((e) => seen.has(e.source) && seen.has(e.target)) };
}

/**
 * selectTerm is the query term that selects one node for a focus on the
 * server (`select=TERM depth:N`), or '' when no term names it alone.
 */
export function selectTerm(n: GNode): string {
  const glob = (p: string) => p.replace(/[*?[\]{}\\]/g, (c) => `\\${c}`);
  switch (n.kind) {
    case 'project':
      return `project:${n.name}`;
    case 'target':
      return n.id.startsWith('target:') ? n.id : '';
    case 'spell':
      return `spell:${n.name}`;
    case 'file':
    case 'doc':
      return n.path && !/\s/.test(n.path) ? `path:${glob(n.path)}` : '';
    case 'symbol':
      return n.name && !/\s/.test(n.name) ? `symbol:${n.name}` : '';
  }
  return '';
}

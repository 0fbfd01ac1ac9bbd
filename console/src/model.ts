// The graph contract (the JSON of `GET /api/v1/graph`: see
// docs/console-api.md) and helpers on it.

export interface GNode {
  id: string;
  kind: string;
  name: string;
  path?: string;
  project?: string;
  command?: string[];
  inputs?: string[];
  outputs?: string[];
  drift?: boolean;
  description?: string;
  title?: string;
  language?: string;
  symbol_kind?: string;
  line?: number;
  external?: boolean;
  diagnostic?: string;
  state?: string;
  /** A project of level=projects: how many nodes of each kind it owns. */
  holds?: Record<string, number>;
}

export interface GEdge {
  source: string;
  target: string;
  kind: string;
  /** On a depends_inferred edge a manifest names: that manifest's path. */
  via?: string;
}

export interface GraphData {
  nodes: GNode[];
  edges: GEdge[];
  /**
   * The edges the answer left out, by kind: an answer trimmed to what the
   * project level draws (select=TERMS&edge_limit=N, drawnContents).
   */
  omitted?: Record<string, number>;
}

export const NODE_KINDS = ['project', 'target', 'spell', 'doc', 'file', 'package', 'symbol'] as const;
export const EDGE_KINDS = [
  'owns',
  'depends',
  'depends_declared',
  'depends_inferred',
  'imports',
  'links',
  'mentions',
  'references',
  'contains',
] as const;

export const KIND_COLORS: Record<string, string> = {
  project: '#e4572e',
  target: '#2e86ab',
  spell: '#a23b72',
  doc: '#3bb273',
  file: '#7768ae',
  package: '#f3a712',
  symbol: '#0fa3b1',
};
export const OTHER_COLOR = '#8d99ae';

export const EDGE_COLORS: Record<string, string> = {
  owns: '#d5d9e0',
  depends: '#5c6b80',
  depends_declared: '#c0504d',
  depends_inferred: '#e8a29f',
  imports: '#c9b8e8',
  links: '#a8dcbc',
  mentions: '#bfe3cc',
  references: '#9fd8de',
  contains: '#f6d48f',
};

const BASE_SIZE: Record<string, number> = {
  project: 9,
  target: 5,
  spell: 5,
  doc: 3.5,
  file: 3,
  package: 3,
  symbol: 3,
};

export function kindColor(kind: string): string {
  return KIND_COLORS[kind] ?? OTHER_COLOR;
}

export function edgeColor(kind: string): string {
  return EDGE_COLORS[kind] ?? '#cfd4dc';
}

export function nodeSize(kind: string, degree: number): number {
  return (BASE_SIZE[kind] ?? 3) + Math.min(6, Math.log2(1 + degree));
}

/** nodeLabel is the text drawn next to a node. */
export function nodeLabel(n: GNode): string {
  switch (n.kind) {
    case 'target':
      return n.project ? `${n.project}:${n.name}` : n.name;
    case 'doc':
      return n.title || n.name;
    default:
      return n.name || n.id;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * parseGraph checks that a decoded JSON value is a graph and returns it with
 * only well-formed nodes and edges (edges whose ends are missing are
 * dropped; they cannot be drawn).
 */
export function parseGraph(value: unknown): GraphData {
  if (!isObject(value) || !Array.isArray(value.nodes)) {
    throw new Error('not a graph: expected {"nodes":[...],"edges":[...]}');
  }
  const nodes: GNode[] = [];
  const ids = new Set<string>();
  for (const raw of value.nodes) {
    if (!isObject(raw) || typeof raw.id !== 'string' || raw.id === '' || ids.has(raw.id)) continue;
    const n = raw as unknown as GNode;
    if (typeof n.kind !== 'string') n.kind = 'unknown';
    if (typeof n.name !== 'string') n.name = n.id;
    ids.add(n.id);
    nodes.push(n);
  }
  const edges: GEdge[] = [];
  const rawEdges = Array.isArray(value.edges) ? value.edges : [];
  for (const raw of rawEdges) {
    if (!isObject(raw) || typeof raw.source !== 'string' || typeof raw.target !== 'string') continue;
    if (!ids.has(raw.source) || !ids.has(raw.target)) continue;
    const e: GEdge = { source: raw.source, target: raw.target, kind: typeof raw.kind === 'string' ? raw.kind : 'unknown' };
    if (typeof raw.via === 'string' && raw.via !== '') e.via = raw.via;
    edges.push(e);
  }
  const g: GraphData = { nodes, edges };
  if (isObject(value.omitted)) {
    g.omitted = {};
    for (const [k, n] of Object.entries(value.omitted)) if (typeof n === 'number' && n > 0) g.omitted[k] = n;
  }
  return g;
}

/** parseGraphText parses JSON text into a graph. */
export function parseGraphText(text: string): GraphData {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON (${(e as Error).message})`);
  }
  return parseGraph(v);
}

/**
 * targetSubgraph is the target graph as a knowledge graph holds it: the
 * target nodes and the depends edges among them (what a snapshot of the
 * knowledge graph shows in the target view).
 */
export function targetSubgraph(g: GraphData): GraphData {
  const nodes = g.nodes.filter((n) => n.kind === 'target');
  const ids = new Set(nodes.map((n) => n.id));
  const edges = g.edges.filter((e) => e.kind === 'depends' && ids.has(e.source) && ids.has(e.target));
  return { nodes, edges };
}

/** isTargetGraph tells a target-flavoured graph from a knowledge graph. */
export function isTargetGraph(g: GraphData): boolean {
  return g.nodes.length > 0 && g.nodes.every((n) => n.kind === 'target');
}

/** edgeKey is the graphology key of an edge: one per (source, target, kind). */
export function edgeKey(e: GEdge): string {
  return `${e.kind}\u0001${e.source}\u0001${e.target}`;
}

/** substringMatches is the snapshot-mode search: ids whose id, name, title or path holds every word. */
export function substringMatches(nodes: Iterable<GNode>, query: string): Set<string> {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
  const out = new Set<string>();
  if (words.length === 0) return out;
  for (const n of nodes) {
    const hay = `${n.id}\n${n.name}\n${n.title ?? ''}\n${n.path ?? ''}`.toLowerCase();
    if (words.every((w) => hay.includes(w))) out.add(n.id);
  }
  return out;
}

/** basename of a workspace path (either separator, trailing ones ignored). */
export function basename(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const i = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  const b = i >= 0 ? trimmed.slice(i + 1) : trimmed;
  return b || path;
}

/** globRegExp is a doublestar glob as a regular expression: ** any path, * a name's part, ? one character. */
function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\' && i + 1 < glob.length) re += glob[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * querySeeds are the nodes a query's terms select themselves (the query
 * engine's seeds), as opposed to the neighbours its answer adds around
 * them: what a search lists first.
 */
export function querySeeds(query: string, nodes: Iterable<GNode>): Set<string> {
  const tests: Array<(n: GNode) => boolean> = [];
  for (const term of query.trim().split(/\s+/)) {
    if (term === '' || term.startsWith('depth:')) continue;
    const i = term.indexOf(':');
    const prefix = i > 0 ? term.slice(0, i) : '';
    const value = i > 0 ? term.slice(i + 1) : term;
    switch (prefix) {
      case 'kind':
        tests.push((n) => n.kind === value);
        break;
      case 'project':
      case 'target':
      case 'spell':
        tests.push((n) => n.id === term);
        break;
      case 'symbol': {
        const re = globRegExp(value.replace(/\*/g, '**'));
        tests.push((n) => n.kind === 'symbol' && re.test(n.name));
        break;
      }
      case 'path': {
        const re = globRegExp(value);
        tests.push((n) => (n.kind === 'file' || n.kind === 'doc') && re.test(n.path ?? ''));
        break;
      }
      default: {
        const w = term.toLowerCase();
        tests.push((n) => n.id.toLowerCase().includes(w) || n.name.toLowerCase().includes(w));
      }
    }
  }
  const out = new Set<string>();
  for (const n of nodes) if (tests.some((t) => t(n))) out.add(n.id);
  return out;
}

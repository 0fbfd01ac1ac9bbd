// The insight answer (GET /api/v1/insight), read field by field: any lens
// may be missing, and rows the page cannot read are dropped. Pure.

export interface FileHotspot {
  path: string;
  project: string;
  changes: number;
  complexity: number;
  score: number;
}
export interface ProjectHotspot {
  project: string;
  changes: number;
  complexity: number;
  score: number;
}
export interface Pair {
  a: string;
  b: string;
  together: number;
  support: number;
  confidence: number;
  hidden: boolean;
}
export interface Owner {
  author: string;
  changes: number;
  share: number;
}
export interface ProjectOwners {
  project: string;
  changes: number;
  busFactor: number;
  owners: Owner[];
  quiet: { author: string; share: number; last: string }[];
}
export interface ProjectTrend {
  project: string;
  counts: number[];
  direction: string;
  change: number;
}
export interface Flaky {
  target: string;
  runs: number;
  pairs: number;
  flips: number;
  rate: number;
  lowerBound: number;
}

export interface Insight {
  head: string;
  commits: number;
  windowName: string;
  windowCommits: number;
  bulkThreshold: number;
  bulkCommits: number;
  notes: string[];
  hotspots: { files: FileHotspot[]; projects: ProjectHotspot[] } | null;
  affinity: { files: Pair[]; projects: Pair[] } | null;
  ownership: { projects: ProjectOwners[] } | null;
  trend: { weeks: string[]; projects: ProjectTrend[] } | null;
  volatility: { minSample: number; runs: number; targets: Flaky[] } | null;
}

type O = Record<string, unknown>;
const obj = (v: unknown): O | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as O) : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const list = (v: unknown): O[] => (Array.isArray(v) ? v.map(obj).filter((x): x is O => x !== null) : []);

function pair(o: O): Pair {
  return { a: str(o.a), b: str(o.b), together: num(o.together), support: num(o.support), confidence: num(o.confidence), hidden: o.hidden === true };
}

/** parseInsight reads the route's answer; it throws on a body that is not an object. */
export function parseInsight(v: unknown): Insight {
  const o = obj(v);
  if (o === null) throw new Error('the insight answer is not an object');
  const w = obj(o.window) ?? {};
  const b = obj(o.bulk) ?? {};
  const hs = obj(o.hotspots);
  const af = obj(o.affinity);
  const ow = obj(o.ownership);
  const tr = obj(o.trend);
  const vo = obj(o.volatility);
  return {
    head: str(o.head),
    commits: num(o.commits),
    windowName: str(w.name),
    windowCommits: num(w.commits),
    bulkThreshold: num(b.threshold),
    bulkCommits: num(b.commits),
    notes: Array.isArray(o.notes) ? o.notes.filter((n): n is string => typeof n === 'string') : [],
    hotspots: hs && {
      files: list(hs.files)
        .map((f) => ({ path: str(f.path), project: str(f.project), changes: num(f.changes), complexity: num(f.complexity), score: num(f.score) }))
        .filter((f) => f.path !== '' && f.score > 0),
      projects: list(hs.projects).map((p) => ({ project: str(p.project), changes: num(p.changes), complexity: num(p.complexity), score: num(p.score) })),
    },
    affinity: af && { files: list(af.files).map(pair), projects: list(af.projects).map(pair).filter((p) => p.a !== '' && p.b !== '') },
    ownership: ow && {
      projects: list(ow.projects).map((p) => ({
        project: str(p.project),
        changes: num(p.changes),
        busFactor: num(p.bus_factor),
        owners: list(p.owners).map((x) => ({ author: str(x.author), changes: num(x.changes), share: num(x.share) })),
        quiet: list(p.quiet).map((x) => ({ author: str(x.author), share: num(x.share), last: str(x.last) })),
      })),
    },
    trend: tr && {
      weeks: Array.isArray(tr.weeks) ? tr.weeks.filter((x): x is string => typeof x === 'string') : [],
      projects: list(tr.projects).map((p) => ({
        project: str(p.project),
        counts: Array.isArray(p.counts) ? p.counts.map(num) : [],
        direction: str(p.direction),
        change: num(p.change),
      })),
    },
    volatility: vo && {
      minSample: num(vo.min_sample),
      runs: num(vo.runs),
      targets: list(vo.targets).map((t) => ({
        target: str(t.target),
        runs: num(t.runs),
        pairs: num(t.pairs),
        flips: num(t.flips),
        rate: num(t.rate),
        lowerBound: num(t.lower_bound),
      })),
    },
  };
}

/** chordMatrix is the square matrix of project pairs for the chord diagram, with its names. */
export function chordMatrix(pairs: Pair[]): { names: string[]; matrix: number[][] } {
  const names = [...new Set(pairs.flatMap((p) => [p.a, p.b]))].sort();
  const at = new Map(names.map((n, i) => [n, i]));
  const matrix = names.map(() => names.map(() => 0));
  for (const p of pairs) {
    const i = at.get(p.a)!;
    const j = at.get(p.b)!;
    matrix[i]![j] = p.together;
    matrix[j]![i] = p.together;
  }
  return { names, matrix };
}

/** pct is a share as a whole percentage. */
export const pct = (x: number): string => `${Math.round(x * 100)}%`;

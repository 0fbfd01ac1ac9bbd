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
  /** rising, falling, steady, or new (too young to compare). */
  direction: string;
  change: number;
  /** Commits in the last 4 weeks. */
  recent: number;
  /** Commits per week before those, since the project's first commit, over baselineWeeks weeks. */
  baseline: number;
  baselineWeeks: number;
  /** The project's first commit (ISO time), '' when it has none. */
  first: string;
}
export interface LeftOut {
  kind: string;
  files: number;
  top: string[];
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
  hotspots: { files: FileHotspot[]; projects: ProjectHotspot[]; leftOut: LeftOut[]; included: string[]; note: string } | null;
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
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

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
      leftOut: list(hs.left_out)
        .map((l) => ({ kind: str(l.kind), files: num(l.files), top: strings(l.top) }))
        .filter((l) => l.kind !== ''),
      included: strings(hs.included),
      note: str(hs.note),
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
        recent: num(p.recent),
        baseline: num(p.baseline),
        baselineWeeks: num(p.baseline_weeks),
        first: str(p.first),
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

/**
 * compact writes a count for a chart: exact below 10,000, then with a unit
 * prefix and three significant digits (20,216,900 reads 20.2M).
 */
export function compact(n: number): string {
  const a = Math.abs(n);
  if (a < 10_000) return Math.round(n).toLocaleString('en-US');
  for (const [div, unit] of [
    [1e12, 'T'],
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ] as const) {
    if (a >= div) return `${Number((n / div).toPrecision(3))}${unit}`;
  }
  return String(n);
}

/**
 * logShare is where a value sits on a log scale from 1 to top, as a
 * fraction: bars whose values span orders of magnitude (a project of 20
 * million beside one of 2 thousand) stay comparable, each a visible
 * length. Values of 1 or less are 0.
 */
export function logShare(v: number, top: number): number {
  if (v <= 1 || top <= 1) return v > 0 && top > 0 ? v / top : 0;
  return Math.log10(v) / Math.log10(top);
}

/** trendSentence says a project's trend in words: the last 4 weeks against its baseline. */
export function trendSentence(p: ProjectTrend): string {
  const recent = `${p.recent} commit${p.recent === 1 ? '' : 's'} in the last 4 weeks`;
  if (p.direction === 'new') return `${recent}; new: too little history before them to compare`;
  if (p.baselineWeeks === 0) return `${recent}; no commit yet`;
  const base = `${Number(p.baseline.toFixed(1))} a week over the ${p.baselineWeeks} weeks before`;
  return `${recent} against ${base}: ${p.direction}`;
}

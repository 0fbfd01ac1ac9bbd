// The runs a person reads: ListRuns' and GetRun's answers (Connect JSON,
// protojson's lowerCamel names) read into plain data, which run a page
// shows first, and how a run reads as a line and as a log. Pure: the Runs
// view (runs.ts) and the shared view (share.ts) draw them alike.

export interface Run {
  id: string;
  target: string;
  /** queued, running, succeeded, failed, cached, interrupted, skipped */
  status: string;
  exitCode: number;
  start: Date | null;
  end: Date | null;
  cacheHit: boolean;
  /** what started it: cli, console, affected, job */
  trigger: string;
  /** where its result came from: built, local or remote ('' while it runs) */
  from: string;
  /** the CI shard that ran it, "2/4" (core run --shard), '' for a run of one machine */
  shard: string;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function date(v: unknown): Date | null {
  if (typeof v !== 'string' || v === '') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

function parseRun(r: Record<string, unknown>): Run {
  return {
    id: str(r.id),
    target: str(r.target),
    status: str(r.status),
    exitCode: typeof r.exitCode === 'number' ? r.exitCode : 0,
    start: date(r.startTime),
    end: date(r.endTime),
    cacheHit: r.cacheHit === true,
    trigger: str(r.trigger),
    from: str(r.from),
    shard: str(r.shard),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** parseRuns reads ListRuns' answer, skipping entries without an id. */
export function parseRuns(v: unknown): Run[] {
  const list = (v as { runs?: unknown } | null)?.runs;
  if (!Array.isArray(list)) return [];
  return list.filter((r): r is Record<string, unknown> => isRecord(r) && typeof r.id === 'string').map(parseRun);
}

export interface RunLog {
  /** the run's record, null when the answer has none */
  run: Run | null;
  argv: string[];
  output: string;
  truncated: boolean;
  /** the working directory, relative to the workspace root */
  dir: string;
}

/** parseRunLog reads GetRun's answer. */
export function parseRunLog(v: unknown): RunLog {
  const o = isRecord(v) ? v : {};
  return {
    run: isRecord(o.run) ? parseRun(o.run) : null,
    argv: Array.isArray(o.argv) ? o.argv.filter((x): x is string => typeof x === 'string') : [],
    output: str(o.output),
    truncated: o.outputTruncated === true,
    dir: str(o.dir),
  };
}

/** runStatus is how a run ended: 'failed (exit 1)', 'succeeded (cached)', 'running'. */
export function runStatus(r: Run): string {
  const exit = r.status === 'failed' && r.exitCode > 0 ? ` (exit ${r.exitCode})` : '';
  return `${r.status}${exit}${r.cacheHit ? ' (cached)' : ''}`;
}

/**
 * runLine is a run in a list: 'util:lint failed (exit 1)', 'util:lint
 * succeeded (cached)', 'util:test succeeded · shard 2/4' for a run of a CI
 * shard.
 */
export function runLine(r: Run): string {
  return `${r.target} ${runStatus(r)}${r.shard ? ` · shard ${r.shard}` : ''}`;
}

/**
 * shellLine is an argv as one would type it in a shell: a word with spaces
 * or quotes in it is single-quoted, so that `sh -c 'a; b'` reads as it ran.
 */
export function shellLine(argv: string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(' ');
}

/** logText is a run's log as a terminal shows it: the command, then its output. */
export function logText(l: RunLog): string {
  return `$ ${shellLine(l.argv)}\n${l.output}${l.truncated ? '\n[output cut]' : ''}`;
}

/**
 * pickRun is the run a page shows first: the one asked for (a link's
 * run=), else the newest listed, else none ('').
 */
export function pickRun(runs: Run[], wanted: string): string {
  if (wanted !== '') return wanted;
  return runs[0]?.id ?? '';
}

/** duration is how long a run took, '' when it has not ended: '850 ms', '12.3 s', '2 min 5 s'. */
export function duration(r: Run): string {
  if (r.start === null || r.end === null) return '';
  const ms = r.end.getTime() - r.start.getTime();
  if (ms < 0) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * isRunsPage says whether the page was opened at the run viewer's address
 * (/console/runs/, routes.yaml's console.runs row), where it boots on the
 * Runs view.
 */
export function isRunsPage(pathname: string): boolean {
  return /\/runs\/(index\.html)?$/.test(pathname);
}

// The Review view's data: GET /api/v1/diff's page (the annotated change
// and the review session) read defensively, and the unified patch of
// GET /api/v1/diff/patch split per file into numbered lines. Pure: the
// DOM side is review.ts.

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

export interface SymbolReach {
  id: string;
  name: string;
  kind: string;
  line: number;
  files: string[];
  filesTotal: number;
  projects: string[];
}

export interface ReviewFile {
  path: string;
  oldPath: string;
  kind: string;
  role: string;
  project: string;
  hash: string;
  binary: boolean;
  truncated: boolean;
  added: number;
  deleted: number;
  hunks: Hunk[];
  symbols: SymbolReach[];
  uncovered: Set<number>;
  covered: Set<number>;
  coverageFrom: string;
}

export interface Reached {
  id: string;
  chain: string[];
}

export interface Author {
  kind: string;
  id: string;
}

export interface ReviewComment {
  id: string;
  path: string;
  line: number;
  text: string;
  body: string;
  author: Author;
  at: string;
  resolved: boolean;
  outdated: boolean;
}

export interface ReviewSession {
  branch: string;
  version: number;
  viewed: Map<string, string>; // path -> hash
  comments: ReviewComment[];
  notice: string;
}

export interface ReviewPage {
  baseRef: string;
  baseCommit: string;
  branch: string;
  files: ReviewFile[];
  projects: Reached[];
  targets: Reached[];
  session: ReviewSession;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const strs = (v: unknown): string[] => arr(v).filter((x): x is string => typeof x === 'string');
const nums = (v: unknown): Set<number> => new Set(arr(v).filter((x): x is number => typeof x === 'number'));

/** parseSession reads the session object of the page or of a POST answer. */
export function parseSession(v: unknown): ReviewSession {
  const s = obj(v);
  const viewed = new Map<string, string>();
  for (const m of arr(s.viewed)) {
    const o = obj(m);
    if (str(o.path) !== '') viewed.set(str(o.path), str(o.hash));
  }
  const comments = arr(s.comments).map((c): ReviewComment => {
    const o = obj(c);
    const a = obj(o.author);
    return {
      id: str(o.id),
      path: str(o.path),
      line: num(o.line),
      text: str(o.text),
      body: str(o.body),
      author: { kind: str(a.kind), id: str(a.id) },
      at: str(o.at),
      resolved: o.resolved === true,
      outdated: o.outdated === true,
    };
  });
  return { branch: str(s.branch), version: num(s.version), viewed, comments, notice: str(s.notice) };
}

/** parsePage reads GET /api/v1/diff's body. */
export function parsePage(v: unknown): ReviewPage {
  const p = obj(v);
  const base = obj(p.base);
  const files = arr(p.files).map((f): ReviewFile => {
    const o = obj(f);
    const cov = obj(o.coverage);
    return {
      path: str(o.path),
      oldPath: str(o.old_path),
      kind: str(o.kind),
      role: str(o.role),
      project: str(o.project),
      hash: str(o.hash),
      binary: o.binary === true,
      truncated: o.truncated === true,
      added: num(o.added),
      deleted: num(o.deleted),
      hunks: arr(o.hunks).map((h) => {
        const x = obj(h);
        return { oldStart: num(x.old_start), oldLines: num(x.old_lines), newStart: num(x.new_start), newLines: num(x.new_lines) };
      }),
      symbols: arr(o.symbols).map((s) => {
        const x = obj(s);
        return {
          id: str(x.id),
          name: str(x.name),
          kind: str(x.kind),
          line: num(x.line),
          files: strs(x.files),
          filesTotal: num(x.files_total),
          projects: strs(x.projects),
        };
      }),
      uncovered: nums(cov.uncovered),
      covered: nums(cov.covered),
      coverageFrom: str(cov.from),
    };
  });
  const reached = (v: unknown): Reached[] => arr(v).map((r) => ({ id: str(obj(r).id), chain: strs(obj(r).chain) }));
  const aff = obj(p.affected);
  return {
    baseRef: str(base.ref),
    baseCommit: str(base.commit),
    branch: str(base.branch),
    files,
    projects: reached(aff.projects),
    targets: reached(aff.targets),
    session: parseSession(p.session),
  };
}

/** reach is how many files use what a file changes. */
export function reach(f: ReviewFile): number {
  return f.symbols.reduce((n, s) => n + s.filesTotal, 0);
}

export type LineKind = 'add' | 'del' | 'ctx' | 'hunk' | 'meta';

export interface PatchLine {
  kind: LineKind;
  text: string;
  /** Line number in the old file (del, ctx). */
  oldNo?: number;
  /** Line number in the new file (add, ctx). */
  newNo?: number;
}

/**
 * splitPatch splits a unified patch into its files' lines, keyed by the
 * new path (the old one for a deletion). A section whose name git had to
 * quote is keyed by the unquoted name when it is plain, and otherwise
 * left out: the view then says the patch of that file is not shown.
 */
export function splitPatch(text: string): Map<string, PatchLine[]> {
  const out = new Map<string, PatchLine[]>();
  let lines: PatchLine[] | null = null;
  let oldNo = 0;
  let newNo = 0;
  let oldPath = '';
  let inHunk = false;
  const key = (raw: string, prefix: string): string | null => {
    if (raw === '/dev/null') return null;
    if (raw.startsWith('"')) return null;
    return raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      lines = [{ kind: 'meta', text: line }];
      inHunk = false;
      oldPath = '';
      // Keyed once the ---/+++ lines or the rename lines name it.
      const m = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line);
      if (m && m[2] !== undefined && m[1] === m[2]) out.set(m[2], lines);
      continue;
    }
    if (lines === null) continue; // commentary before the first file
    if (!inHunk && line.startsWith('--- ')) {
      oldPath = key(line.slice(4), 'a/') ?? '';
      lines.push({ kind: 'meta', text: line });
      continue;
    }
    if (!inHunk && line.startsWith('+++ ')) {
      const p = key(line.slice(4), 'b/') ?? oldPath;
      if (p !== '') out.set(p, lines);
      lines.push({ kind: 'meta', text: line });
      continue;
    }
    if (!inHunk && line.startsWith('rename to ')) out.set(line.slice('rename to '.length), lines);
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (h) {
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      inHunk = true;
      lines.push({ kind: 'hunk', text: line });
      continue;
    }
    if (!inHunk) {
      if (line !== '') lines.push({ kind: 'meta', text: line });
      continue;
    }
    if (line.startsWith('+')) lines.push({ kind: 'add', text: line.slice(1), newNo: newNo++ });
    else if (line.startsWith('-')) lines.push({ kind: 'del', text: line.slice(1), oldNo: oldNo++ });
    else if (line.startsWith(' ')) lines.push({ kind: 'ctx', text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
    else if (line.startsWith('\\')) lines.push({ kind: 'meta', text: line });
  }
  return out;
}

/** sessionOp is the body of one POST /api/v1/diff/session. */
export function sessionOp(version: number, op: Record<string, string | number>): string {
  return JSON.stringify({ version, ...op });
}

/** FileGroup is the changed files of one project, in reading order. */
export interface FileGroup {
  project: string;
  files: ReviewFile[];
}

/**
 * groupByProject groups files by project, keeping the reading order inside
 * each group; groups come in the order of their first file, so the first
 * file to read is still the first one listed. Files no project owns form
 * a group with project ''.
 */
export function groupByProject(files: ReviewFile[]): FileGroup[] {
  const groups = new Map<string, FileGroup>();
  for (const f of files) {
    let g = groups.get(f.project);
    if (!g) groups.set(f.project, (g = { project: f.project, files: [] }));
    g.files.push(f);
  }
  return [...groups.values()];
}

/**
 * reason is what a reason chain says in one line: why the node at its
 * head is affected (the chain's first step after the node, and the change
 * at its end when they differ). The chain runs from the affected node back
 * to a changed file: ["api:build", "depends on util:build", "input
 * libs/util/slug.go changed"].
 */
export function reason(chain: string[]): string {
  const steps = chain.slice(1);
  if (steps.length === 0) return 'affected';
  if (steps.length === 1) return steps[0]!;
  return `${steps[0]} … ${steps[steps.length - 1]}`;
}

// The forge's review of the branch (GET /api/v1/diff/review), read field
// by field. The route always answers 200; state says what is there:
// "ok" with a pull request, or no_remote, no_token, unreachable,
// rate_limited, no_pull_request, with a message. Pure.

export interface ForgeComment {
  id: number;
  kind: string;
  author: string;
  body: string;
  path: string;
  line: number; // in the current diff, 0 when outdated
  originalLine: number;
  side: string; // RIGHT (new) or LEFT (old)
  url: string;
}

export interface ForgeReview {
  state: string;
  message: string;
  /** The forge the origin remote names ("github"), '' when none was recognised. */
  forge: string;
  pullRequest: { number: number; title: string; url: string; state: string; draft: boolean; author: string } | null;
  verdicts: { reviewer: string; state: string; url: string }[];
  comments: ForgeComment[];
  checks: { name: string; status: string; conclusion: string; url: string }[];
}

type O = Record<string, unknown>;
const obj = (v: unknown): O | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as O) : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const list = (v: unknown): O[] => (Array.isArray(v) ? v.map(obj).filter((x): x is O => x !== null) : []);

/** parseForgeReview reads the route's answer; it throws on a body that is not an object. */
export function parseForgeReview(v: unknown): ForgeReview {
  const o = obj(v);
  if (o === null) throw new Error('the forge review is not an object');
  const pr = obj(o.pull_request);
  return {
    state: str(o.state),
    message: str(o.message),
    forge: str(o.forge),
    pullRequest: pr && {
      number: num(pr.number),
      title: str(pr.title),
      url: str(pr.url),
      state: str(pr.state),
      draft: pr.draft === true,
      author: str(pr.author),
    },
    verdicts: list(o.reviews).map((r) => ({ reviewer: str(r.reviewer), state: str(r.state), url: str(r.url) })),
    comments: list(o.comments)
      .map((c) => ({
        id: num(c.id),
        kind: str(c.kind),
        author: str(c.author),
        body: str(c.body),
        path: str(c.path),
        line: num(c.line),
        originalLine: num(c.original_line),
        side: str(c.side),
        url: str(c.url),
      }))
      .filter((c) => c.body !== '' || c.path !== ''),
    checks: list(o.checks).map((c) => ({ name: str(c.name), status: str(c.status), conclusion: str(c.conclusion), url: str(c.url) })),
  };
}

/** commentsAt are the forge's comments on line (new side) of path. */
export function commentsAt(r: ForgeReview | null, path: string, line: number): ForgeComment[] {
  if (r === null) return [];
  return r.comments.filter((c) => c.path === path && c.line === line && c.side !== 'LEFT');
}

/**
 * elsewhere are a file's forge comments that sit on no line of the diff
 * shown (outdated, on the old side, or on a line out of the hunks).
 */
export function elsewhere(r: ForgeReview | null, path: string, shown: Set<number>): ForgeComment[] {
  if (r === null) return [];
  return r.comments.filter((c) => c.path === path && (c.line === 0 || c.side === 'LEFT' || !shown.has(c.line)));
}

/** safeLink keeps a forge URL only when it is http(s); anything else is dropped. */
export function safeLink(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : '';
  } catch {
    return '';
  }
}

/** headline is the one line the Review view's header says of the forge. */
export function headline(r: ForgeReview): string {
  if (r.pullRequest === null) return r.message || `forge: ${r.state}`;
  const pr = r.pullRequest;
  const approved = r.verdicts.filter((v) => v.state === 'APPROVED').length;
  const changes = r.verdicts.filter((v) => v.state === 'CHANGES_REQUESTED').length;
  const failing = r.checks.filter((c) => ['failure', 'timed_out', 'cancelled', 'action_required'].includes(c.conclusion)).length;
  const parts = [`#${pr.number} ${pr.title}`, pr.draft ? 'draft' : pr.state];
  if (approved) parts.push(`${approved} approved`);
  if (changes) parts.push(`${changes} requested changes`);
  if (r.checks.length) parts.push(failing ? `${failing} of ${r.checks.length} checks failing` : `${r.checks.length} checks passing or pending`);
  return parts.join(' · ');
}

/**
 * worthShowing says whether the Review view's header has anything to say
 * of the forge: not when the repository has no remote, nor when its remote
 * is no forge the server knows (a local path, an unknown host), unless
 * forge.api_url is configured and does not work. A configured or detected
 * forge shows, its problems included (no token, unreachable, no pull
 * request).
 */
export function worthShowing(r: ForgeReview): boolean {
  switch (r.state) {
    case 'no_remote':
      return false;
    case 'unsupported_remote':
      return r.forge !== '' || r.message.startsWith('forge.api_url');
  }
  return r.state !== '';
}

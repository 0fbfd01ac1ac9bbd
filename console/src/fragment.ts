// Parsing of the page's fragment (location.hash). Pure: no DOM, no globals.
//
// Accepted forms (see console/README.md):
//   #token=<console token or one-time pairing code>[&flavor=targets][&run=<id>]
//          (boot.ts tells the two apart and refuses anything else; run=
//          names the run the Runs view shows, also alone: #run=<id>)
//   #data=<base64url(raw DEFLATE(graph JSON))>[&flavor=targets]
//   #src=<url of a graph JSON>[&flavor=targets]
// Each may end with &level=all or &level=projects: which level the
// knowledge view opens on (fragmentLevel), whatever the graph's size.
// Anything else (no fragment, an unknown key) is "none"; a recognised key
// with an unusable value is "invalid" with a reason to show.

export type Flavor = 'knowledge' | 'targets';

export type Fragment =
  | { kind: 'none'; run?: string }
  | { kind: 'token'; code: string; flavor: Flavor; run?: string }
  | { kind: 'data'; payload: string; flavor: Flavor }
  | { kind: 'src'; url: string; flavor: Flavor }
  | { kind: 'invalid'; reason: string };

const MODES = ['token', 'data', 'src'] as const;
type Mode = (typeof MODES)[number];
const KNOWN = new Set<string>([...MODES, 'flavor', 'run', 'level']);

function decode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

function splitPair(seg: string): [string, string] {
  const eq = seg.indexOf('=');
  return eq < 0 ? [seg, ''] : [seg.slice(0, eq), seg.slice(eq + 1)];
}

/**
 * parseFragment reads a location.hash value (with or without its leading
 * '#'). The first of token=, data=, src= wins. A src URL may itself hold
 * '&': segments whose key is not one of ours are glued back onto it.
 */
export function parseFragment(hash: string): Fragment {
  let h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (h === '') return { kind: 'none' };
  if (h.startsWith('/')) h = h.slice(1);

  const values = new Map<string, string>();
  let mode: Mode | null = null;
  let last: string | null = null;
  for (const seg of h.split('&')) {
    const [rawKey, rawValue] = splitPair(seg);
    const key = decode(rawKey).trim().toLowerCase();
    if (!KNOWN.has(key)) {
      // Part of a src URL's own query string, or noise.
      if (last === 'src') values.set('src', `${values.get('src')}&${seg}`);
      continue;
    }
    if (values.has(key)) {
      last = null;
      continue; // first occurrence wins
    }
    values.set(key, rawValue);
    last = key;
    if (mode === null && (MODES as readonly string[]).includes(key)) mode = key as Mode;
  }

  // run= goes with a token or alone (a Runs page reloaded), never a snapshot.
  const run = decode(values.get('run') ?? '').trim();
  const withRun = run === '' ? {} : { run };
  if (mode === null) return { kind: 'none', ...withRun };
  const flavor: Flavor = decode(values.get('flavor') ?? '').trim() === 'targets' ? 'targets' : 'knowledge';
  const raw = values.get(mode) ?? '';

  switch (mode) {
    case 'token': {
      const code = decode(raw).trim();
      if (code === '') return { kind: 'invalid', reason: 'the pairing link has no code in it: run `core open` for a fresh link' };
      return { kind: 'token', code, flavor, ...withRun };
    }
    case 'data': {
      const payload = raw.trim();
      if (payload === '') return { kind: 'invalid', reason: 'the #data= fragment is empty' };
      if (!/^[A-Za-z0-9_-]+={0,2}$/.test(payload)) return { kind: 'invalid', reason: 'the #data= fragment is not base64url' };
      return { kind: 'data', payload, flavor };
    }
    case 'src': {
      const url = decode(raw).trim();
      if (url === '') return { kind: 'invalid', reason: 'the #src= fragment has no URL' };
      return { kind: 'src', url, flavor };
    }
  }
}

/** The host the badge names for a #src= URL ("file" for a file: URL). */
export function srcProvenance(url: string, base: string): string {
  try {
    const u = new URL(url, base);
    if (u.protocol === 'file:') return 'file';
    return u.host || u.protocol.replace(/:$/, '');
  } catch {
    return url;
  }
}

/** Whether a page's location.hostname is one the live console accepts. */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === '[::1]';
}

/** fragmentLevel is the level a fragment asks the knowledge view to open on (level=all or level=projects), or null. */
export function fragmentLevel(hash: string): 'all' | 'projects' | null {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const seg of h.split('&')) {
    const [k, v] = splitPair(seg);
    if (decode(k).trim().toLowerCase() !== 'level') continue;
    const level = decode(v).trim();
    return level === 'all' || level === 'projects' ? level : null;
  }
  return null;
}

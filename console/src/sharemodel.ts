// The shapes the share uses, checked field by field: POST /api/v1/share's
// answer, and the activity a share link shows (its runs are runsmodel.ts's).
// Pure.

export interface ShareInfo {
  active: boolean;
  url: string;
  address: string;
  expires: Date | null;
  superseded: string;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function date(v: unknown): Date | null {
  if (typeof v !== 'string' || v === '') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** parseShare reads the answer of POST /api/v1/share. */
export function parseShare(v: unknown): ShareInfo {
  if (typeof v !== 'object' || v === null) throw new Error('the share answer is not an object');
  const o = v as Record<string, unknown>;
  return { active: o.active === true, url: str(o.url), address: str(o.address), expires: date(o.expires), superseded: str(o.superseded) };
}

/** remaining is the countdown's text: "12:05" (minutes:seconds), "1:02:03", or "ended". */
export function remaining(expires: Date | null, now: Date): string {
  if (expires === null) return '';
  let s = Math.floor((expires.getTime() - now.getTime()) / 1000);
  if (s <= 0) return 'ended';
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

export interface Activity {
  time: Date | null;
  kind: string;
  message: string;
  subject: string;
}

/** parseActivities reads ListActivities' answer (Connect JSON). */
export function parseActivities(v: unknown): Activity[] {
  const list = (v as { activities?: unknown } | null)?.activities;
  if (!Array.isArray(list)) return [];
  return list
    .filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null)
    .map((a) => ({ time: date(a.time), kind: str(a.kind), message: str(a.message), subject: str(a.subject) }));
}

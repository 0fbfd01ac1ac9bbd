// Calls to the core server. Every call carries `Authorization: Bearer
// <token>`; the token never goes into a URL.

import { parseGraph, type GraphData } from './model';
import { parseQueue, type AttentionQueue } from './attentionmodel';
import { parseInsight, type Insight } from './insightmodel';
import { parseForgeReview, type ForgeReview } from './forgemodel';
import { parseActivities, parseShare, type Activity, type ShareInfo } from './sharemodel';
import { parseRunLog, parseRuns, type Run, type RunLog } from './runsmodel';
import type { Flavor } from './fragment';
import { parsePage, parseSession, type ReviewPage, type ReviewSession } from './reviewmodel';

export type ApiErrorKind = 'unauthorized' | 'client' | 'server' | 'network' | 'format';

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * errorMessageFromBody pulls the message out of an error body: the
 * console's {"error":{"code","message"}} or Connect's {"code","message"};
 * otherwise the text itself, or the status line.
 */
export function errorMessageFromBody(text: string, status: number, statusText = ''): string {
  const t = text.trim();
  if (t !== '') {
    try {
      const v = JSON.parse(t) as unknown;
      if (typeof v === 'object' && v !== null) {
        const o = v as { error?: unknown; message?: unknown; code?: unknown };
        if (typeof o.error === 'object' && o.error !== null) {
          const e = o.error as { message?: unknown; code?: unknown };
          if (typeof e.message === 'string' && e.message !== '') return e.message;
          if (typeof e.code === 'string') return e.code;
        }
        if (typeof o.error === 'string' && o.error !== '') return o.error;
        if (typeof o.message === 'string' && o.message !== '') return o.message;
        if (typeof o.code === 'string' && o.code !== '') return o.code;
      }
    } catch {
      /* not JSON */
    }
    if (t.length <= 300 && !t.startsWith('<')) return t;
  }
  return `HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
}

/** One path the index skipped or could not parse, and why. */
export interface IndexProblem {
  path: string;
  message: string;
}

export interface StatusSnapshot {
  workspace: string;
  /** How many nodes the knowledge graph holds (0 when the status does not say). */
  nodes: number;
  affected: string[] | null;
  /** Why targets.yaml does not load; '' when it does. */
  diagnostic: string;
  /** How many paths the index skipped or could not parse. */
  indexDiagnostics: number;
  /** The first of them (the server sends at most 100). */
  indexProblems: IndexProblem[];
}

/** parseStatus reads the protojson GetStatus answer (protojson leaves out zero values). */
export function parseStatus(v: unknown): StatusSnapshot {
  const o = (typeof v === 'object' && v !== null ? v : {}) as {
    workspace?: unknown;
    pool?: { affected?: unknown };
    graph?: { nodes?: unknown; diagnostic?: unknown; indexDiagnostics?: unknown; indexProblems?: unknown };
  };
  const aff = o.pool && Array.isArray(o.pool.affected) ? o.pool.affected.filter((x): x is string => typeof x === 'string') : null;
  const problems: IndexProblem[] = [];
  if (o.graph && Array.isArray(o.graph.indexProblems)) {
    for (const p of o.graph.indexProblems as unknown[]) {
      const q = (typeof p === 'object' && p !== null ? p : {}) as { path?: unknown; message?: unknown };
      if (typeof q.path === 'string' && q.path !== '') problems.push({ path: q.path, message: typeof q.message === 'string' ? q.message : '' });
    }
  }
  const count = Number(o.graph?.indexDiagnostics ?? 0);
  const nodes = Number(o.graph?.nodes ?? 0);
  return {
    workspace: typeof o.workspace === 'string' ? o.workspace : '',
    nodes: Number.isFinite(nodes) && nodes > 0 ? Math.floor(nodes) : 0,
    affected: aff && aff.length > 0 ? aff : null,
    diagnostic: o.graph && typeof o.graph.diagnostic === 'string' ? o.graph.diagnostic : '',
    indexDiagnostics: Math.max(Number.isFinite(count) && count > 0 ? Math.floor(count) : 0, problems.length),
    indexProblems: problems,
  };
}

async function send(url: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, cache: 'no-store', credentials: 'omit', redirect: 'error' });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError('network', 0, 'the core server cannot be reached');
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => '');
  const msg = errorMessageFromBody(text, res.status, res.statusText);
  if (res.status === 401) throw new ApiError('unauthorized', 401, msg);
  if (res.status >= 500) throw new ApiError('server', res.status, msg);
  throw new ApiError('client', res.status, msg);
}

async function readJSON(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('format', res.status, 'the server answered something that is not JSON');
  }
}

/** exchangePairingCode trades the one-time code of a pairing link for a console token. */
export async function exchangePairingCode(origin: string, code: string): Promise<{ token: string; expireTime: string }> {
  const res = await send(`${origin}/core.token.v1alpha1.TokenService/ExchangePairingCode`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${code}` },
    body: '{}',
  });
  const v = (await readJSON(res)) as { token?: unknown; expireTime?: unknown };
  if (typeof v.token !== 'string' || v.token === '') throw new ApiError('format', res.status, 'the pairing answer holds no token');
  return { token: v.token, expireTime: typeof v.expireTime === 'string' ? v.expireTime : '' };
}

export class Api {
  constructor(
    private readonly origin: string,
    private readonly token: () => string,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.token()}`, ...extra };
  }

  async graph(flavor: Flavor, signal?: AbortSignal): Promise<GraphData> {
    const q = flavor === 'targets' ? '?flavor=targets' : '';
    const res = await send(`${this.origin}/api/v1/graph${q}`, { headers: this.headers(), signal });
    return this.graphFrom(res);
  }

  /** projects is the project level: level=projects, each project with what it holds. */
  async projects(signal?: AbortSignal): Promise<GraphData> {
    const res = await send(`${this.origin}/api/v1/graph?level=projects`, { headers: this.headers(), signal });
    return this.graphFrom(res);
  }

  /**
   * select is the neighbourhood terms select; with edgeLimit, as the
   * project level draws it (edge_limit=: no nesting edges, the relations
   * among what projects hold only up to edgeLimit, the rest counted in
   * omitted).
   */
  async select(terms: string, signal?: AbortSignal, edgeLimit?: number): Promise<GraphData> {
    const limit = edgeLimit === undefined ? '' : `&edge_limit=${edgeLimit}`;
    const res = await send(`${this.origin}/api/v1/graph?select=${encodeURIComponent(terms)}${limit}`, { headers: this.headers(), signal });
    return this.graphFrom(res);
  }

  async plan(signal?: AbortSignal): Promise<GraphData> {
    const res = await send(`${this.origin}/api/v1/plan`, { headers: this.headers(), signal });
    return this.graphFrom(res);
  }

  async status(signal?: AbortSignal): Promise<StatusSnapshot> {
    const res = await send(`${this.origin}/core.status.v1alpha1.StatusService/GetStatus`, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body: '{}',
      signal,
    });
    return parseStatus(await readJSON(res));
  }

  /** events opens the SSE stream; the caller reads its body. */
  async events(signal: AbortSignal): Promise<Response> {
    const res = await send(`${this.origin}/api/v1/events`, {
      headers: this.headers({ Accept: 'text/event-stream' }),
      signal,
    });
    if (!res.body) throw new ApiError('network', res.status, 'the event stream has no body');
    return res;
  }

  /** attention is GET /api/v1/attention: what agents wait on a person for. */
  async attention(signal?: AbortSignal): Promise<AttentionQueue> {
    const res = await send(`${this.origin}/api/v1/attention`, { headers: this.headers(), signal });
    try {
      return parseQueue(await readJSON(res));
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError('format', res.status, (e as Error).message);
    }
  }

  /** disposeAttention answers one request: POST /api/v1/attention {id, reason}. */
  async disposeAttention(id: string, reason: string): Promise<void> {
    await send(`${this.origin}/api/v1/attention`, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ id, reason }),
    });
  }

  /** insight is GET /api/v1/insight with its query parameters (window, project, lens, limit). */
  async insight(params: Record<string, string> = {}): Promise<Insight> {
    const q = new URLSearchParams(params).toString();
    const res = await send(`${this.origin}/api/v1/insight${q ? `?${q}` : ''}`, { headers: this.headers() });
    try {
      return parseInsight(await readJSON(res));
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError('format', res.status, (e as Error).message);
    }
  }

  /** share is one POST /api/v1/share: {} or {ttl} opens, {action:'status'|'stop'}. */
  async share(body: Record<string, string>): Promise<ShareInfo> {
    const res = await send(`${this.origin}/api/v1/share`, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify(body),
    });
    return parseShare(await readJSON(res));
  }

  /** connect calls one Connect procedure with a JSON body. */
  private async connect(procedure: string, body: unknown): Promise<unknown> {
    const res = await send(`${this.origin}/${procedure}`, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify(body),
    });
    return readJSON(res);
  }

  async activities(limit = 30): Promise<Activity[]> {
    return parseActivities(await this.connect('core.activity.v1alpha1.ActivityService/ListActivities', { limit }));
  }

  async runs(limit = 30): Promise<Run[]> {
    return parseRuns(await this.connect('core.viewer.v1alpha1.ViewerService/ListRuns', { limit }));
  }

  async runLog(id: string): Promise<RunLog> {
    return parseRunLog(await this.connect('core.viewer.v1alpha1.ViewerService/GetRun', { id }));
  }

  /** forgeReview is GET /api/v1/diff/review: the branch's pull request on the forge. */
  async forgeReview(signal?: AbortSignal): Promise<ForgeReview> {
    const res = await send(`${this.origin}/api/v1/diff/review`, { headers: this.headers(), signal });
    try {
      return parseForgeReview(await readJSON(res));
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError('format', res.status, (e as Error).message);
    }
  }

  /** diff is GET /api/v1/diff: the annotated change and the review session. */
  async diff(signal?: AbortSignal): Promise<ReviewPage> {
    const res = await send(`${this.origin}/api/v1/diff`, { headers: this.headers(), signal });
    return parsePage(await readJSON(res));
  }

  /** patch is GET /api/v1/diff/patch, the unified patch as text. */
  async patch(signal?: AbortSignal): Promise<string> {
    const res = await send(`${this.origin}/api/v1/diff/patch`, { headers: this.headers(), signal });
    return res.text();
  }

  /** sessionWrite is one POST /api/v1/diff/session; the answer is the new session. */
  async sessionWrite(body: string): Promise<ReviewSession> {
    const res = await send(`${this.origin}/api/v1/diff/session`, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body,
    });
    return parseSession(await readJSON(res));
  }

  private async graphFrom(res: Response): Promise<GraphData> {
    const v = await readJSON(res);
    try {
      return parseGraph(v);
    } catch (e) {
      throw new ApiError('format', res.status, (e as Error).message);
    }
  }
}

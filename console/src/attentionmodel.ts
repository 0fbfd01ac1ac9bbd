// The attention queue's shape (GET /api/v1/attention, the same bytes as
// `core session attention --json`), checked field by field: a request the
// page cannot read is dropped, never half-drawn.

export interface AttentionRequest {
  id: string;
  state: 'open' | 'disposed' | 'withdrawn';
  need: string;
  agent: string;
  node: string;
  file: string;
  reason: string;
  created: string;
  closed: string;
}

export interface AttentionQueue {
  open: number;
  requests: AttentionRequest[];
}

const states = new Set(['open', 'disposed', 'withdrawn']);

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** parseQueue reads the route's answer; it throws on a body of another shape. */
export function parseQueue(v: unknown): AttentionQueue {
  if (typeof v !== 'object' || v === null || !Array.isArray((v as { requests?: unknown }).requests)) {
    throw new Error('the attention queue has no requests list');
  }
  const requests: AttentionRequest[] = [];
  for (const r of (v as { requests: unknown[] }).requests) {
    if (typeof r !== 'object' || r === null) continue;
    const o = r as Record<string, unknown>;
    const id = str(o.id);
    const state = str(o.state);
    if (id === '' || !states.has(state)) continue;
    requests.push({
      id,
      state: state as AttentionRequest['state'],
      need: str(o.need),
      agent: str(o.agent),
      node: str(o.node),
      file: str(o.file),
      reason: str(o.reason),
      created: str(o.created),
      closed: str(o.closed),
    });
  }
  return { open: requests.filter((r) => r.state === 'open').length, requests };
}

/** badgeText is the header button's count: empty when nothing waits. */
export function badgeText(open: number): string {
  return open > 0 ? String(open) : '';
}

import { describe, expect, it } from 'vitest';
import { badgeText, parseQueue } from '../src/attentionmodel';

describe('parseQueue', () => {
  it('reads the route answer and counts open requests itself', () => {
    const q = parseQueue({
      open: 9,
      requests: [
        { id: 'att-1', state: 'open', need: 'May I?', agent: 'tok_a', created: '2026-11-24T10:00:00Z' },
        { id: 'att-2', state: 'disposed', need: 'x', reason: 'no', agent: 'tok_a', closed: '2026-11-24T10:01:00Z' },
      ],
    });
    expect(q.open).toBe(1);
    expect(q.requests.map((r) => r.id)).toEqual(['att-1', 'att-2']);
    expect(q.requests[1]?.reason).toBe('no');
  });
  it('drops a request without an id or with an unknown state', () => {
    const q = parseQueue({ requests: [{ state: 'open' }, { id: 'a', state: 'maybe' }, 7, null] });
    expect(q.requests).toEqual([]);
  });
  it('refuses a body without a requests list', () => {
    expect(() => parseQueue({})).toThrow(/requests/);
    expect(() => parseQueue(null)).toThrow();
  });
});

describe('badgeText', () => {
  it('is empty when nothing waits', () => {
    expect(badgeText(0)).toBe('');
    expect(badgeText(3)).toBe('3');
  });
});

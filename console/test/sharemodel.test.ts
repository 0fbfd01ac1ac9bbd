import { describe, expect, it } from 'vitest';
import { parseActivities, parseShare, remaining } from '../src/sharemodel';

describe('parseShare', () => {
  it('reads an open share', () => {
    const s = parseShare({ active: true, url: 'http://10.0.0.2:4000/console/graph/#token=x', address: '10.0.0.2:4000', expires: '2026-11-24T12:00:00Z' });
    expect(s.active).toBe(true);
    expect(s.expires?.toISOString()).toBe('2026-11-24T12:00:00.000Z');
  });
  it('reads no share', () => {
    expect(parseShare({ active: false })).toEqual({ active: false, url: '', address: '', expires: null, superseded: '' });
  });
});

describe('remaining', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  it('counts down in minutes and seconds, then hours', () => {
    expect(remaining(new Date('2026-11-24T12:05:09Z'), now)).toBe('5:09');
    expect(remaining(new Date('2026-11-24T13:02:03Z'), now)).toBe('1:02:03');
  });
  it('says ended at or past expiry', () => {
    expect(remaining(now, now)).toBe('ended');
    expect(remaining(null, now)).toBe('');
  });
});

describe('the activity list', () => {
  it('reads activities, skipping what is not an object', () => {
    expect(parseActivities({ activities: [{ kind: 'run', message: 'util:test succeeded', time: '2026-11-24T12:00:00Z' }, 3] })).toHaveLength(1);
    expect(parseActivities({})).toEqual([]);
  });
});

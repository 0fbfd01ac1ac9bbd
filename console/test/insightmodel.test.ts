import { describe, expect, it } from 'vitest';
import { chordMatrix, parseInsight, pct } from '../src/insightmodel';

const answer = {
  head: 'abc',
  commits: 7,
  window: { name: '1y', commits: 7 },
  bulk: { threshold: 100, commits: 1 },
  notes: ['n'],
  hotspots: { files: [{ path: 'a.go', project: 'a', changes: 3, complexity: 10, score: 30 }, { path: '', score: 9 }], projects: [{ project: 'a', changes: 3, complexity: 10, score: 30 }] },
  affinity: { files: [], projects: [{ a: 'a', b: 'b', together: 4, support: 0.5, confidence: 1, hidden: true }] },
  ownership: { projects: [{ project: 'a', changes: 6, bus_factor: 1, owners: [{ author: 'Ada', changes: 4, share: 0.667 }], quiet: [] }] },
  trend: { weeks: ['2026-09-07', '2026-09-14'], projects: [{ project: 'a', counts: [1, 'x'], direction: 'rising', change: 1 }] },
  volatility: { min_sample: 3, runs: 16, targets: [{ target: 'a:flaky', runs: 8, pairs: 7, flips: 7, rate: 1, lower_bound: 0.646 }] },
};

describe('parseInsight', () => {
  it('reads every lens and drops rows it cannot draw', () => {
    const i = parseInsight(answer);
    expect(i.commits).toBe(7);
    expect(i.hotspots?.files).toHaveLength(1);
    expect(i.affinity?.projects[0]?.hidden).toBe(true);
    expect(i.ownership?.projects[0]?.busFactor).toBe(1);
    expect(i.trend?.projects[0]?.counts).toEqual([1, 0]);
    expect(i.volatility?.targets[0]?.lowerBound).toBe(0.646);
  });
  it('leaves a lens not asked for as null', () => {
    const i = parseInsight({ commits: 0 });
    expect(i.hotspots).toBeNull();
    expect(i.volatility).toBeNull();
  });
  it('refuses a body that is not an object', () => {
    expect(() => parseInsight([])).toThrow();
  });
});

describe('chordMatrix', () => {
  it('is symmetric over the sorted project names', () => {
    const m = chordMatrix([
      { a: 'b', b: 'c', together: 2, support: 0, confidence: 0, hidden: false },
      { a: 'a', b: 'b', together: 5, support: 0, confidence: 0, hidden: true },
    ]);
    expect(m.names).toEqual(['a', 'b', 'c']);
    expect(m.matrix).toEqual([
      [0, 5, 0],
      [5, 0, 2],
      [0, 2, 0],
    ]);
  });
});

it('pct rounds to whole percents', () => {
  expect(pct(0.667)).toBe('67%');
});

import { describe, expect, it } from 'vitest';
import { chordMatrix, compact, logShare, parseInsight, pct, trendSentence } from '../src/insightmodel';

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

describe('the hotspots left out and the trend baseline', () => {
  const i = parseInsight({
    hotspots: {
      files: [],
      projects: [],
      left_out: [{ kind: 'lockfiles', files: 1, top: ['package-lock.json'] }, { kind: '', files: 2 }],
      included: ['docs'],
      note: 'left out: 1 lockfile (package-lock.json); include them with include=lockfiles',
    },
    trend: { weeks: [], projects: [{ project: 'a', counts: [], direction: 'steady', recent: 8, baseline: 2.25, baseline_weeks: 8, first: '2026-01-02T00:00:00Z' }] },
  });
  it('reads what hotspots left out, and what it included', () => {
    expect(i.hotspots?.leftOut).toEqual([{ kind: 'lockfiles', files: 1, top: ['package-lock.json'] }]);
    expect(i.hotspots?.included).toEqual(['docs']);
    expect(i.hotspots?.note).toContain('include=lockfiles');
  });
  it('reads the baseline of a trend', () => {
    expect(i.trend?.projects[0]).toMatchObject({ recent: 8, baseline: 2.25, baselineWeeks: 8, first: '2026-01-02T00:00:00Z' });
  });
});

describe('compact', () => {
  it.each([
    [2418, '2,418'],
    [9999, '9,999'],
    [20216900, '20.2M'],
    [123456, '123k'],
    [1500000000, '1.5G'],
  ])('%d reads %s', (n, want) => {
    expect(compact(n)).toBe(want);
  });
});

describe('logShare', () => {
  it('keeps a value four orders of magnitude below the top visible', () => {
    expect(logShare(2418, 20216900)).toBeGreaterThan(0.45);
    expect(logShare(20216900, 20216900)).toBe(1);
    expect(logShare(0, 100)).toBe(0);
  });
});

describe('trendSentence', () => {
  const base = { project: 'a', counts: [], change: 0, first: '' };
  it.each([
    [{ ...base, direction: 'new', recent: 5, baseline: 0, baselineWeeks: 0 }, '5 commits in the last 4 weeks; new: too little history before them to compare'],
    [{ ...base, direction: 'steady', recent: 8, baseline: 2.25, baselineWeeks: 8 }, '8 commits in the last 4 weeks against 2.3 a week over the 8 weeks before: steady'],
    [{ ...base, direction: 'steady', recent: 0, baseline: 0, baselineWeeks: 0 }, '0 commits in the last 4 weeks; no commit yet'],
  ])('%j', (p, want) => {
    expect(trendSentence(p)).toBe(want);
  });
});

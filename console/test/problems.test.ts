import { describe, expect, it } from 'vitest';
import { indexProblemsView } from '../src/problems';

describe('indexProblemsView', () => {
  it('shows nothing when the index has no problems', () => {
    expect(indexProblemsView(0, [])).toBeNull();
  });

  it('counts one path in the singular and lists it', () => {
    const p = { path: 'README.md', message: 'over the 2 MiB indexing limit' };
    expect(indexProblemsView(1, [p])).toEqual({ summary: '1 path not indexed', items: [p], more: null });
  });

  it('says how many the list leaves out', () => {
    const listed = Array.from({ length: 100 }, (_, i) => ({ path: `big/${i}.bin`, message: 'over the limit' }));
    const v = indexProblemsView(250, listed);
    expect(v?.summary).toBe('250 paths not indexed');
    expect(v?.items).toHaveLength(100);
    expect(v?.more).toBe('… and 150 more');
  });

  it('never counts fewer than it lists', () => {
    expect(indexProblemsView(0, [{ path: 'a', message: 'x' }])?.summary).toBe('1 path not indexed');
  });
});

import { describe, expect, it } from 'vitest';
import { commentsAt, elsewhere, headline, parseForgeReview, safeLink, worthShowing } from '../src/forgemodel';

const answer = {
  state: 'ok',
  message: '',
  pull_request: { number: 42, title: 'Slugs', url: 'https://github.com/o/r/pull/42', state: 'open', draft: false, author: 'ada' },
  reviews: [{ reviewer: 'bob', state: 'APPROVED' }, { reviewer: 'cy', state: 'CHANGES_REQUESTED' }],
  comments: [
    { kind: 'review', id: 1, author: 'bob', body: 'nit', path: 'a.go', line: 3, original_line: 3, side: 'RIGHT', url: 'https://github.com/x' },
    { kind: 'review', id: 2, author: 'cy', body: 'old', path: 'a.go', line: 0, original_line: 9, side: 'RIGHT', url: 'javascript:alert(1)' },
    { kind: 'issue', id: 3, author: 'dee', body: 'general', url: '' },
  ],
  checks: [{ name: 'ci', status: 'completed', conclusion: 'failure' }],
};

describe('parseForgeReview', () => {
  it('reads the pull request, verdicts, comments and checks', () => {
    const r = parseForgeReview(answer);
    expect(r.pullRequest?.number).toBe(42);
    expect(r.comments).toHaveLength(3);
    expect(headline(r)).toBe('#42 Slugs · open · 1 approved · 1 requested changes · 1 of 1 checks failing');
  });
  it('says a state without a pull request in one line', () => {
    expect(headline(parseForgeReview({ state: 'no_token', message: 'set GH_TOKEN' }))).toBe('set GH_TOKEN');
  });
  it('places comments on their lines, and the rest elsewhere', () => {
    const r = parseForgeReview(answer);
    expect(commentsAt(r, 'a.go', 3).map((c) => c.id)).toEqual([1]);
    expect(elsewhere(r, 'a.go', new Set([3])).map((c) => c.id)).toEqual([2]);
    expect(elsewhere(r, 'a.go', new Set([])).map((c) => c.id)).toEqual([1, 2]);
  });
  it('keeps only http(s) links', () => {
    expect(safeLink('javascript:alert(1)')).toBe('');
    expect(safeLink('https://github.com/x')).toBe('https://github.com/x');
  });
});

describe('worthShowing', () => {
  it.each([
    ['a pull request', { state: 'ok', forge: 'github' }, true],
    ['a GitHub remote without a token', { state: 'no_token', forge: 'github', message: 'set GH_TOKEN' }, true],
    ['a GitHub remote without a pull request', { state: 'no_pull_request', forge: 'github' }, true],
    ['no remote at all', { state: 'no_remote', message: 'the repository has no origin remote' }, false],
    ['a local-path remote', { state: 'unsupported_remote', message: 'the origin remote is not a forge repository: a local path' }, false],
    ['a configured forge.api_url that does not work', { state: 'unsupported_remote', message: 'forge.api_url "x" is not usable' }, true],
  ])('%s: %s', (_name, answer, want) => {
    expect(worthShowing(parseForgeReview(answer))).toBe(want);
  });
});

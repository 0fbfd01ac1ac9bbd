import { describe, expect, it } from 'vitest';
import { errorMessageFromBody, parseStatus } from '../src/api';

describe('errorMessageFromBody', () => {
  it('reads the console error body', () => {
    expect(errorMessageFromBody('{"error":{"code":"internal","message":"index broke"}}', 500)).toBe('index broke');
  });
  it('reads a Connect error body', () => {
    expect(errorMessageFromBody('{"code":"unavailable","message":"targets.yaml: line 3"}', 503)).toBe('targets.yaml: line 3');
  });
  it('falls back to the code, short text, then the status', () => {
    expect(errorMessageFromBody('{"code":"internal"}', 500)).toBe('internal');
    expect(errorMessageFromBody('upstream gone', 502)).toBe('upstream gone');
    expect(errorMessageFromBody('', 500, 'Internal Server Error')).toBe('HTTP 500 Internal Server Error');
    expect(errorMessageFromBody('<html>oops</html>', 500)).toBe('HTTP 500');
  });
});

describe('parseStatus', () => {
  it('reads workspace, node count, affected and diagnostic', () => {
    expect(
      parseStatus({ workspace: '/w/shop', pool: { capacity: 4, affected: ['project:api', 'target:api:build'] }, graph: { nodes: 3, diagnostic: 'bad' } }),
    ).toEqual({ workspace: '/w/shop', nodes: 3, affected: ['project:api', 'target:api:build'], diagnostic: 'bad', indexDiagnostics: 0, indexProblems: [] });
  });
  it('treats a missing or empty affected set as none', () => {
    expect(parseStatus({ workspace: '/w', pool: { capacity: 4 } }).affected).toBeNull();
    expect(parseStatus({ workspace: '/w', pool: { affected: [] } }).affected).toBeNull();
    expect(parseStatus({}).workspace).toBe('');
  });
});

describe('parseStatus: index problems', () => {
  it('reads the count and the listed problems', () => {
    const st = parseStatus({
      graph: {
        nodes: 3,
        indexDiagnostics: 2,
        indexProblems: [
          { path: 'README.md', message: 'over the 2 MiB indexing limit' },
          { path: 'loop', message: 'symlink loop' },
        ],
      },
    });
    expect(st.indexDiagnostics).toBe(2);
    expect(st.indexProblems).toEqual([
      { path: 'README.md', message: 'over the 2 MiB indexing limit' },
      { path: 'loop', message: 'symlink loop' },
    ]);
  });
  it('reads none when protojson leaves the fields out', () => {
    const st = parseStatus({ workspace: '/w', graph: { nodes: 3 } });
    expect(st.indexDiagnostics).toBe(0);
    expect(st.indexProblems).toEqual([]);
    expect(parseStatus({}).indexProblems).toEqual([]);
  });
  it('skips entries without a path and never counts fewer than it lists', () => {
    const st = parseStatus({ graph: { indexDiagnostics: '1', indexProblems: [{ path: 'a' }, { message: 'no path' }, 'junk', { path: 'b', message: 'x' }] } });
    expect(st.indexProblems).toEqual([
      { path: 'a', message: '' },
      { path: 'b', message: 'x' },
    ]);
    expect(st.indexDiagnostics).toBe(2);
    expect(parseStatus({ graph: { indexDiagnostics: 'many' } }).indexDiagnostics).toBe(0);
  });
});

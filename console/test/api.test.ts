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
  it('reads workspace, affected and diagnostic', () => {
    expect(
      parseStatus({ workspace: '/w/shop', pool: { capacity: 4, affected: ['project:api', 'target:api:build'] }, graph: { nodes: 3, diagnostic: 'bad' } }),
    ).toEqual({ workspace: '/w/shop', affected: ['project:api', 'target:api:build'], diagnostic: 'bad' });
  });
  it('treats a missing or empty affected set as none', () => {
    expect(parseStatus({ workspace: '/w', pool: { capacity: 4 } }).affected).toBeNull();
    expect(parseStatus({ workspace: '/w', pool: { affected: [] } }).affected).toBeNull();
    expect(parseStatus({}).workspace).toBe('');
  });
});

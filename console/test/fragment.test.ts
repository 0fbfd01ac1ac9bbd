import { describe, expect, it } from 'vitest';
import { fragmentLevel, isLoopbackHostname, parseFragment, srcProvenance } from '../src/fragment';

describe('parseFragment', () => {
  it('reads nothing from an empty fragment', () => {
    expect(parseFragment('')).toEqual({ kind: 'none' });
    expect(parseFragment('#')).toEqual({ kind: 'none' });
  });

  it('reads a pairing code', () => {
    expect(parseFragment('#token=core_pair_abc123')).toEqual({ kind: 'token', code: 'core_pair_abc123', flavor: 'knowledge' });
  });

  it('reads a pairing code with the target flavour', () => {
    expect(parseFragment('#token=abc&flavor=targets')).toEqual({ kind: 'token', code: 'abc', flavor: 'targets' });
  });

  it('accepts the flavour before the mode key', () => {
    expect(parseFragment('#flavor=targets&token=abc')).toEqual({ kind: 'token', code: 'abc', flavor: 'targets' });
  });

  it('ignores an unknown flavour', () => {
    expect(parseFragment('#token=abc&flavor=weird')).toMatchObject({ flavor: 'knowledge' });
  });

  it('percent-decodes a code', () => {
    expect(parseFragment('#token=a%2Bb')).toMatchObject({ code: 'a+b' });
  });

  it('reads the run a link names beside the code, or alone', () => {
    expect(parseFragment('#token=abc&run=r1a2')).toEqual({ kind: 'token', code: 'abc', flavor: 'knowledge', run: 'r1a2' });
    expect(parseFragment('#run=r%2B1')).toEqual({ kind: 'none', run: 'r+1' });
    expect(parseFragment('#token=abc&run=')).toEqual({ kind: 'token', code: 'abc', flavor: 'knowledge' });
  });

  it('keeps a run= out of a src URL', () => {
    expect(parseFragment('#src=http://h/g.json?a=1&run=r1')).toEqual({ kind: 'src', url: 'http://h/g.json?a=1', flavor: 'knowledge' });
  });

  it('refuses an empty code', () => {
    expect(parseFragment('#token=')).toMatchObject({ kind: 'invalid' });
  });

  it('reads a data payload verbatim', () => {
    expect(parseFragment('#data=q1YqyUxRslJKzs8tyM9LzSvRUcpJLEpXsqquBQA&flavor=targets')).toEqual({
      kind: 'data',
      payload: 'q1YqyUxRslJKzs8tyM9LzSvRUcpJLEpXsqquBQA',
      flavor: 'targets',
    });
  });

  it('refuses a payload that is not base64url', () => {
    expect(parseFragment('#data=ab+cd/ef')).toMatchObject({ kind: 'invalid' });
    expect(parseFragment('#data=')).toMatchObject({ kind: 'invalid' });
  });

  it('reads a src URL', () => {
    expect(parseFragment('#src=http://127.0.0.1:8000/demo.json')).toEqual({
      kind: 'src',
      url: 'http://127.0.0.1:8000/demo.json',
      flavor: 'knowledge',
    });
  });

  it('keeps the query string of a src URL whole', () => {
    expect(parseFragment('#src=http://127.0.0.1:9/g.json?a=1&b=2&flavor=targets')).toEqual({
      kind: 'src',
      url: 'http://127.0.0.1:9/g.json?a=1&b=2',
      flavor: 'targets',
    });
  });

  it('percent-decodes a src URL', () => {
    expect(parseFragment('#src=http%3A%2F%2F127.0.0.1%3A9%2Fg.json')).toMatchObject({ url: 'http://127.0.0.1:9/g.json' });
  });

  it('lets the first mode key win', () => {
    expect(parseFragment('#token=abc&data=xyz')).toMatchObject({ kind: 'token', code: 'abc' });
    expect(parseFragment('#src=http://x/y&token=abc')).toMatchObject({ kind: 'src' });
  });

  it('treats unknown keys as no fragment', () => {
    expect(parseFragment('#foo=bar')).toEqual({ kind: 'none' });
    expect(parseFragment('#section-2')).toEqual({ kind: 'none' });
  });

  it('works without the leading #', () => {
    expect(parseFragment('token=abc')).toMatchObject({ kind: 'token', code: 'abc' });
  });
});

describe('srcProvenance', () => {
  it('names the host and port of the URL', () => {
    expect(srcProvenance('http://127.0.0.1:8123/demo.json', 'http://127.0.0.1:7391/console/graph/')).toBe('127.0.0.1:8123');
    expect(srcProvenance('http://[::1]:9/g.json', 'http://x/')).toBe('[::1]:9');
  });
  it('resolves a relative URL against the page', () => {
    expect(srcProvenance('demo.json', 'http://127.0.0.1:7391/console/graph/')).toBe('127.0.0.1:7391');
  });
  it('calls a file URL "file"', () => {
    expect(srcProvenance('file:///tmp/g.json', 'file:///tmp/index.html')).toBe('file');
  });
});

describe('isLoopbackHostname', () => {
  it('accepts exactly 127.0.0.1 and [::1]', () => {
    expect(isLoopbackHostname('127.0.0.1')).toBe(true);
    expect(isLoopbackHostname('[::1]')).toBe(true);
  });
  it('refuses localhost and everything else', () => {
    for (const h of ['localhost', '::1', '127.0.0.2', 'example.com', '', '127.0.0.1.nip.io']) {
      expect(isLoopbackHostname(h)).toBe(false);
    }
  });
  it('agrees with what URL reports for IPv6 loopback', () => {
    expect(isLoopbackHostname(new URL('http://[::1]:7391/console/graph/').hostname)).toBe(true);
  });
});

describe('fragmentLevel', () => {
  it.each([
    ['#src=http://127.0.0.1:1/g.json&level=all', 'all'],
    ['#token=core_pair_x&level=projects', 'projects'],
    ['#data=abc', null],
    ['#src=x&level=everything', null],
  ])('%s opens on %s', (hash, want) => {
    expect(fragmentLevel(hash)).toBe(want);
  });
  it('keeps level= out of a src URL', () => {
    expect(parseFragment('#src=http://h/g.json?a=1&b=2&level=all')).toEqual({ kind: 'src', url: 'http://h/g.json?a=1&b=2', flavor: 'knowledge' });
  });
});

import { deflateRawSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { base64urlToBytes, decodeDataPayload } from '../src/payload';
import { parseGraphText } from '../src/model';

function encode(text: string): string {
  return deflateRawSync(Buffer.from(text)).toString('base64url');
}

describe('data payload', () => {
  it('decodes base64url without padding', () => {
    expect([...base64urlToBytes('_-8')]).toEqual([0xff, 0xef]);
    expect([...base64urlToBytes('AQ')]).toEqual([1]);
    expect([...base64urlToBytes('AQ==')]).toEqual([1]);
  });

  it('round-trips the demo graph', async () => {
    const text = readFileSync(new URL('../../testdata/golden/graph/demo.json', import.meta.url), 'utf8');
    const payload = encode(text);
    expect(payload).toMatch(/^[A-Za-z0-9_-]+$/);
    const g = parseGraphText(await decodeDataPayload(payload));
    expect(g.nodes.length).toBe(91);
    expect(g.edges.length).toBe(205);
  });

  it('refuses data that is not DEFLATE', async () => {
    await expect(decodeDataPayload('aGVsbG8gd29ybGQ')).rejects.toThrow(/DEFLATE/);
  });

  it('refuses a truncated payload', async () => {
    const payload = encode('{"nodes":[],"edges":[]}'.repeat(20));
    await expect(decodeDataPayload(payload.slice(0, payload.length - 6))).rejects.toThrow();
  });
});

// The #data= payload: base64url (no padding) of the raw-DEFLATE-compressed
// graph JSON.

/** base64urlToBytes decodes base64url with or without padding. */
export function base64urlToBytes(s: string): Uint8Array {
  let b64 = s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (b64.length % 4 === 1) throw new Error('bad base64url length');
  while (b64.length % 4 !== 0) b64 += '=';
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** inflateRaw decompresses raw DEFLATE bytes to text. */
export async function inflateRaw(bytes: Uint8Array): Promise<string> {
  if (typeof DecompressionStream === 'undefined') {
    throw new Error('this browser cannot decompress (no DecompressionStream)');
  }
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return await new Response(stream).text();
}

/** decodeDataPayload turns a #data= payload into the graph JSON text. */
export async function decodeDataPayload(payload: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = base64urlToBytes(payload);
  } catch {
    throw new Error('the #data= fragment is not base64url');
  }
  try {
    return await inflateRaw(bytes);
  } catch {
    throw new Error('the #data= fragment is not raw DEFLATE data (truncated link?)');
  }
}

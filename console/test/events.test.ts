import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api';
import { EventStream, type Sleeper } from '../src/events';

function streamOf(chunks: string[], fail = false): Response {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]!));
      else if (fail) c.error(new TypeError('network'));
      else c.close();
    },
  });
  return new Response(body);
}

function harness(script: Array<() => Response>) {
  const log: string[] = [];
  const delays: number[] = [];
  let calls = 0;
  let es!: EventStream;
  const done = new Promise<void>((resolve) => {
    const sleep: Sleeper = async (ms) => {
      delays.push(ms);
      if (calls >= script.length) {
        es.stop();
        resolve();
      }
    };
    es = new EventStream(
      async () => {
        const step = script[calls++];
        if (!step) throw new TypeError('unreachable');
        return step();
      },
      {
        onOpen: () => log.push('open'),
        onEvent: (ev) => log.push(`event:${ev.type}`),
        onDown: (d) => log.push(`down:${d}`),
        onUnauthorized: () => {
          log.push('401');
          resolve();
        },
      },
      sleep,
    );
  });
  es.start();
  return { log, delays, done };
}

const refused = () => {
  throw new TypeError('connection refused');
};

describe('EventStream', () => {
  it('delivers events, then reconnects with growing delays, resetting after a successful reconnect', async () => {
    const { log, delays, done } = harness([
      () => streamOf([': hello\n\n', 'event: graph\ndata: {}\n\n']),
      refused,
      refused,
      () => streamOf(['event: graph\n', 'data: 2\n\n'], true),
      refused,
    ]);
    await done;
    expect(log).toEqual(['open', 'event:graph', 'down:1000', 'down:2000', 'down:4000', 'open', 'event:graph', 'down:1000', 'down:2000']);
    expect(delays).toEqual([1000, 2000, 4000, 1000, 2000]);
  });

  it('stops for good on 401', async () => {
    const { log, done } = harness([
      () => {
        throw new ApiError('unauthorized', 401, 'expired');
      },
    ]);
    await done;
    expect(log).toEqual(['401']);
  });

  it('caps the delay at 30 s', async () => {
    const { delays, done } = harness(Array.from({ length: 9 }, () => refused));
    await done;
    expect(delays.slice(-4)).toEqual([30000, 30000, 30000, 30000]);
  });
});

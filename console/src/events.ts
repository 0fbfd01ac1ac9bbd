// The live event stream: GET /api/v1/events read with fetch() and a
// streaming reader (EventSource cannot send an Authorization header), parsed
// with SSEParser, reconnected with exponential backoff when it ends.

import { ApiError } from './api';
import { Backoff } from './backoff';
import { SSEParser, type SSEEvent } from './sse';

export interface EventStreamHooks {
  /** The stream is open (first connect or a reconnect). */
  onOpen(): void;
  onEvent(ev: SSEEvent): void;
  /** The stream ended or failed; a reconnect follows after `delayMs`. */
  onDown(delayMs: number): void;
  /** The server refused the token: the stream stops for good. */
  onUnauthorized(err: ApiError): void;
}

export type Opener = (signal: AbortSignal) => Promise<Response>;
export type Sleeper = (ms: number, signal: AbortSignal) => Promise<void>;

export const defaultSleep: Sleeper = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

export class EventStream {
  private readonly backoff = new Backoff();
  private ctrl: AbortController | null = null;
  private running = false;
  private stopped = false;

  constructor(
    private readonly open: Opener,
    private readonly hooks: EventStreamHooks,
    private readonly sleep: Sleeper = defaultSleep,
  ) {}

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.ctrl?.abort();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const ctrl = new AbortController();
      this.ctrl = ctrl;
      try {
        const res = await this.open(ctrl.signal);
        if (this.stopped) return;
        this.backoff.reset();
        this.hooks.onOpen();
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        const parser = new SSEParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done || this.stopped) break;
          const chunk = parser.feed(decoder.decode(value, { stream: true }));
          for (const ev of chunk.events) {
            if (this.stopped) break;
            this.hooks.onEvent(ev);
          }
        }
        parser.end();
      } catch (e) {
        if (this.stopped) return;
        if (e instanceof ApiError && e.kind === 'unauthorized') {
          this.stopped = true;
          this.hooks.onUnauthorized(e);
          return;
        }
      }
      if (this.stopped) return;
      const delay = this.backoff.next();
      this.hooks.onDown(delay);
      await this.sleep(delay, ctrl.signal);
    }
  }
}

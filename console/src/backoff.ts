// Reconnect delays for the event stream: 1 s, 2 s, 4 s, ... capped at 30 s.

export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 30000;

/**
 * backoffDelay is the wait before reconnect attempt number `attempt`
 * (0 for the first retry after a disconnect).
 */
export function backoffDelay(attempt: number): number {
  if (!Number.isFinite(attempt) || attempt <= 0) return BACKOFF_BASE_MS;
  if (attempt >= 15) return BACKOFF_CAP_MS; // 2^15 s is far past the cap
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.floor(attempt));
}

/** Backoff counts attempts; reset() after a successful reconnect. */
export class Backoff {
  private attempt = 0;
  /** next returns the delay to wait now and counts the attempt. */
  next(): number {
    return backoffDelay(this.attempt++);
  }
  reset(): void {
    this.attempt = 0;
  }
  get attempts(): number {
    return this.attempt;
  }
}

/** hhmm formats a time as zero-padded 24-hour local HH:MM. */
export function hhmm(d: Date): string {
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** disconnectedBanner is the banner text shown while the stream is down. */
export function disconnectedBanner(lastLoad: Date): string {
  return `disconnected - showing workspace as of ${hhmm(lastLoad)}, reconnecting...`;
}

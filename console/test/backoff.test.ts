import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay, disconnectedBanner, hhmm } from '../src/backoff';

describe('backoff', () => {
  it('doubles from 1 s and caps at 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50].map(backoffDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
  });

  it('treats odd input as the first attempt', () => {
    expect(backoffDelay(-3)).toBe(1000);
    expect(backoffDelay(Number.NaN)).toBe(1000);
  });

  it('counts attempts and starts over after a reset', () => {
    const b = new Backoff();
    expect([b.next(), b.next(), b.next()]).toEqual([1000, 2000, 4000]);
    b.reset();
    expect(b.next()).toBe(1000);
  });
});

describe('banner', () => {
  it('formats local time as zero-padded 24-hour HH:MM', () => {
    expect(hhmm(new Date(2024, 0, 2, 7, 5))).toBe('07:05');
    expect(hhmm(new Date(2024, 0, 2, 23, 59))).toBe('23:59');
    expect(hhmm(new Date(2024, 0, 2, 0, 0))).toBe('00:00');
  });

  it('reads exactly as the spec says', () => {
    expect(disconnectedBanner(new Date(2024, 0, 2, 9, 41))).toBe('disconnected - showing workspace as of 09:41, reconnecting...');
  });
});

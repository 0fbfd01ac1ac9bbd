// User timing marks for the explorer benchmark (bench/explorer -profile),
// which sets window.__coreMarks before the page loads and reads them with
// performance.getEntriesByType('measure'). Otherwise nothing is recorded:
// a page left open would keep every frame's entries.

const on = (): boolean => (globalThis as { __coreMarks?: boolean }).__coreMarks === true;

/** mark starts a span named name. */
export function mark(name: string): void {
  if (on()) performance.mark(name);
}

/** measure ends the span started by mark(start), as label. */
export function measure(label: string, start: string): void {
  if (on()) performance.measure(label, start);
}

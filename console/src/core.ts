// window.__core: what the browser tests read. Updated in place.

export type CoreStateName = 'snapshot' | 'live' | 'error' | 'empty';

export interface CoreState {
  state: CoreStateName;
  nodes: number;
  edges: number;
  ready: boolean;
  lastError: string;
  /** camera is the explorer's camera state (sigma's normalised space). */
  camera: { x: number; y: number; ratio: number };
  /** level is what the knowledge view shows: projects (the project level) or all (every node). */
  level: 'projects' | 'all';
  /** labels are the labels drawn in the last frame: their text and box (CSS pixels from the graph's top left). */
  labels: Array<{ id: string; text: string; x: number; y: number; w: number; h: number }>;
  /**
   * settled: the last frame drew the view at rest (no layout running, the
   * camera still, nothing changed since), so labels are what it shows; a
   * change clears it until such a frame. For tests that wait on the page
   * instead of a clock.
   */
  settled: boolean;
  /** where is a node's (or a circle's) centre on the page (client pixels), null when not shown: for tests that click it. */
  where: (id: string) => { x: number; y: number } | null;
}

declare global {
  interface Window {
    __core: CoreState;
  }
}

export const core: CoreState = { state: 'snapshot', nodes: 0, edges: 0, ready: false, lastError: '', camera: { x: 0.5, y: 0.5, ratio: 1 }, level: 'all', labels: [], settled: false, where: () => null };

export function exposeCore(): void {
  window.__core = core;
}

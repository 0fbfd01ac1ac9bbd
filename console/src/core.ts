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
}

declare global {
  interface Window {
    __core: CoreState;
  }
}

export const core: CoreState = { state: 'snapshot', nodes: 0, edges: 0, ready: false, lastError: '', camera: { x: 0.5, y: 0.5, ratio: 1 } };

export function exposeCore(): void {
  window.__core = core;
}

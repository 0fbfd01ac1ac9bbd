// Runs the bounded force layout in a web worker, or in short time slices on
// the main thread when workers are unavailable (a file:// copy of the page,
// a browser policy).

import { FA2, fa2Settings, iterationBudget, postInterval, type FromWorker, type ToWorker } from './fa2';

export interface ForceHandle {
  stop(): void;
}

export type OnPositions = (xy: Float32Array, done: boolean) => void;

const SLICE_MS = 12;

function mainThread(xy: Float32Array, pairs: Uint32Array, onPositions: OnPositions): ForceHandle {
  const order = xy.length / 2;
  const fa2 = new FA2(xy, pairs, fa2Settings(order));
  const budget = iterationBudget(order, true);
  let done = 0;
  let stopped = false;
  let lastPost = Date.now();
  const tick = () => {
    if (stopped) return;
    const t0 = Date.now();
    do {
      fa2.step(1);
      done++;
    } while (done < budget && Date.now() - t0 < SLICE_MS);
    const finished = done >= budget;
    if (finished || Date.now() - lastPost > postInterval(order)) {
      lastPost = Date.now();
      onPositions(fa2.positions(), finished);
    }
    if (!finished) setTimeout(tick, 16);
  };
  setTimeout(tick, 0);
  return {
    stop() {
      stopped = true;
    },
  };
}

/** runForceLayout starts a bounded ForceAtlas2 from the given positions. */
export function runForceLayout(xy: Float32Array, pairs: Uint32Array, onPositions: OnPositions): ForceHandle {
  const order = xy.length / 2;
  let worker: Worker;
  try {
    worker = new Worker(new URL('./force.worker.ts', import.meta.url));
  } catch {
    return mainThread(xy, pairs, onPositions);
  }
  let stopped = false;
  let heard = false;
  let fallback: ForceHandle | null = null;
  worker.onmessage = (ev: MessageEvent<FromWorker>) => {
    if (stopped) return;
    heard = true;
    onPositions(ev.data.xy, ev.data.done);
    if (ev.data.done) worker.terminate();
  };
  worker.onerror = (ev) => {
    ev.preventDefault();
    worker.terminate();
    if (!stopped && !heard) fallback = mainThread(xy, pairs, onPositions);
  };
  const start: ToWorker = {
    type: 'start',
    xy: xy.slice(),
    pairs: pairs.slice(),
    iterations: iterationBudget(order),
    settings: fa2Settings(order),
    postEveryMs: postInterval(order),
  };
  worker.postMessage(start);
  return {
    stop() {
      stopped = true;
      fallback?.stop();
      worker.terminate();
    },
  };
}

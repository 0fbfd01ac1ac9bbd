// The layout worker: runs a bounded ForceAtlas2 off the main thread and
// posts positions a few times a second.

import { FA2, type FromWorker, type ToWorker } from './fa2';

const ctx = self as unknown as {
  postMessage(msg: FromWorker, transfer: Transferable[]): void;
  onmessage: ((ev: MessageEvent<ToWorker>) => void) | null;
};

const WALL_CLOCK_MS = 20000;
let run = 0;

ctx.onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === 'stop') {
    run++;
    return;
  }
  const mine = ++run;
  const fa2 = new FA2(msg.xy, msg.pairs, msg.settings);
  const started = Date.now();
  let done = 0;
  let chunk = 1;
  const tick = () => {
    if (mine !== run) return;
    const t0 = Date.now();
    while (done < msg.iterations && Date.now() - t0 < msg.postEveryMs) {
      const k = Math.min(chunk, msg.iterations - done);
      const c0 = Date.now();
      fa2.step(k);
      done += k;
      const took = Date.now() - c0;
      if (took < 20) chunk = Math.min(chunk * 2, 64);
    }
    const finished = done >= msg.iterations || Date.now() - started > WALL_CLOCK_MS;
    const xy = fa2.positions();
    ctx.postMessage({ type: 'positions', xy, done: finished, iteration: done }, [xy.buffer]);
    if (!finished) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
};

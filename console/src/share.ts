// The share, from both sides. SharePanel (live mode, on this machine):
// the Share button opens a share through POST /api/v1/share and shows its
// link, a QR code for a phone, a countdown and a button that ends it.
// ShareView (a share link, on a colleague's machine): what a share serves
// and nothing else: the status, the activity, the past runs with their
// logs (and the insight lenses), kept current by the event stream, until
// the share ends. Server strings go in through textContent; the QR code is
// SVG rectangles made here (uqr only encodes).

import { encode } from 'uqr';
import { h, show } from './dom';
import { ApiError, type Api } from './api';
import { remaining, type ShareInfo } from './sharemodel';
import { logText, runLine } from './runsmodel';
import { InsightView } from './insight';

const SVG = 'http://www.w3.org/2000/svg';

/** qrSVG draws text as a QR code. */
export function qrSVG(text: string): SVGSVGElement {
  const { data, size } = encode(text, { ecc: 'L', border: 2 });
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('class', 'share-qr');
  svg.setAttribute('shape-rendering', 'crispEdges');
  const bg = document.createElementNS(SVG, 'rect');
  bg.setAttribute('width', String(size));
  bg.setAttribute('height', String(size));
  bg.setAttribute('fill', '#fff');
  svg.append(bg);
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (!dark) return;
      const r = document.createElementNS(SVG, 'rect');
      r.setAttribute('x', String(x));
      r.setAttribute('y', String(y));
      r.setAttribute('width', '1');
      r.setAttribute('height', '1');
      svg.append(r);
    }),
  );
  return svg;
}

export class SharePanel {
  private info: ShareInfo | null = null;
  private timer = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly button: HTMLButtonElement,
    private readonly api: () => Api | null,
  ) {
    button.addEventListener('click', () => {
      if (this.root.hidden) void this.open();
      else show(this.root, false);
    });
  }

  /** refresh reads the open share, if any, and marks the button. */
  async refresh(): Promise<void> {
    const api = this.api();
    if (api === null) return;
    try {
      this.set(await api.share({ action: 'status' }));
    } catch {
      // The button stays usable; opening says what is wrong.
    }
  }

  /** open shows the open share, or opens one. */
  private async open(): Promise<void> {
    const api = this.api();
    if (api === null) return;
    show(this.root, true);
    this.root.dataset.state = 'loading';
    try {
      let info = await api.share({ action: 'status' });
      if (!info.active) info = await api.share({});
      this.set(info);
    } catch (e) {
      this.root.replaceChildren(h('p', { className: 'share-error', text: `Cannot share: ${e instanceof ApiError ? e.message : (e as Error).message}` }));
      this.root.dataset.state = 'error';
    }
  }

  private async stop(): Promise<void> {
    const api = this.api();
    if (api === null) return;
    try {
      this.set(await api.share({ action: 'stop' }));
    } catch (e) {
      this.root.append(h('p', { className: 'share-error', text: `Cannot end the share: ${(e as Error).message}` }));
    }
  }

  private set(info: ShareInfo): void {
    this.info = info;
    window.clearInterval(this.timer);
    this.button.classList.toggle('sharing', info.active);
    this.button.setAttribute('aria-pressed', String(info.active));
    if (!info.active) {
      this.root.replaceChildren(h('p', { className: 'muted', text: 'No share is open. The Share button opens one for an hour.' }));
      this.root.dataset.state = 'closed';
      return;
    }
    const countdown = h('span', { className: 'share-countdown' });
    const tick = () => {
      const left = remaining(info.expires, new Date());
      countdown.textContent = left === 'ended' ? 'ended' : `${left} left`;
      if (left === 'ended') {
        window.clearInterval(this.timer);
        void this.refresh();
      }
    };
    tick();
    this.timer = window.setInterval(tick, 1000);
    const link = h('input') as HTMLInputElement;
    link.className = 'share-link';
    link.readOnly = true;
    link.value = info.url;
    link.addEventListener('focus', () => link.select());
    const end = h('button', { type: 'button', className: 'share-stop', text: 'End share' });
    end.addEventListener('click', () => void this.stop());
    this.root.replaceChildren(
      h('h2', { text: 'Shared read-only on the network' }),
      h('p', { className: 'muted', text: `Status, insight, activity and run logs, on ${info.address}. Anyone with the link sees them until the share ends.` }),
      qrSVG(info.url),
      link,
      h('p', {}, countdown, ' ', end),
    );
    this.root.dataset.state = 'open';
  }
}

export class ShareView {
  private readonly lenses = h('section', { className: 'share-insight' });
  private readonly insight: InsightView;

  constructor(
    private readonly root: HTMLElement,
    private readonly api: Api,
    private readonly onEnded: (message: string) => void,
  ) {
    this.insight = new InsightView(this.lenses, () => api);
  }

  /** load draws everything the share serves. */
  async load(): Promise<void> {
    try {
      const [status, acts, runs] = await Promise.all([this.api.status(), this.api.activities(), this.api.runs()]);
      const statusBox = h(
        'section',
        { className: 'share-status' },
        h('h2', { text: `${status.workspace || 'Workspace'}: shared read-only` }),
        h('p', { className: 'muted', text: 'This link shows the status, insight, activity and past run logs of the workspace, live, until its owner ends the share.' }),
      );
      const actList = h('ol', { className: 'share-activity' });
      for (const a of acts) {
        actList.append(h('li', { className: `activity ${a.kind}` }, h('span', { className: 'muted', text: a.time ? a.time.toLocaleTimeString() : '' }), ` ${a.message}`));
      }
      if (acts.length === 0) actList.append(h('li', { className: 'muted', text: 'Nothing has happened yet.' }));
      const runList = h('ol', { className: 'share-runs' });
      const log = h('pre', { className: 'share-log' });
      show(log, false);
      for (const r of runs) {
        const b = h('button', { type: 'button', className: 'share-run', text: runLine(r) });
        b.addEventListener('click', () => void this.showLog(r.id, log));
        const li = h('li', { className: `run ${r.status}` }, b, h('span', { className: 'muted', text: r.start ? ` ${r.start.toLocaleString()}` : '' }));
        li.dataset.run = r.id;
        runList.append(li);
      }
      if (runs.length === 0) runList.append(h('li', { className: 'muted', text: 'No run yet.' }));
      this.root.replaceChildren(
        statusBox,
        h('section', {}, h('h3', { text: 'Activity' }), actList),
        h('section', {}, h('h3', { text: 'Runs' }), runList, log),
        h('section', {}, h('h3', { text: 'Insight' }), this.lenses),
      );
      await this.insight.load();
      this.root.dataset.state = 'ready';
    } catch (e) {
      this.failed(e);
    }
  }

  private async showLog(id: string, into: HTMLElement): Promise<void> {
    try {
      const l = await this.api.runLog(id);
      into.textContent = logText(l);
      show(into, true);
    } catch (e) {
      this.failed(e);
    }
  }

  private failed(e: unknown): void {
    if (e instanceof ApiError && (e.kind === 'unauthorized' || e.kind === 'network')) {
      this.onEnded('This share has ended: ask its owner for a new link.');
      return;
    }
    this.root.replaceChildren(h('p', { className: 'share-error', text: `Cannot show the share: ${(e as Error).message}` }));
    this.root.dataset.state = 'error';
  }
}

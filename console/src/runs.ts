// The Runs view: the workspace's recent runs and one run's log (its
// command, status, directory and output), over the viewer service
// (ListRuns, GetRun). The console boots on it at the run viewer's address,
// /console/runs/ (what `core run --open` opens), or with run=<id> beside
// the pairing token, and selects the run named there. Like live mode it
// takes a console token or a pairing code from the link (scrubbed before
// it gets here), else the token this tab keeps. Server strings go in
// through textContent.

import { core } from './core';
import { byId, h, show } from './dom';
import { Api, ApiError, exchangePairingCode } from './api';
import type { Credential } from './boot';
import { basename } from './model';
import { TokenStore, browserStorage } from './storage';
import { duration, logText, pickRun, runLine, runStatus, type Run, type RunLog } from './runsmodel';

export const MSG_RUNS_NO_SESSION = 'No workspace to show in this tab — run `core run --open` (or `core open`) in your workspace for a fresh link.';
export const MSG_RUNS_EXPIRED = 'Your session expired — run `core run --open` (or `core open`) for a fresh link.';

/** How many runs the list shows, newest first. */
const LIST_LIMIT = 50;

export class RunsView {
  private runs: Run[] = [];
  private selected = '';
  private readonly list = h('ol', { className: 'runs-list' });
  private readonly head = h('div', { className: 'runs-head' });
  private readonly log = h('pre', { className: 'runs-log' });

  constructor(
    private readonly root: HTMLElement,
    private readonly api: Api,
    /** expired is called on a 401: the token is no good any more. */
    private readonly expired: () => void,
  ) {
    const refresh = h('button', { type: 'button', className: 'runs-refresh', text: 'Refresh' });
    refresh.addEventListener('click', () => void this.load(this.selected));
    const explorer = document.createElement('a');
    explorer.href = '../graph/';
    explorer.className = 'runs-explorer';
    explorer.textContent = 'Explorer';
    this.root.replaceChildren(
      h('nav', { className: 'runs-side' }, h('h2', {}, 'Runs ', refresh, ' ', explorer), this.list),
      h('section', { className: 'runs-main' }, this.head, this.log),
    );
    show(this.log, false);
  }

  /** load reads the recent runs and shows wanted (else the newest). */
  async load(wanted: string): Promise<void> {
    this.root.dataset.state = 'loading';
    try {
      this.runs = await this.api.runs(LIST_LIMIT);
    } catch (e) {
      this.failed(e, 'Cannot list the runs');
      return;
    }
    this.drawList();
    const id = pickRun(this.runs, wanted);
    if (id === '') {
      this.head.replaceChildren(h('p', { className: 'muted', text: 'No run yet: `core run PROJECT:TARGET` runs one.' }));
      show(this.log, false);
      this.root.dataset.state = 'ready';
      return;
    }
    await this.select(id);
  }

  private drawList(): void {
    this.list.replaceChildren();
    for (const r of this.runs) {
      const b = h('button', { type: 'button', className: 'runs-run', text: runLine(r) });
      b.addEventListener('click', () => void this.select(r.id));
      const li = h('li', { className: `run ${r.status}` }, b, h('span', { className: 'muted', text: r.start ? ` ${r.start.toLocaleString()}` : '' }));
      li.dataset.run = r.id;
      this.list.append(li);
    }
    if (this.runs.length === 0) this.list.append(h('li', { className: 'muted', text: 'No run yet.' }));
  }

  /** select shows one run's log and keeps its id in the address, for a reload. */
  private async select(id: string): Promise<void> {
    this.selected = id;
    for (const li of this.list.querySelectorAll<HTMLElement>('li[data-run]')) li.classList.toggle('selected', li.dataset.run === id);
    history.replaceState(null, '', `${location.pathname}${location.search}#run=${encodeURIComponent(id)}`);
    this.root.dataset.state = 'loading';
    let l: RunLog;
    try {
      l = await this.api.runLog(id);
    } catch (e) {
      this.failed(e, `Cannot show run ${id}`);
      return;
    }
    if (id !== this.selected) return; // another click came first
    this.drawLog(id, l);
    this.root.dataset.state = 'ready';
  }

  private drawLog(id: string, l: RunLog): void {
    const r = l.run ?? this.runs.find((x) => x.id === id) ?? null;
    const facts: string[] = [];
    if (r) {
      if (r.start) facts.push(`started ${r.start.toLocaleString()}`);
      const took = duration(r);
      if (took) facts.push(`took ${took}`);
      if (r.from) facts.push(r.from === 'built' ? 'its command ran' : `from the ${r.from} cache`);
      if (r.trigger) facts.push(`started by ${r.trigger}`);
      if (r.shard) facts.push(`on CI shard ${r.shard}`);
    }
    if (l.dir) facts.push(`in ${l.dir}`);
    const status = h('span', { className: `runs-status ${r?.status ?? ''}`, text: r ? runStatus(r) : '' });
    this.head.replaceChildren(
      h('h2', {}, h('span', { className: 'runs-target', text: r?.target ?? id }), ' ', status),
      h('p', { className: 'muted', text: `${id}${facts.length ? ` · ${facts.join(' · ')}` : ''}` }),
    );
    this.log.textContent = logText(l);
    show(this.log, true);
  }

  private failed(e: unknown, what: string): void {
    if (e instanceof ApiError && e.kind === 'unauthorized') {
      this.expired();
      return;
    }
    this.head.replaceChildren(h('p', { className: 'runs-error', text: `${what}: ${(e as Error).message}` }));
    show(this.log, false);
    this.root.dataset.state = 'error';
  }
}

/**
 * startRuns boots the page on the Runs view: the graph and its controls
 * leave, the token comes from the link's credential (a pairing code is
 * traded, as live mode does) or from this tab's storage, and the view
 * reads the runs. fail shows a message in the page's place.
 */
export async function startRuns(credential: Credential | null, run: string, fail: (message: string) => void): Promise<void> {
  document.body.dataset.mode = 'runs';
  core.state = 'live';
  document.body.dataset.state = 'live';
  for (const sel of ['#stage', '#sidebar', '#details', '#bar .views', '#search-form', '#diff-touch', '#relayout', '#share-button', '#remember-wrap']) {
    const el = document.querySelector<HTMLElement>(sel);
    if (el) show(el, false);
  }
  const root = byId('runs');
  const badge = byId('badge');
  badge.textContent = 'runs: …';
  const store = new TokenStore(browserStorage('session'), browserStorage('local'));
  const expire = () => {
    store.clear();
    show(root, false);
    fail(MSG_RUNS_EXPIRED);
  };

  let token: string;
  if (credential === null) {
    const stored = store.load();
    if (stored === null) {
      fail(MSG_RUNS_NO_SESSION);
      return;
    }
    token = stored;
  } else {
    try {
      token = credential.kind === 'pair' ? (await exchangePairingCode(location.origin, credential.code)).token : credential.token;
    } catch (e) {
      if (e instanceof ApiError && e.kind === 'unauthorized') fail(MSG_RUNS_EXPIRED);
      else if (e instanceof ApiError && e.kind === 'network') fail(`Cannot reach the core server at ${location.origin} — is it running? Then run \`core run --open\` again.`);
      else fail(`The pairing link did not work: ${(e as Error).message}`);
      return;
    }
    try {
      store.save(token);
    } catch {
      // Storage is blocked: the token lives in this page only.
    }
  }

  show(root, true);
  const api = new Api(location.origin, () => token);
  void api.status().then(
    (st) => (badge.textContent = `runs: ${st.workspace ? basename(st.workspace) : location.host}`),
    () => {},
  );
  await new RunsView(root, api, expire).load(run);
  core.ready = true;
}

// The explorer page: boot, the two source states (snapshot, live) and the
// controls around the graph. See console/README.md for the contract.

import { core, exposeCore, type CoreStateName } from './core';
import { byId, show } from './dom';
import { Explorer, type Level, type LevelSource, type View } from './explorer';
import { drawnContents, projectContents, projectLevel, selectTerm, within } from './levels';
import { fragmentLevel, parseFragment, srcProvenance, type Flavor } from './fragment';
import { MSG_NO_SESSION, planBoot, type Credential } from './boot';
import { decodeDataPayload } from './payload';
import { basename, isTargetGraph, parseGraphText, substringMatches, targetSubgraph, type GNode, type GraphData } from './model';
import { Api, ApiError, exchangePairingCode, type StatusSnapshot } from './api';
import { EventStream } from './events';
import { disconnectedBanner } from './backoff';
import { TokenStore, browserStorage } from './storage';
import { indexProblemsView, renderIndexProblems } from './problems';
import { ReviewView } from './review';
import { AttentionView } from './attention';
import { SharePanel, ShareView } from './share';
import { InsightView } from './insight';
import { startRuns } from './runs';

export const MSG_EXPIRED = 'Your session expired — run `core open` for a fresh link.';
export const MSG_EMPTY = 'This workspace has no nodes yet';

/**
 * Above this many nodes the knowledge view opens on projects: a few
 * hundred nodes still read as a picture, a thousand are a hairball.
 */
export const PROJECT_LEVEL_ABOVE = 400;

const els = {
  badge: byId('badge'),
  banner: byId('banner'),
  remember: byId<HTMLInputElement>('remember'),
  rememberWrap: byId('remember-wrap'),
  search: byId<HTMLInputElement>('search'),
  searchForm: byId<HTMLFormElement>('search-form'),
  searchError: byId('search-error'),
  details: byId('details'),
  legend: byId('legend'),
  results: byId('results'),
  diff: byId<HTMLButtonElement>('diff-touch'),
  relayout: byId<HTMLButtonElement>('relayout'),
  message: byId('message'),
  messageActions: byId('message-actions'),
  openFile: byId<HTMLInputElement>('open-file'),
  graph: byId('graph'),
  statusText: byId('status-text'),
  indexProblems: byId<HTMLDetailsElement>('index-problems'),
  viewKnowledge: byId<HTMLButtonElement>('view-knowledge'),
  viewTargets: byId<HTMLButtonElement>('view-targets'),
  level: byId<HTMLButtonElement>('level'),
  viewReview: byId<HTMLButtonElement>('view-review'),
  review: byId('review'),
  viewAttention: byId<HTMLButtonElement>('view-attention'),
  attentionCount: byId('attention-count'),
  attention: byId('attention'),
  viewInsight: byId<HTMLButtonElement>('view-insight'),
  insight: byId('insight'),
  shareButton: byId<HTMLButtonElement>('share-button'),
  sharePanel: byId('share-panel'),
  shareView: byId('share-view'),
  sidebar: byId('sidebar'),
  stage: byId('stage'),
};

// ---- the status bar: it speaks of the view shown ------------------------

type Panel = 'graph' | 'review' | 'insight' | 'attention';
let panel: Panel = 'graph';
const panelStatus: Record<Panel, string> = { graph: '', review: 'review: reading the change…', insight: 'insight: reading the history…', attention: '' };

/** setStatus keeps a view's status line and shows it when that view is the one shown. */
function setStatus(of: Panel, text: string): void {
  panelStatus[of] = text;
  if (panel === of) els.statusText.textContent = text;
}

const explorer = new Explorer({
  graph: els.graph,
  legend: els.legend,
  details: els.details,
  results: els.results,
  status: (text) => setStatus('graph', text),
});

// ---- page state ---------------------------------------------------------

function setState(state: CoreStateName): void {
  core.state = state;
  document.body.dataset.state = state;
}

function setCounts(): void {
  core.nodes = explorer.nodeCount;
  core.edges = explorer.edgeCount;
}

function setMessage(text: string | null, withFileOpen = false): void {
  els.message.textContent = text ?? '';
  show(els.message, text !== null);
  show(els.messageActions, text !== null && withFileOpen);
}

/** fail shows an error that leaves nothing new to show. */
function fail(message: string, withFileOpen = false): void {
  setState('error');
  core.lastError = message;
  core.ready = true;
  setMessage(message, withFileOpen);
}

function setBadge(text: string): void {
  els.badge.textContent = text;
}

function setBanner(text: string | null): void {
  els.banner.textContent = text ?? '';
  show(els.banner, text !== null);
}

function setViewButtons(view: View, targetsOnly: boolean, knowledgeOnly = false): void {
  els.viewKnowledge.setAttribute('aria-pressed', String(view === 'knowledge'));
  els.viewTargets.setAttribute('aria-pressed', String(view === 'targets'));
  els.viewKnowledge.disabled = targetsOnly;
  els.viewKnowledge.title = targetsOnly ? 'This snapshot holds only the target graph' : 'Show the knowledge graph';
  els.viewTargets.disabled = knowledgeOnly;
}

function setAffected(ids: string[] | null): void {
  explorer.setAffected(ids);
  els.diff.disabled = !explorer.hasAffected;
  els.diff.title = explorer.hasAffected
    ? `Paint the ${ids!.length} nodes of the last affected set`
    : 'No affected set has been computed (run `core affected`)';
}

explorer.onPaintChange = (on) => els.diff.setAttribute('aria-pressed', String(on));

/** showGraph puts data on screen and sets the state it implies. */
function showGraph(data: GraphData, view: View, keep: boolean, okState: 'snapshot' | 'live'): void {
  explorer.apply(data, view, { keep });
  setCounts();
  core.lastError = '';
  if (data.nodes.length === 0) {
    setState('empty');
    setMessage(MSG_EMPTY);
  } else {
    setState(okState);
    setMessage(null);
  }
  core.ready = true;
}

/** showProjectLevel puts the project level on screen and sets the state it implies. */
function showProjectLevel(data: GraphData, source: LevelSource, total: number, keep: boolean, okState: 'snapshot' | 'live'): void {
  explorer.showProjects(data, source, total, keep);
  setCounts();
  core.lastError = '';
  setState(okState);
  setMessage(null);
  core.ready = true;
  setLevelButton();
}

/** setLevelButton offers the other level of the knowledge view (none in the target view). */
function setLevelButton(): void {
  const knowledge = explorer.view === 'knowledge' && panel === 'graph';
  show(els.level, knowledge && levelChoice !== null);
  const projects = explorer.level === 'projects';
  els.level.textContent = projects ? 'Every node' : 'Projects';
  els.level.title = projects ? 'Show every node of the graph, laid out by force' : 'Show the projects, grouped by folder; a click opens one';
}

/** levelChoice switches the knowledge view between its levels (null: only one level makes sense). */
let levelChoice: ((level: Level) => void) | null = null;

/** snapshotSource is what the project level of a snapshot asks: the whole graph is at hand. */
function snapshotSource(data: GraphData): LevelSource {
  return {
    expand: (project, cap) => {
      const c = projectContents(data, project);
      return Promise.resolve(cap === undefined ? c : drawnContents(c, cap));
    },
    around: (n, hops) => Promise.resolve(within(data, n.id, hops)),
  };
}

/** liveSource asks the server: a project's contents, a node's neighbourhood. */
function liveSource(api: Api): LevelSource {
  return {
    expand: (project, cap) => api.select(`project:${project}`, undefined, cap),
    around: (n, hops) => {
      const term = selectTerm(n);
      return term ? api.select(`${term} depth:${hops}`) : Promise.resolve(null);
    },
  };
}

// ---- search -------------------------------------------------------------

let searchTimer: ReturnType<typeof setTimeout> | undefined;
let searchCtrl: AbortController | null = null;
let activeQuery = '';
let searcher: (q: string, quiet: boolean) => Promise<void> = async () => {};

function setSearchError(text: string | null): void {
  els.searchError.textContent = text ?? '';
  show(els.searchError, text !== null);
  els.search.setAttribute('aria-invalid', String(text !== null));
  if (text !== null) core.lastError = text;
}

function runSearch(q: string, quiet = false): void {
  clearTimeout(searchTimer);
  activeQuery = q.trim();
  searchCtrl?.abort();
  searchCtrl = null;
  setSearchError(null);
  if (activeQuery === '') {
    explorer.clearSearch();
    return;
  }
  void searcher(activeQuery, quiet);
}

/** snapshotNodes is the whole graph of a snapshot, by id (the project level shows only part of it). */
let snapshotNodes = new Map<string, GNode>();

/** askedLevel is the level the link asked for (&level=all or &level=projects), read before the fragment is scrubbed. */
const askedLevel = fragmentLevel(location.hash);

function snapshotSearch(q: string): Promise<void> {
  if (explorer.level === 'projects') explorer.setSnapshotMatches(substringMatches(snapshotNodes.values(), q), (id) => snapshotNodes.get(id));
  else explorer.setMatches(substringMatches(explorer.searchNodes(), q));
  return Promise.resolve();
}

els.search.addEventListener('input', () => {
  clearTimeout(searchTimer);
  const delay = session ? 450 : 120;
  searchTimer = setTimeout(() => runSearch(els.search.value), delay);
});
els.searchForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  runSearch(els.search.value);
});

// ---- controls -----------------------------------------------------------

els.diff.addEventListener('click', () => explorer.togglePaint());
els.relayout.addEventListener('click', () => explorer.relayout());
els.level.addEventListener('click', () => levelChoice?.(explorer.level === 'projects' ? 'all' : 'projects'));
els.viewKnowledge.addEventListener('click', () => {
  showPanel('graph');
  switchView('knowledge');
});
els.viewTargets.addEventListener('click', () => {
  showPanel('graph');
  switchView('targets');
});
els.viewReview.addEventListener('click', () => showPanel('review'));
els.viewAttention.addEventListener('click', () => showPanel('attention'));
els.viewInsight.addEventListener('click', () => showPanel('insight'));

// ---- the Insight view (live mode) -------------------------------------------

const insight = new InsightView(els.insight, () => session?.api ?? null, (text) => setStatus('insight', text));

// ---- sharing (live mode: the Share button; a share link: the shared view) --

const sharePanel = new SharePanel(els.sharePanel, els.shareButton, () => session?.api ?? null);

/** startShare shows what a share link serves, and nothing else. */
function startShare(token: string): void {
  setState('live');
  document.body.dataset.mode = 'share';
  setBadge('shared: read-only');
  for (const el of [els.stage, els.sidebar, els.search, els.diff, els.relayout, els.viewKnowledge, els.viewTargets, els.viewReview, els.viewAttention, els.viewInsight]) show(el, false);
  show(els.shareView, true);
  const api = new Api(location.origin, () => token);
  let ended = false;
  const view = new ShareView(els.shareView, api, (message) => {
    ended = true;
    events.stop();
    els.shareView.replaceChildren();
    els.shareView.dataset.state = 'ended';
    setMessage(message);
  });
  const events = new EventStream((signal) => api.events(signal), {
    onOpen: () => setBanner(null),
    onEvent: () => void view.load(),
    onDown: () => {
      // A share that ended closes its listener: reading again says so.
      if (!ended) void view.load();
    },
    onUnauthorized: () => {
      ended = true;
      events.stop();
      els.shareView.replaceChildren();
      els.shareView.dataset.state = 'ended';
      setMessage('This share has ended: ask its owner for a new link.');
    },
  });
  void view.load().then(() => {
    core.ready = true;
    if (!ended) events.start();
  });
}

// ---- the Attention view (live mode) ----------------------------------------

const attention = new AttentionView(els.attention, els.attentionCount, () => session?.api ?? null, (text) => setStatus('attention', text));

// ---- the Review view (live mode) -------------------------------------------

const review = new ReviewView(els.review, () => session?.api ?? null, {
  status: (text) => setStatus('review', text),
  openSymbol: (id, name) => {
    showPanel('graph');
    if (session && session.flavor !== 'knowledge') switchView('knowledge');
    els.search.value = `symbol:${name}`;
    activeQuery = els.search.value;
    void liveSearch(activeQuery, false).then(() => explorer.selectAndShow(id));
  },
});

/**
 * showPanel puts one view in the page: the graph (its stage, sidebar and
 * details) or the Review, Insight or Attention view in its place. The
 * view buttons and the status bar follow.
 */
function showPanel(next: Panel): void {
  const was = panel;
  panel = next;
  show(els.review, next === 'review');
  show(els.insight, next === 'insight');
  show(els.attention, next === 'attention');
  show(els.stage, next === 'graph');
  show(els.sidebar, next === 'graph');
  show(els.details, next === 'graph');
  els.indexProblems.classList.toggle('elsewhere', next !== 'graph');
  els.viewReview.setAttribute('aria-pressed', String(next === 'review'));
  els.viewInsight.setAttribute('aria-pressed', String(next === 'insight'));
  els.viewAttention.setAttribute('aria-pressed', String(next === 'attention'));
  els.statusText.textContent = panelStatus[next];
  if (next !== 'graph') {
    els.viewKnowledge.setAttribute('aria-pressed', 'false');
    els.viewTargets.setAttribute('aria-pressed', 'false');
  } else if (was !== 'graph' && session) {
    setViewButtons(session.flavor === 'targets' ? 'targets' : 'knowledge', false);
  }
  setLevelButton();
  if (next === 'review') void review.load();
  if (next === 'insight') void insight.load();
  if (next === 'attention') void attention.load();
}
document.addEventListener('keydown', (ev) => {
  if (ev.key !== 'Escape') return;
  if (explorer.focused) explorer.setFocus(null);
  else explorer.select(null);
});
window.addEventListener('hashchange', () => location.reload());

let switchView: (view: View) => void = () => {};

// ---- snapshot -----------------------------------------------------------

function startSnapshot(data: GraphData, provenance: string, flavor: Flavor): void {
  setState('snapshot');
  setBadge(`snapshot: ${provenance}`);
  const targetsOnly = isTargetGraph(data);
  const viewOf = (view: View): GraphData => (view === 'targets' && !targetsOnly ? targetSubgraph(data) : data);
  let view: View = flavor === 'targets' || targetsOnly ? 'targets' : 'knowledge';
  snapshotNodes = new Map(data.nodes.map((n) => [n.id, n]));
  const projects = targetsOnly ? null : projectLevel(data);
  let level: Level = projects && projects.nodes.length > 0 && (askedLevel ?? (data.nodes.length > PROJECT_LEVEL_ABOVE ? 'projects' : 'all')) === 'projects' ? 'projects' : 'all';
  const draw = (keep: boolean) => {
    if (view === 'knowledge' && level === 'projects' && projects) showProjectLevel(projects, snapshotSource(data), data.nodes.length, keep, 'snapshot');
    else showGraph(viewOf(view), view, keep, 'snapshot');
    setLevelButton();
  };
  levelChoice = projects && projects.nodes.length > 0 ? (l) => {
    if (l === level) return;
    level = l;
    draw(false);
    if (activeQuery) runSearch(activeQuery, true);
  } : null;
  setViewButtons(view, targetsOnly);
  searcher = snapshotSearch;
  switchView = (v) => {
    if (v === view || (targetsOnly && v === 'knowledge')) return;
    view = v;
    setViewButtons(view, targetsOnly);
    draw(false);
    if (activeQuery) runSearch(activeQuery, true);
  };
  draw(false);
}

async function loadData(payload: string, flavor: Flavor): Promise<void> {
  const provenance = location.protocol === 'file:' ? 'file' : 'fragment';
  setState('snapshot');
  setBadge(`snapshot: ${provenance}`);
  let data: GraphData;
  try {
    data = parseGraphText(await decodeDataPayload(payload));
  } catch (e) {
    fail(`could not read the #data= fragment: ${(e as Error).message}`);
    return;
  }
  startSnapshot(data, provenance, flavor);
}

async function loadSrc(url: string, flavor: Flavor): Promise<void> {
  const provenance = srcProvenance(url, location.href);
  setState('snapshot');
  setBadge(`snapshot: ${provenance}`);
  let text: string;
  try {
    const res = await fetch(new URL(url, location.href), { credentials: 'omit', cache: 'no-store' });
    if (!res.ok) {
      fail(`could not load ${url}: HTTP ${res.status}`);
      return;
    }
    text = await res.text();
  } catch {
    fail(`could not load ${url}: blocked or unreachable`);
    return;
  }
  let data: GraphData;
  try {
    data = parseGraphText(text);
  } catch (e) {
    fail(`could not load ${url}: ${(e as Error).message}`);
    return;
  }
  startSnapshot(data, provenance, flavor);
}

els.openFile.addEventListener('change', () => {
  const f = els.openFile.files?.[0];
  if (!f) return;
  core.ready = false;
  f.text()
    .then((text) => {
      const data = parseGraphText(text);
      startSnapshot(data, 'file', 'knowledge');
    })
    .catch((e: unknown) => fail(`could not read ${f.name}: ${(e as Error).message}`, true));
});

// ---- live ---------------------------------------------------------------

interface LiveSession {
  api: Api;
  events: EventStream;
  flavor: Flavor;
  /** The knowledge view's level; null until the graph's size decides it. */
  level: Level | null;
  lastLoad: Date | null;
  disconnected: boolean;
  expired: boolean;
}

let session: LiveSession | null = null;
const store = new TokenStore(browserStorage('session'), browserStorage('local'));

function expire(): void {
  store.clear();
  if (session) {
    session.expired = true;
    session.events.stop();
  }
  setBanner(null);
  els.remember.disabled = true;
  fail(MSG_EXPIRED);
}

/** liveError handles a failed call; it returns true when the page can go on. */
function liveError(e: unknown, what: string): void {
  if (!(e instanceof ApiError)) {
    if ((e as Error)?.name === 'AbortError') return;
    fail(`${what}: ${(e as Error)?.message ?? String(e)}`);
    return;
  }
  switch (e.kind) {
    case 'unauthorized':
      expire();
      return;
    case 'server':
      fail(`Server error: ${e.message}`);
      return;
    case 'network':
      if (session?.lastLoad) return; // the event stream shows the banner and reconnects
      fail(`Cannot reach the core server at ${location.origin} — is it running? Retrying…`);
      return;
    case 'client':
      fail(`The server refused ${what} (HTTP ${e.status}): ${e.message}`);
      return;
    case 'format':
      fail(`${what}: ${e.message}`);
      return;
  }
}

function applyStatus(st: StatusSnapshot): void {
  setBadge(`live: ${st.workspace ? basename(st.workspace) : location.host}`);
  setAffected(st.affected);
  explorer.setDiagnostic(st.diagnostic);
  renderIndexProblems(els.indexProblems, indexProblemsView(st.indexDiagnostics, st.indexProblems));
}

async function liveLoad(s: LiveSession, keep: boolean): Promise<boolean> {
  const flavor = s.flavor;
  try {
    if (flavor === 'knowledge') {
      // The status says how big the graph is; the project level is cheap
      // to have at hand either way.
      const [status, projects] = await Promise.all([s.api.status(), s.api.projects()]);
      if (s.expired || flavor !== s.flavor) return false;
      if (s.level === null) s.level = status.nodes > PROJECT_LEVEL_ABOVE && projects.nodes.length > 0 ? 'projects' : 'all';
      applyStatus(status);
      if (s.level === 'projects' && projects.nodes.length > 0) {
        showProjectLevel(projects, liveSource(s.api), status.nodes, keep, 'live');
      } else {
        const graph = await s.api.graph(flavor);
        if (s.expired || flavor !== s.flavor) return false;
        showGraph(graph, 'knowledge', keep, 'live');
      }
      setLevelButton();
      s.lastLoad = new Date();
      if (activeQuery) runSearch(activeQuery, true);
      return true;
    }
    const [graph, status, plan] = await Promise.all([
      s.api.graph(flavor),
      s.api.status(),
      flavor === 'targets' ? s.api.plan().catch((e: unknown) => (e instanceof ApiError && e.kind === 'unauthorized' ? Promise.reject(e) : null)) : null,
    ]);
    if (s.expired || flavor !== s.flavor) return false;
    if (plan) {
      const states = new Map(plan.nodes.filter((n) => n.state).map((n) => [n.id, n.state!]));
      for (const n of graph.nodes) if (!n.state && states.has(n.id)) n.state = states.get(n.id);
    }
    applyStatus(status);
    showGraph(graph, flavor === 'targets' ? 'targets' : 'knowledge', keep, 'live');
    setLevelButton();
    s.lastLoad = new Date();
    if (activeQuery) runSearch(activeQuery, true);
    return true;
  } catch (e) {
    if (s.expired) return false;
    liveError(e, 'loading the graph');
    return false;
  }
}

let refetching = false;
let refetchAgain = false;

function scheduleRefetch(s: LiveSession): void {
  if (refetching) {
    refetchAgain = true;
    return;
  }
  refetching = true;
  setTimeout(() => {
    void liveLoad(s, true).finally(() => {
      refetching = false;
      if (refetchAgain && !s.expired) {
        refetchAgain = false;
        scheduleRefetch(s);
      }
    });
  }, 150);
}

async function liveSearch(q: string, quiet: boolean): Promise<void> {
  const s = session;
  if (!s) return;
  const ctrl = new AbortController();
  searchCtrl = ctrl;
  try {
    const result = await s.api.select(q, ctrl.signal);
    if (ctrl.signal.aborted || q !== activeQuery) return;
    explorer.setSearchResult(result, q);
  } catch (e) {
    if (ctrl.signal.aborted || (e as Error)?.name === 'AbortError') return;
    if (e instanceof ApiError && e.kind === 'unauthorized') {
      expire();
      return;
    }
    explorer.setMatches(new Set(), false);
    if (e instanceof ApiError && e.kind === 'client') setSearchError(e.message);
    else if (e instanceof ApiError && e.kind === 'server') setSearchError(`Server error: ${e.message}`);
    else if (!quiet) setSearchError(`search failed: ${(e as Error).message}`);
  }
}

/**
 * startLive runs live mode with the link's credential (a console token is
 * used as it is, a pairing code is traded for one), or with the stored
 * token when the link had none.
 */
async function startLive(credential: Credential | null, flavor: Flavor): Promise<void> {
  setState('live');
  setBadge('live: …');
  let token: string;
  if (credential !== null) {
    try {
      token = credential.kind === 'pair' ? (await exchangePairingCode(location.origin, credential.code)).token : credential.token;
    } catch (e) {
      if (e instanceof ApiError && e.kind === 'unauthorized') {
        expire();
        return;
      }
      if (e instanceof ApiError && e.kind === 'network') {
        fail(`Cannot reach the core server at ${location.origin} — is it running? Then run \`core open\` again.`);
        return;
      }
      liveError(e, 'the pairing link');
      return;
    }
    try {
      store.save(token);
    } catch {
      // Storage is blocked: the token lives in this page only.
    }
  } else {
    const stored = store.load();
    if (stored === null) {
      fail(MSG_NO_SESSION, true);
      return;
    }
    token = stored;
  }

  els.remember.checked = store.remembered();
  els.remember.disabled = false;
  show(els.rememberWrap, true);
  els.remember.addEventListener('change', () => {
    try {
      store.setRemember(els.remember.checked);
    } catch (e) {
      els.remember.checked = store.remembered();
      setSearchError(`cannot change where the token is kept: ${(e as Error).message}`);
    }
  });

  const api = new Api(location.origin, () => token);
  const s: LiveSession = {
    api,
    flavor,
    level: askedLevel,
    lastLoad: null,
    disconnected: false,
    expired: false,
    events: new EventStream((signal) => api.events(signal), {
      onOpen: () => {
        if (s.disconnected || !s.lastLoad) {
          s.disconnected = false;
          setBanner(null);
          void liveLoad(s, true);
        }
      },
      onEvent: (ev) => {
        if (ev.type === 'graph') scheduleRefetch(s);
        else if (ev.type === 'diagnostic') void s.api.status().then(applyStatus, () => {});
        else if (ev.type === 'attention') void attention.load();
      },
      onDown: () => {
        s.disconnected = true;
        if (s.lastLoad && !s.expired) setBanner(disconnectedBanner(s.lastLoad));
      },
      onUnauthorized: () => expire(),
    }),
  };
  session = s;
  searcher = liveSearch;
  els.viewReview.disabled = false;
  els.viewAttention.disabled = false;
  els.viewInsight.disabled = false;
  void attention.load();
  show(els.shareButton, true);
  void sharePanel.refresh();
  setViewButtons(flavor === 'targets' ? 'targets' : 'knowledge', false);
  levelChoice = (l) => {
    if (s.expired || l === s.level) return;
    s.level = l;
    core.ready = false;
    void liveLoad(s, false).then(() => {
      core.ready = true;
    });
  };
  switchView = (v) => {
    const f: Flavor = v === 'targets' ? 'targets' : 'knowledge';
    if (f === s.flavor || s.expired) return;
    s.flavor = f;
    setViewButtons(v, false);
    core.ready = false;
    void liveLoad(s, false).then(() => {
      core.ready = true;
    });
  };

  await liveLoad(s, false);
  if (!s.expired) s.events.start();
}

// ---- boot ---------------------------------------------------------------

/**
 * CSP_NOTE answers the one error Chromium logs on this page. The page
 * policy is the spec's string; its connect-src names http://[::1]:*, and
 * Chromium has no syntax for an IPv6 host in a source (no form of it
 * parses), so it says it ignores that source. Nothing is lost: the page
 * calls only its own origin, which 'self' covers, on [::1] as on 127.0.0.1.
 */
export const CSP_NOTE =
  "core: the error above about 'http://[::1]:*' in the Content Security Policy is harmless. The page policy is the specification's; Chromium cannot parse an IPv6 host in a source and ignores it, and this page calls only its own origin, which 'self' covers whether it is 127.0.0.1 or [::1].";

function boot(): void {
  exposeCore();
  if (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || location.protocol.startsWith('http')) console.info(CSP_NOTE);
  const { scrub, plan } = planBoot(parseFragment(location.hash), location);
  // A credential leaves the address bar (and history) before anything else.
  if (scrub) history.replaceState(null, '', location.pathname + location.search);
  switch (plan.action) {
    case 'live':
      void startLive(plan.credential, plan.flavor);
      return;
    case 'share':
      startShare(plan.token);
      return;
    case 'runs':
      void startRuns(plan.credential, plan.run, fail);
      return;
    case 'data':
      void loadData(plan.payload, plan.flavor);
      return;
    case 'src':
      void loadSrc(plan.url, plan.flavor);
      return;
    case 'fail':
      fail(plan.message, plan.withFileOpen);
      return;
  }
}

boot();

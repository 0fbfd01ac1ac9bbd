// The explorer: one graphology graph shown by sigma, plus the legend, the
// details panel, the search highlight, the neighbourhood focus and the
// affected-set paint. It knows nothing about where data comes from.

import { MultiDirectedGraph } from 'graphology';
import {
  NODE_KINDS,
  edgeColor,
  edgeKey,
  kindColor,
  nodeLabel,
  nodeSize,
  type GEdge,
  type GNode,
  type GraphData,
} from './model';
import { layeredLayout } from './layout/layered';
import { placeNear, seedPositions, type Point } from './layout/seed';
import { runForceLayout, type ForceHandle } from './layout/force';
import { Renderer, webglAvailable, type EdgeAttrs, type ExplorerGraph, type NodeAttrs } from './renderer';
import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import { h, show } from './dom';
import { symbolDefinition } from './symbol';

export type View = 'knowledge' | 'targets';

const DIM_NODE = '#e3e6eb';
const DIM_EDGE = '#eef0f3';
const PAINT = '#d7263d';
const LIST_CAP = 100;

/** Neighbour is a node at the other end of an edge, with the edge's via when it has one. */
interface Neighbour {
  id: string;
  via?: string;
}
const RESULT_CAP = 60;

export interface ExplorerElements {
  graph: HTMLElement;
  legend: HTMLElement;
  details: HTMLElement;
  results: HTMLElement;
  /** status takes the explorer's line for the status bar (counts, layout, targets.yaml's problem). */
  status: (text: string) => void;
}

export interface ApplyOptions {
  /** keep: a refresh of the same view; existing nodes keep their place and the camera stays. */
  keep: boolean;
}

export class Explorer {
  readonly graph: ExplorerGraph = new MultiDirectedGraph<NodeAttrs, EdgeAttrs>({ allowSelfLoops: true });
  private readonly raw = new Map<string, GNode>();
  private readonly extraNodes = new Set<string>();
  private readonly extraEdges = new Set<string>();
  private renderer: Renderer | null = null;
  private rendererFailed = false;
  private layout: ForceHandle | null = null;
  private layoutRunning = false;
  private layoutToken = 0;
  private readonly saved: Record<View, Map<string, Point> | null> = { knowledge: null, targets: null };

  view: View = 'knowledge';
  private hiddenKinds = new Set<string>();
  private focusId: string | null = null;
  private focus: Set<string> | null = null;
  private matches: Set<string> | null = null;
  private affected: Set<string> | null = null;
  private painting = false;
  private selected: string | null = null;
  private diagnostic = '';
  private baseNodes = 0;
  private baseEdges = 0;

  /** Called when the user changes what is painted (for the diff button). */
  onPaintChange: (on: boolean) => void = () => {};

  constructor(private readonly els: ExplorerElements) {}

  // ---- data -------------------------------------------------------------

  get nodeCount(): number {
    return this.baseNodes;
  }

  get edgeCount(): number {
    return this.baseEdges;
  }

  /** apply shows a graph in the given view. */
  apply(data: GraphData, view: View, opts: ApplyOptions): void {
    this.stopLayout();
    if (view !== this.view) {
      this.savePositions();
      this.view = view;
      opts = { keep: false };
    }
    this.dropExtras();

    const fresh = !opts.keep || this.graph.order === 0;
    const previous = fresh ? this.saved[view] : null;
    if (fresh) {
      this.graph.clear();
      this.raw.clear();
      this.renderer?.unfreezeFrame();
    }

    // Nodes.
    const incoming = new Set<string>();
    for (const n of data.nodes) incoming.add(n.id);
    for (const id of [...this.raw.keys()]) {
      if (!incoming.has(id)) {
        this.raw.delete(id);
        this.graph.dropNode(id);
      }
    }
    const pending: string[] = [];
    for (const n of data.nodes) {
      this.raw.set(n.id, n);
      const attrs = { size: nodeSize(n.kind, 0), color: kindColor(n.kind), label: nodeLabel(n), kind: n.kind };
      if (this.graph.hasNode(n.id)) {
        this.graph.mergeNodeAttributes(n.id, attrs);
      } else {
        const p = previous?.get(n.id);
        this.graph.addNode(n.id, { x: p?.x ?? 0, y: p?.y ?? 0, ...attrs });
        if (!p) pending.push(n.id);
      }
    }

    // Edges.
    const keys = new Set<string>();
    for (const e of data.edges) keys.add(edgeKey(e));
    for (const k of this.graph.edges()) if (!keys.has(k)) this.graph.dropEdge(k);
    for (const e of data.edges) this.addEdge(e);
    this.graph.forEachNode((id, a) => {
      const s = nodeSize(a.kind, this.graph.degree(id));
      if (s !== a.size) this.graph.setNodeAttribute(id, 'size', s);
    });

    // Positions for the nodes that have none yet.
    let runForce = false;
    if (pending.length > 0) {
      const allNew = pending.length === this.graph.order;
      if (view === 'targets') {
        const pos = layeredLayout(data.nodes.map((n) => n.id), data.edges.map((e) => [e.source, e.target] as const));
        for (const id of pending) {
          const p = pos.get(id);
          if (p) this.graph.mergeNodeAttributes(id, { x: p.x * 12, y: p.y * 12 });
        }
      } else if (allNew || pending.length > this.graph.order / 2) {
        const pos = seedPositions(data.nodes, data.edges);
        for (const id of pending) {
          const p = pos.get(id)!;
          this.graph.mergeNodeAttributes(id, { x: p.x, y: p.y });
        }
        runForce = true;
      } else {
        this.placeAmongPlaced(pending);
      }
    }

    this.baseNodes = data.nodes.length;
    this.baseEdges = data.edges.length;
    if (this.selected && !this.graph.hasNode(this.selected)) this.selected = null;
    if (this.focusId && !this.graph.hasNode(this.focusId)) {
      this.focusId = null;
      this.focus = null;
    } else if (this.focusId) {
      this.focus = this.neighbourhood(this.focusId);
    }
    if (this.matches) this.matches = new Set([...this.matches].filter((id) => this.graph.hasNode(id)));

    this.ensureRenderer();
    if (this.renderer) {
      this.renderer.tune(this.graph.order, this.graph.size, view === 'targets');
      if (fresh) this.renderer.resetCamera();
      this.renderer.refresh();
      if (runForce && this.graph.order > 1) this.startLayoutAfterPaint();
      else if (fresh) this.renderer.freezeFrame();
    }
    this.renderLegend();
    this.renderDetails();
    this.renderStatus();
  }

  private addEdge(e: GEdge): string | null {
    const key = edgeKey(e);
    if (this.graph.hasEdge(key)) return null;
    if (!this.graph.hasNode(e.source) || !this.graph.hasNode(e.target)) return null;
    const attrs: EdgeAttrs = {
      kind: e.kind,
      color: edgeColor(e.kind),
      size: e.kind === 'depends' || e.kind.startsWith('depends_') ? 1.2 : 0.6,
    };
    if (e.via) attrs.via = e.via;
    this.graph.addDirectedEdgeWithKey(key, e.source, e.target, attrs);
    return key;
  }

  /** placeAmongPlaced puts newcomers next to their already placed neighbours. */
  private placeAmongPlaced(ids: string[]): void {
    const waiting = new Set(ids);
    const centre = this.centre();
    const spread = this.spread();
    for (const id of ids) {
      const near: Point[] = [];
      this.graph.forEachNeighbor(id, (m, a) => {
        if (!waiting.has(m)) near.push({ x: a.x, y: a.y });
      });
      const p = placeNear(id, near, centre, spread);
      this.graph.mergeNodeAttributes(id, { x: p.x, y: p.y });
      waiting.delete(id);
    }
  }

  private centre(): Point {
    let x = 0;
    let y = 0;
    let n = 0;
    this.graph.forEachNode((_, a) => {
      x += a.x;
      y += a.y;
      n++;
    });
    return n === 0 ? { x: 0, y: 0 } : { x: x / n, y: y / n };
  }

  private spread(): number {
    const n = Math.max(1, this.graph.order);
    return Math.max(2, 3 * Math.sqrt(n) / 4);
  }

  private savePositions(): void {
    if (this.graph.order === 0) return;
    const m = new Map<string, Point>();
    this.graph.forEachNode((id, a) => {
      if (!this.extraNodes.has(id)) m.set(id, { x: a.x, y: a.y });
    });
    this.saved[this.view] = m;
  }

  private neighbourhood(id: string): Set<string> {
    const s = new Set<string>([id]);
    this.graph.forEachNeighbor(id, (m) => s.add(m));
    return s;
  }

  // ---- rendering --------------------------------------------------------

  private ensureRenderer(): void {
    if (this.renderer || this.rendererFailed) return;
    const reason = webglAvailable() ? '' : 'WebGL is not available in this browser, so the graph cannot be drawn; search, legend and details still work.';
    if (!reason) {
      try {
        this.renderer = new Renderer(this.els.graph, this.graph, {
          nodeReducer: (n, d) => this.reduceNode(n, d),
          edgeReducer: (e, d) => this.reduceEdge(e, d),
          click: (n) => this.select(n),
          doubleClick: (n) => this.setFocus(n),
          clickStage: () => this.select(null),
        });
        return;
      } catch (e) {
        this.renderer = null;
        this.els.graph.replaceChildren();
        this.rendererFailed = true;
        this.els.graph.append(h('p', { className: 'notice', text: `The graph cannot be drawn: ${(e as Error).message}` }));
        return;
      }
    }
    this.rendererFailed = true;
    this.els.graph.append(h('p', { className: 'notice', text: reason }));
  }

  private reduceNode(node: string, d: NodeAttrs & Partial<NodeDisplayData>): Partial<NodeDisplayData> {
    if (this.hiddenKinds.size > 0 && this.hiddenKinds.has(d.kind)) {
      d.hidden = true;
      return d;
    }
    const focus = this.focus;
    const matches = this.matches;
    const painted = this.painting && this.affected !== null;
    let dim = false;
    if (focus !== null && !focus.has(node)) dim = true;
    if (matches !== null && !matches.has(node)) dim = true;
    if (painted) {
      if (this.affected!.has(node)) d.color = PAINT;
      else dim = true;
    }
    if (dim && node !== this.selected) {
      d.color = DIM_NODE;
      d.label = '';
      return d;
    }
    if (matches !== null && matches.size <= 40 && matches.has(node)) d.forceLabel = true;
    if (focus !== null && focus.size <= 60) d.forceLabel = true;
    if (node === this.selected) {
      d.highlighted = true;
      d.forceLabel = true;
    }
    return d;
  }

  private reduceEdge(edge: string, d: EdgeAttrs & Partial<EdgeDisplayData>): Partial<EdgeDisplayData> {
    const focus = this.focus;
    const matches = this.matches;
    const painted = this.painting && this.affected !== null;
    if (focus === null && matches === null && !painted) return d;
    const [s, t] = this.graph.extremities(edge);
    if (
      (focus !== null && !(focus.has(s) && focus.has(t))) ||
      (matches !== null && !(matches.has(s) && matches.has(t))) ||
      (painted && !(this.affected!.has(s) && this.affected!.has(t)))
    ) {
      if (this.graph.size > 5000) d.hidden = true;
      else d.color = DIM_EDGE;
    }
    return d;
  }

  private refresh(): void {
    this.renderer?.scheduleRefresh();
  }

  // ---- layout -----------------------------------------------------------

  get layoutBusy(): boolean {
    return this.layoutRunning;
  }

  /**
   * startLayoutAfterPaint lets the first frame of a big graph reach the
   * screen before the layout worker competes with it for the CPU.
   */
  private startLayoutAfterPaint(): void {
    const token = ++this.layoutToken;
    this.layoutRunning = true;
    let started = false;
    const go = () => {
      if (started || token !== this.layoutToken) return;
      started = true;
      this.startLayout();
    };
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(go, 0)));
    setTimeout(go, 1000); // a hidden tab gets no animation frames
  }

  private startLayout(): void {
    if (!this.renderer || this.view !== 'knowledge') {
      this.layoutRunning = false;
      return;
    }
    const ids: string[] = [];
    const index = new Map<string, number>();
    const xy = new Float32Array(this.graph.order * 2);
    this.graph.forEachNode((id, a) => {
      index.set(id, ids.length);
      xy[2 * ids.length] = a.x;
      xy[2 * ids.length + 1] = a.y;
      ids.push(id);
    });
    const pairs = new Uint32Array(this.graph.size * 2);
    let k = 0;
    this.graph.forEachEdge((_e, _a, s, t) => {
      if (s === t) return;
      pairs[k++] = index.get(s)!;
      pairs[k++] = index.get(t)!;
    });
    this.renderer.unfreezeFrame();
    this.layoutRunning = true;
    this.renderStatus();
    this.layout = runForceLayout(xy, pairs.subarray(0, k), (pos, done) => {
      this.graph.updateEachNodeAttributes(
        (id, a) => {
          const i = index.get(id);
          if (i !== undefined) {
            a.x = pos[2 * i]!;
            a.y = pos[2 * i + 1]!;
          }
          return a;
        },
        { attributes: ['x', 'y'] },
      );
      if (done) {
        this.layout = null;
        this.layoutRunning = false;
        this.renderer?.freezeFrame();
        this.renderStatus();
      }
    });
  }

  private stopLayout(): void {
    this.layoutToken++;
    const was = this.layoutRunning;
    this.layout?.stop();
    this.layout = null;
    this.layoutRunning = false;
    if (was) this.renderer?.freezeFrame();
  }

  /** relayout runs the layout of the current view again. */
  relayout(): void {
    this.stopLayout();
    if (this.graph.order === 0) return;
    if (this.view === 'targets') {
      const edges: Array<[string, string]> = [];
      this.graph.forEachEdge((_e, _a, s, t) => edges.push([s, t]));
      const pos = layeredLayout(this.graph.nodes(), edges);
      this.graph.updateEachNodeAttributes((id, a) => {
        const p = pos.get(id);
        if (p) {
          a.x = p.x * 12;
          a.y = p.y * 12;
        }
        return a;
      });
      this.renderer?.unfreezeFrame();
      this.renderer?.resetCamera();
      this.renderer?.freezeFrame();
      return;
    }
    this.startLayout();
  }

  // ---- interaction ------------------------------------------------------

  select(id: string | null): void {
    this.selected = id && this.graph.hasNode(id) ? id : null;
    this.renderDetails();
    this.refresh();
  }

  /** selectAndShow selects a node and moves the camera to it. */
  selectAndShow(id: string): void {
    this.select(id);
    if (this.selected) this.renderer?.centerOn(id);
  }

  setFocus(id: string | null): void {
    if (id === null || !this.graph.hasNode(id)) {
      this.focusId = null;
      this.focus = null;
    } else {
      this.focusId = id;
      this.focus = this.neighbourhood(id);
      this.selected = id;
      this.renderer?.fit(this.focus);
    }
    this.renderDetails();
    this.renderStatus();
    this.refresh();
  }

  get focused(): boolean {
    return this.focus !== null;
  }

  toggleKind(kind: string): void {
    if (this.hiddenKinds.has(kind)) this.hiddenKinds.delete(kind);
    else this.hiddenKinds.add(kind);
    this.renderLegend();
    this.refresh();
  }

  /** setMatches highlights a set of nodes (null: no search). */
  setMatches(ids: Set<string> | null, fit = true): void {
    this.matches = ids;
    this.renderResults();
    this.renderStatus();
    this.refresh();
    if (ids && ids.size > 0 && fit) this.renderer?.fit(ids);
  }

  /**
   * setSearchResult shows a select= answer: its nodes are highlighted, and
   * nodes the view does not hold (symbols, for instance) join it for as
   * long as the search stands. In the target view only targets join.
   */
  setSearchResult(result: GraphData): void {
    this.dropExtras();
    const added: string[] = [];
    for (const n of result.nodes) {
      if (this.graph.hasNode(n.id)) continue;
      if (this.view === 'targets' && n.kind !== 'target') continue;
      this.raw.set(n.id, n);
      this.graph.addNode(n.id, { x: 0, y: 0, size: nodeSize(n.kind, 0), color: kindColor(n.kind), label: nodeLabel(n), kind: n.kind });
      this.extraNodes.add(n.id);
      added.push(n.id);
    }
    for (const e of result.edges) {
      const k = this.addEdge(e);
      if (k) this.extraEdges.add(k);
    }
    if (added.length > 0) this.placeAmongPlaced(added);
    const ids = new Set(result.nodes.map((n) => n.id).filter((id) => this.graph.hasNode(id)));
    this.renderLegend();
    this.setMatches(ids);
  }

  private dropExtras(): void {
    for (const k of this.extraEdges) if (this.graph.hasEdge(k)) this.graph.dropEdge(k);
    this.extraEdges.clear();
    for (const id of this.extraNodes) {
      if (this.graph.hasNode(id)) this.graph.dropNode(id);
      this.raw.delete(id);
      if (this.selected === id) this.selected = null;
      if (this.focusId === id) {
        this.focusId = null;
        this.focus = null;
      }
    }
    this.extraNodes.clear();
  }

  clearSearch(): void {
    this.dropExtras();
    this.matches = null;
    this.renderLegend();
    this.renderResults();
    this.renderDetails();
    this.renderStatus();
    this.refresh();
  }

  /** searchNodes is what the snapshot search filters. */
  searchNodes(): Iterable<GNode> {
    return this.raw.values();
  }

  setAffected(ids: string[] | null): void {
    this.affected = ids && ids.length > 0 ? new Set(ids) : null;
    if (!this.affected && this.painting) {
      this.painting = false;
      this.onPaintChange(false);
    }
    this.refresh();
  }

  get hasAffected(): boolean {
    return this.affected !== null;
  }

  togglePaint(): boolean {
    if (!this.affected) return false;
    this.painting = !this.painting;
    this.onPaintChange(this.painting);
    if (this.painting) this.renderer?.fit([...this.affected].filter((id) => this.graph.hasNode(id)));
    this.renderStatus();
    this.refresh();
    return this.painting;
  }

  setDiagnostic(text: string): void {
    this.diagnostic = text;
    this.renderStatus();
  }

  /** clearView removes the graph (an error with nothing to show). */
  clearView(): void {
    this.stopLayout();
    this.graph.clear();
    this.raw.clear();
    this.extraNodes.clear();
    this.extraEdges.clear();
    this.selected = null;
    this.focus = null;
    this.focusId = null;
    this.matches = null;
    this.baseNodes = 0;
    this.baseEdges = 0;
    this.renderLegend();
    this.renderDetails();
    this.renderResults();
    this.renderStatus();
  }

  // ---- panels -----------------------------------------------------------

  private renderLegend(): void {
    const counts = new Map<string, number>();
    this.graph.forEachNode((_, a) => counts.set(a.kind, (counts.get(a.kind) ?? 0) + 1));
    const kinds = [...NODE_KINDS.filter((k) => counts.has(k)), ...[...counts.keys()].filter((k) => !(NODE_KINDS as readonly string[]).includes(k)).sort()];
    const items = kinds.map((kind) => {
      const on = !this.hiddenKinds.has(kind);
      const b = h(
        'button',
        { className: 'legend-item', type: 'button', title: on ? `Hide ${kind} nodes` : `Show ${kind} nodes` },
        h('span', { className: `swatch kind-${kind}` }),
        h('span', { className: 'legend-kind', text: kind }),
        h('span', { className: 'legend-count', text: String(counts.get(kind)) }),
      );
      b.dataset.kind = kind;
      b.setAttribute('aria-pressed', String(on));
      b.addEventListener('click', () => this.toggleKind(kind));
      return h('li', {}, b);
    });
    this.els.legend.replaceChildren(h('h2', { text: 'Kinds' }), h('ul', {}, ...items));
  }

  private renderResults(): void {
    const el = this.els.results;
    if (!this.matches) {
      el.replaceChildren();
      show(el, false);
      return;
    }
    const ids = [...this.matches].sort();
    const list = ids.slice(0, RESULT_CAP).map((id) => h('li', {}, this.nodeButton(id)));
    const more = ids.length > RESULT_CAP ? h('li', { className: 'more', text: `… and ${ids.length - RESULT_CAP} more` }) : null;
    el.replaceChildren(
      h('p', { className: 'result-count', text: ids.length === 1 ? '1 match' : `${ids.length} matches` }),
      h('ul', {}, ...list, more),
    );
    show(el, true);
  }

  private nodeButton(id: string): HTMLButtonElement {
    const n = this.raw.get(id);
    const b = h(
      'button',
      { className: 'node-link', type: 'button', title: id },
      h('span', { className: `swatch kind-${n?.kind ?? 'unknown'}` }),
      h('span', { text: n ? nodeLabel(n) : id }),
    );
    b.addEventListener('click', () => this.selectAndShow(id));
    return b;
  }

  private renderStatus(): void {
    const parts = [`${this.baseNodes} nodes`, `${this.baseEdges} edges`];
    if (this.extraNodes.size > 0) parts.push(`+${this.extraNodes.size} from search`);
    if (this.layoutRunning) parts.push('layout running…');
    if (this.focus) parts.push(`focus: ${this.focusId}`);
    if (this.painting && this.affected) parts.push(`diff touches ${this.affected.size} nodes`);
    const line = [parts.join(' · ')];
    if (this.diagnostic) line.push(`workspace problem: ${this.diagnostic}`);
    this.els.status(line.join('  —  '));
  }

  private renderDetails(): void {
    const el = this.els.details;
    const id = this.selected;
    const n = id ? this.raw.get(id) : undefined;
    if (!id || !n) {
      el.replaceChildren();
      show(el, false);
      return;
    }
    const fields: Array<[string, string | undefined]> = [
      ['kind', n.kind],
      ['id', n.id],
      ['name', n.name],
      ['path', n.path],
      ['project', n.project],
      ['title', n.title],
      ['description', n.description],
      ['language', n.language],
      ['state', n.state],
      ['external', n.external ? 'yes' : undefined],
      ['diagnostic', n.diagnostic],
    ];
    const dl = h('dl');
    for (const [k, v] of fields) {
      if (v === undefined || v === '') continue;
      dl.append(h('dt', { text: k }), h('dd', { text: v }));
    }

    const sections: HTMLElement[] = [];
    const out = this.edgesByKind(id, 'out');
    const inc = this.edgesByKind(id, 'in');

    if (n.kind === 'target' || n.kind === 'spell') {
      const s = h('section', { className: 'kind-specific' });
      if (n.command?.length) s.append(h('h3', { text: 'Command' }), h('code', { className: 'command', text: n.command.join(' ') }));
      if (n.inputs?.length) s.append(h('h3', { text: 'Inputs' }), this.plainList(n.inputs));
      if (n.outputs?.length) s.append(h('h3', { text: 'Outputs' }), this.plainList(n.outputs));
      if (n.drift) s.append(h('p', { text: 'Drift check: output means generated files or formatting are stale.' }));
      if (n.kind === 'target') {
        s.append(h('h3', { text: 'Dependencies' }), this.neighbourList(out.get('depends') ?? []));
        s.append(h('h3', { text: 'Dependents' }), this.neighbourList(inc.get('depends') ?? []));
      }
      sections.push(s);
    }
    if (n.kind === 'symbol') {
      const s = h('section', { className: 'kind-specific' });
      s.append(h('h3', { text: 'Definition' }), h('code', { className: 'definition', text: symbolDefinition(n) }));
      s.append(h('h3', { text: 'References' }), this.neighbourList(inc.get('references') ?? []));
      sections.push(s);
    }

    const edgeSection = (title: string, groups: Map<string, Neighbour[]>) => {
      const s = h('section', { className: 'edges' }, h('h3', { text: title }));
      if (groups.size === 0) s.append(h('p', { className: 'none', text: 'none' }));
      for (const kind of [...groups.keys()].sort()) {
        const ids = groups.get(kind)!;
        s.append(h('h4', { text: `${kind} (${ids.length})` }), this.neighbourList(ids));
      }
      return s;
    };

    const focusBtn = h('button', { type: 'button', className: 'focus', text: this.focusId === id ? 'Clear focus' : 'Focus neighbourhood' });
    focusBtn.id = 'focus';
    focusBtn.addEventListener('click', () => this.setFocus(this.focusId === id ? null : id));
    const closeBtn = h('button', { type: 'button', className: 'close', text: 'Close', title: 'Close (Esc)' });
    closeBtn.addEventListener('click', () => this.select(null));

    el.replaceChildren(
      h('header', {}, h('span', { className: `swatch kind-${n.kind}` }), h('h2', { text: nodeLabel(n) })),
      h('div', { className: 'actions' }, focusBtn, closeBtn),
      dl,
      ...sections,
      edgeSection('Edges out', out),
      edgeSection('Edges in', inc),
    );
    show(el, true);
  }

  private edgesByKind(id: string, dir: 'in' | 'out'): Map<string, Neighbour[]> {
    const groups = new Map<string, Neighbour[]>();
    const add = (a: EdgeAttrs, other: string) => {
      let l = groups.get(a.kind);
      if (!l) groups.set(a.kind, (l = []));
      l.push(a.via ? { id: other, via: a.via } : { id: other });
    };
    if (dir === 'out') this.graph.forEachOutEdge(id, (_e, a, _s, t) => add(a, t));
    else this.graph.forEachInEdge(id, (_e, a, s) => add(a, s));
    for (const l of groups.values()) l.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    return groups;
  }

  /** neighbourList lists nodes as buttons, each with the manifest that names the edge, if one does. */
  private neighbourList(ids: Neighbour[]): HTMLElement {
    if (ids.length === 0) return h('p', { className: 'none', text: 'none' });
    const ul = h('ul', { className: 'neighbours' });
    for (const n of ids.slice(0, LIST_CAP)) {
      const li = h('li', {}, this.nodeButton(n.id));
      if (n.via) li.append(h('span', { className: 'via', text: `via ${n.via}`, title: 'the manifest that names this dependency' }));
      ul.append(li);
    }
    if (ids.length > LIST_CAP) ul.append(h('li', { className: 'more', text: `… and ${ids.length - LIST_CAP} more` }));
    return ul;
  }

  private plainList(items: string[]): HTMLElement {
    return h('ul', { className: 'plain' }, ...items.map((t) => h('li', {}, h('code', { text: t }))));
  }
}

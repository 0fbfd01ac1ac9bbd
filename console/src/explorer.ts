// The explorer: one graphology graph shown by sigma, plus the legend, the
// details panel, the search highlight, the neighbourhood focus and the
// affected-set paint. It shows either every node of a graph (the "all"
// level, laid out by force) or the project level: projects as circles,
// grouped by folder, each expanded on a click into its folders and files
// (levels.ts). It knows nothing about where data comes from: a
// LevelSource fetches a project's contents and a node's neighbourhood.

import { MultiDirectedGraph } from 'graphology';
import {
  NODE_KINDS,
  edgeColor,
  edgeKey,
  kindColor,
  nodeLabel,
  nodeSize,
  querySeeds,
  type GEdge,
  type GNode,
  type GraphData,
} from './model';
import { layeredLayout } from './layout/layered';
import { placeNear, seedPositions, type Point } from './layout/seed';
import { runForceLayout, type ForceHandle } from './layout/force';
import { Renderer, webglAvailable, type Compound, type EdgeAttrs, type ExplorerGraph, type NodeAttrs } from './renderer';
import type { Coordinates, EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import { h, show } from './dom';
import { symbolDefinition } from './symbol';
import { holdsTotal, innerOmitted, owned, packLayout, projectLabel, shownEdges, type Circle, type ProjectPack } from './levels';
import { UniqueNames, uniqueNames } from './labels';
import { core } from './core';

export type View = 'knowledge' | 'targets';
export type Level = 'projects' | 'all';

/** LevelSource fetches what the project level shows on demand. */
export interface LevelSource {
  /**
   * expand is a project's contents: what select=project:NAME answers, or
   * with cap what select=project:NAME&edge_limit=cap answers, the edges
   * the project level draws (drawnContents).
   */
  expand(project: string, cap?: number): Promise<GraphData>;
  /** around is a node and what lies within hops edges of it (select=TERM depth:N), or null when it cannot say. */
  around(node: GNode, hops: number): Promise<GraphData | null>;
}

const COMPOUND_FILL: Record<string, string> = {
  group: 'rgba(93, 102, 119, 0.06)',
  project: 'rgba(228, 87, 46, 0.07)',
  folder: 'rgba(119, 104, 174, 0.09)',
};
const COMPOUND_STROKE: Record<string, string> = {
  group: 'rgba(93, 102, 119, 0.35)',
  project: 'rgba(228, 87, 46, 0.55)',
  folder: 'rgba(119, 104, 174, 0.45)',
};
const SELECTED_STROKE = '#1d2433';
/** The project level draws projects in a tint of their kind's colour, so that names read on them. */
const PROJECT_TINT = '#f2a68f';
/** The project level's edges are light until a selection picks some out. */
const LEVEL_EDGE = '#c3c9d2';
const PICKED_EDGE = '#1d2433';

const DIM_NODE = '#e3e6eb';
const DIM_EDGE = '#eef0f3';
const PAINT = '#d7263d';
const LIST_CAP = 100;
/** The target view's layered layout, in graph units per step of layeredLayout. */
const LAYER_SCALE = 12;
/** The "all" level draws more nodes than this as GL points (apply). */
const POINTS_ABOVE = 2000;
/** An open project draws the edges among what it holds up to this many (levelEdges). */
export const INNER_EDGE_CAP = 1500;

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

/** Hops a focus reaches (the details' choice). */
export const FOCUS_HOPS = [1, 2, 3] as const;

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
  private listed: string[] | null = null;
  private affected: Set<string> | null = null;
  private painting = false;
  private selected: string | null = null;
  private diagnostic = '';
  private baseNodes = 0;
  private baseEdges = 0;

  // The project level.
  level: Level = 'all';
  private source: LevelSource | null = null;
  private projectData: GraphData | null = null;
  private readonly contents = new Map<string, GraphData>();
  /** What each answer of contents owns, and each open project's packing (packed once per answer). */
  private readonly ownedOf = new WeakMap<GraphData, GNode[]>();
  private readonly packs = new Map<string, ProjectPack>();
  /** The unique names of what open projects hold, and the answers they were made from (renderProjects). */
  private names = new UniqueNames();
  private named = new Set<GraphData>();
  /** Open projects whose inner edges are left out, with how many (levelEdges). */
  private readonly thinned = new Map<string, number>();
  /** A thinned project's every edge, asked once a node inside it is selected (levelEdges), by its answer. */
  private readonly wholeEdges = new WeakMap<GraphData, GEdge[] | 'asked'>();
  private circles = new Map<string, Circle>();
  private totalNodes = 0;
  private expanding = new Set<string>();
  /** The latest reload asked of each open project (reload). */
  private readonly reloads = new Map<string, number>();
  /** Nodes a search found that the view does not show (the project level lists them). */
  private found = new Map<string, GNode>();
  /** focusView: the project level is showing a node's neighbourhood in its place. */
  private focusView: { id: string; hops: number; camera: { x: number; y: number; ratio: number } } | null = null;
  hops = 1;

  /** Called when the user changes what is painted (for the diff button). */
  onPaintChange: (on: boolean) => void = () => {};

  constructor(private readonly els: ExplorerElements) {
    core.where = (id) => this.where(id);
  }

  /** where is a node's or a circle's centre on the page, in client pixels (null when not shown). */
  where(id: string): { x: number; y: number } | null {
    const r = this.renderer;
    if (!r) return null;
    let at: { x: number; y: number } | null = null;
    if (this.graph.hasNode(id)) at = this.graph.getNodeAttributes(id);
    else if (this.isCompound(id)) at = this.circles.get(id)!;
    if (!at) return null;
    const p = r.sigma.graphToViewport({ x: at.x, y: at.y });
    const box = this.els.graph.getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  }

  // ---- data -------------------------------------------------------------

  get nodeCount(): number {
    return this.baseNodes;
  }

  get edgeCount(): number {
    return this.baseEdges;
  }

  /** apply shows every node of a graph in the given view (the "all" level). */
  apply(data: GraphData, view: View, opts: ApplyOptions): void {
    this.stopLayout();
    if (this.level === 'projects' && !this.focusView) {
      this.level = 'all';
      this.graph.clear();
      this.raw.clear();
      opts = { keep: false };
    }
    if (!this.focusView) this.leaveProjects();
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
    // A file's label carries enough of its path to tell it from the
    // graph's other files of the same name.
    const unique = uniqueNames(data.nodes);
    // A big graph's nodes are GL points, as an open project's files are
    // (renderer.ts): software WebGL draws sigma's discs one at a time.
    const type = data.nodes.length > POINTS_ABOVE ? 'point' : 'circle';
    for (const n of data.nodes) {
      this.raw.set(n.id, n);
      const attrs = { size: nodeSize(n.kind, 0), color: kindColor(n.kind), label: unique.get(n.id) ?? nodeLabel(n), kind: n.kind, type };
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
          if (p) this.graph.mergeNodeAttributes(id, { x: p.x * LAYER_SCALE, y: p.y * LAYER_SCALE });
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
      this.focus = this.neighbourhood(this.focusId, this.hops);
    }
    if (this.matches) this.matches = new Set([...this.matches].filter((id) => this.graph.hasNode(id)));

    this.ensureRenderer();
    if (this.renderer) {
      this.renderer.setLevel('all');
      this.renderer.tune(this.graph.order, this.graph.size, view === 'targets');
      // Neighbours in a row of the layered layout are LAYER_SCALE apart.
      this.renderer.setLabelRoom(view === 'targets' ? LAYER_SCALE : null);
      this.renderer.setForcedLabels(this.forcedLabels());
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

  /** neighbourhood is a node and what lies within hops edges of it, either way. */
  private neighbourhood(id: string, hops = 1): Set<string> {
    const s = new Set<string>([id]);
    let frontier = [id];
    for (let d = 0; d < hops && frontier.length > 0; d++) {
      const next: string[] = [];
      for (const u of frontier) {
        this.graph.forEachNeighbor(u, (m) => {
          if (!s.has(m)) {
            s.add(m);
            next.push(m);
          }
        });
      }
      frontier = next;
    }
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
          click: (n) => this.clicked(n),
          doubleClick: (n) => this.setFocus(n),
          clickStage: (at) => this.clickedStage(at),
          busy: () => this.layoutRunning,
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
    if (this.level === 'projects' && !this.focusView && this.selected) {
      const [s, t] = this.graph.extremities(edge);
      if (s === this.selected || t === this.selected) d.color = PICKED_EDGE;
    }
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
    if (this.level === 'projects' && !this.focusView) {
      this.renderProjects(true);
      return;
    }
    if (this.view === 'targets') {
      const edges: Array<[string, string]> = [];
      this.graph.forEachEdge((_e, _a, s, t) => edges.push([s, t]));
      const pos = layeredLayout(this.graph.nodes(), edges);
      this.graph.updateEachNodeAttributes((id, a) => {
        const p = pos.get(id);
        if (p) {
          a.x = p.x * LAYER_SCALE;
          a.y = p.y * LAYER_SCALE;
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

  /** select selects a node (null: none); draw false leaves the drawing to a change that follows. */
  select(id: string | null, draw = true): void {
    this.selected = id && (this.graph.hasNode(id) || this.isCompound(id)) ? id : null;
    if (this.level === 'projects' && !this.focusView) {
      // A thinned project draws the selected node's own edges.
      if (this.thinned.size > 0) {
        this.syncLevelEdges();
        this.baseEdges = this.graph.size;
        this.renderStatus();
      }
      this.renderer?.setCompounds(this.compoundList());
    }
    this.renderer?.setForcedLabels(this.forcedLabels());
    this.renderDetails();
    if (draw) this.refresh();
  }

  /**
   * selectAndShow selects a node and moves the camera to it. On the project
   * level a node not shown is first brought in: its project is expanded.
   */
  selectAndShow(id: string): void {
    if (this.level === 'projects' && !this.focusView && !this.graph.hasNode(id) && !this.isCompound(id)) {
      const n = this.lookup(id);
      const project = n?.kind === 'project' ? n.name : n?.project;
      if (project && this.projectData?.nodes.some((p) => p.name === project)) {
        void this.expand(project).then(() => this.selectAndShow(id));
        return;
      }
      if (n) void this.focusAround(id, this.hops);
      return;
    }
    this.select(id);
    if (!this.selected) return;
    const c = this.circles.get(id);
    if (this.level === 'projects' && c && c.role !== 'leaf') this.renderer?.fitCircle(c.x, c.y, c.r);
    else this.renderer?.centerOn(id);
  }

  /** clicked: a click on a node selects it; on a collapsed project it opens the project too. */
  private clicked(id: string): void {
    if (this.level === 'projects' && !this.focusView) {
      const c = this.circles.get(id);
      const n = this.raw.get(id);
      if (n?.kind === 'project' && c && !this.contents.has(n.name)) {
        // Drawn with the opening: a frame of the selection alone would
        // come first and hold the opening back by a frame.
        const opening = !this.expanding.has(n.name);
        void this.expand(n.name);
        this.select(id, !opening);
        return;
      }
    }
    this.select(id);
  }

  /**
   * clickedStage: a click on no node selects the innermost circle under
   * it, or nothing. A file's circle counts: sigma's picking misses the
   * small GL points an open project's files are drawn as.
   */
  private clickedStage(at: Coordinates): void {
    if (this.level !== 'projects' || this.focusView) {
      this.select(null);
      return;
    }
    let best: Circle | null = null;
    for (const c of this.circles.values()) {
      if (Math.hypot(at.x - c.x, at.y - c.y) > c.r) continue;
      if (!best || c.r < best.r) best = c;
    }
    this.select(best ? best.id : null);
  }

  // ---- the project level --------------------------------------------------

  /**
   * showProjects shows the project level: data is the level=projects
   * answer (projects with what they hold, their dependencies), total the
   * number of nodes of the whole graph. keep: a refresh, which keeps the
   * expanded projects (asked again of the source) and the camera.
   */
  showProjects(data: GraphData, source: LevelSource, total: number, keep: boolean): void {
    this.stopLayout();
    if (this.level !== 'projects' || this.view !== 'knowledge') {
      this.savePositions();
      keep = false;
    }
    this.view = 'knowledge';
    this.level = 'projects';
    core.level = 'projects';
    this.source = source;
    this.projectData = data;
    this.totalNodes = total;
    this.focusView = null;
    this.focusId = null;
    this.focus = null;
    this.found.clear();
    const again = keep ? [...this.contents.keys()].filter((p) => data.nodes.some((n) => n.kind === 'project' && n.name === p)) : [];
    // A refresh after an edit keeps the open projects drawn from their
    // last answers until the new ones come, and so the selection inside
    // them: they are not folded and opened again under the user.
    for (const p of [...this.contents.keys()]) if (!again.includes(p)) this.contents.delete(p);
    this.renderProjects(!keep);
    for (const p of again) void this.reload(p);
  }

  /**
   * reload asks the source for an open project's contents again and puts
   * the answer in the last one's place; a reload asked after it wins, in
   * whatever order the answers come. The new answer has no whole edges
   * kept (wholeEdges is keyed by the answer): a selection inside asks
   * again.
   */
  private async reload(project: string): Promise<void> {
    const source = this.source;
    if (!source) return;
    const seq = (this.reloads.get(project) ?? 0) + 1;
    this.reloads.set(project, seq);
    let data: GraphData;
    try {
      data = await source.expand(project, INNER_EDGE_CAP);
    } catch {
      return; // the last answer stays drawn; the next event asks again
    }
    if (this.reloads.get(project) !== seq || this.level !== 'projects' || this.source !== source || !this.contents.has(project)) return;
    this.contents.set(project, data);
    this.renderProjects(false);
  }

  /** leaveProjects forgets the project level (the "all" level takes over). */
  private leaveProjects(): void {
    this.level = 'all';
    core.level = 'all';
    this.projectData = null;
    this.contents.clear();
    this.packs.clear();
    this.names = new UniqueNames();
    this.named.clear();
    this.thinned.clear();
    this.circles.clear();
    this.found.clear();
    this.focusView = null;
    this.renderer?.setLevel('all');
  }

  get expandedProjects(): string[] {
    return [...this.contents.keys()];
  }

  isExpanded(project: string): boolean {
    return this.contents.has(project);
  }

  /** expand opens a project: its folders and what it owns, inside its circle. */
  async expand(project: string, move = true): Promise<void> {
    if (this.level !== 'projects' || !this.source || this.contents.has(project) || this.expanding.has(project)) return;
    this.expanding.add(project);
    // The request leaves before the page's own work on the click.
    const asked = this.source.expand(project, INNER_EDGE_CAP);
    this.renderStatus();
    let drawn = false;
    try {
      const data = await asked;
      if (this.level !== 'projects') return;
      this.contents.set(project, data);
      this.renderProjects(false);
      drawn = true;
      const c = this.circles.get(`project:${project}`);
      // A big graph jumps there: an animation would redraw it every frame.
      if (move && c) this.renderer?.fitCircle(c.x, c.y, c.r, this.graph.order > 2000 ? 0 : 400);
    } finally {
      this.expanding.delete(project);
      this.renderStatus();
      // The click that opened it did not draw its selection (clicked);
      // an opening that failed draws it now (a refresh indexes the whole
      // graph again: not twice).
      if (!drawn) this.refresh();
    }
  }

  /** collapse folds an expanded project back into one circle. */
  collapse(project: string): void {
    if (!this.contents.delete(project)) return;
    if (this.selected && this.lookup(this.selected)?.project === project) this.selected = `project:${project}`;
    this.renderProjects(false);
  }

  private isCompound(id: string): boolean {
    const c = this.circles.get(id);
    return !!c && c.role !== 'leaf' && !this.graph.hasNode(id);
  }

  /** lookup finds a node by id among those shown, those a search found, and the project level's circles. */
  private lookup(id: string): GNode | undefined {
    return this.raw.get(id) ?? this.found.get(id);
  }

  /** compoundList is the circles drawn under the nodes: groups, folders and expanded projects. */
  private compoundList(): Compound[] {
    const out: Compound[] = [];
    for (const c of this.circles.values()) {
      if (c.role === 'leaf' || (c.role === 'project' && !this.contents.has(c.name))) continue;
      const n = this.raw.get(c.id);
      out.push({
        id: c.id,
        x: c.x,
        y: c.y,
        r: c.r,
        label: c.role === 'project' && n ? projectLabel(n) : c.name,
        fill: COMPOUND_FILL[c.role] ?? COMPOUND_FILL.group!,
        stroke: this.selected === c.id ? SELECTED_STROKE : (COMPOUND_STROKE[c.role] ?? COMPOUND_STROKE.group!),
        labelDrop: c.role === 'project' ? 12 : 0,
      });
    }
    return out;
  }

  /**
   * renderProjects lays the project level out again (circle packing) and
   * puts it in the graph: collapsed projects and what expanded ones hold
   * are nodes, groups, folders and expanded projects are circles drawn
   * under them. fresh: a new view, with the camera reset.
   *
   * An open project is packed once per answer (this.packs), and the graph
   * is changed in place: an opening adds its nodes and moves the others.
   * Only when something leaves (a fold, a refresh) is the graph rebuilt,
   * as sigma answers each node or edge dropped by indexing the whole
   * graph again.
   */
  private renderProjects(fresh: boolean): void {
    const data = this.projectData;
    if (!data) return;
    const projects = data.nodes.filter((n) => n.kind === 'project');
    const inside = new Map<string, GNode[]>();
    for (const [p, c] of this.contents) {
      let l = this.ownedOf.get(c);
      if (!l) this.ownedOf.set(c, (l = owned(c, p)));
      inside.set(p, l);
    }
    this.circles = packLayout(projects, inside, this.packs);
    // Names are made for an opening's nodes alone (and those of the open
    // that they collide with); a fold or a new answer names all again.
    const open = new Set(this.contents.values());
    if ([...this.named].some((c) => !open.has(c))) {
      this.names = new UniqueNames();
      this.named.clear();
    }
    for (const [p, c] of this.contents) {
      if (this.named.has(c)) continue;
      this.names.add(inside.get(p)!);
      this.named.add(c);
    }
    const unique = this.names;
    const byId = new Map<string, GNode>();
    for (const n of projects) byId.set(n.id, n);
    for (const l of inside.values()) for (const n of l) byId.set(n.id, n);
    let minX = Infinity;
    let maxX = -Infinity;
    let minY = Infinity;
    let maxY = -Infinity;
    this.raw.clear();
    const want = new Map<string, NodeAttrs>();
    for (const c of this.circles.values()) {
      minX = Math.min(minX, c.x - c.r);
      maxX = Math.max(maxX, c.x + c.r);
      minY = Math.min(minY, c.y - c.r);
      maxY = Math.max(maxY, c.y + c.r);
      const n = byId.get(c.id);
      if (c.role === 'group' || c.role === 'folder') {
        this.raw.set(c.id, { id: c.id, kind: c.role, name: c.name });
        continue;
      }
      if (!n) continue;
      this.raw.set(c.id, n);
      if (c.role === 'project' && this.contents.has(n.name)) {
        // An expanded project is its circle; its node, where the
        // dependencies between projects end, sits on the circle's top.
        want.set(c.id, { x: c.x, y: c.y + c.r, size: Math.max(0.8, Math.min(3, c.r * 0.05)), color: kindColor('project'), label: '', kind: 'project', zIndex: c.depth, type: undefined });
        continue;
      }
      const label = c.role === 'project' ? projectLabel(n) : (unique.get(n.id) ?? nodeLabel(n));
      // What a project holds is drawn as points (cheap in software WebGL,
      // see renderer.ts). One shape for every node's attributes: sigma
      // copies them for each node, and shapes that differ cost it.
      const a: NodeAttrs = { x: c.x, y: c.y, size: c.r, color: c.role === 'project' ? PROJECT_TINT : kindColor(n.kind), label, kind: n.kind, zIndex: c.depth, type: c.role === 'leaf' ? 'point' : undefined };
      want.set(c.id, a);
    }
    // Something leaves: the graph is rebuilt (one event for sigma).
    let rebuild = this.extraNodes.size > 0 || this.extraEdges.size > 0 || this.graph.order > want.size;
    if (!rebuild) this.graph.forEachNode((id) => void (rebuild ||= !want.has(id)));
    if (rebuild) {
      this.graph.clear();
      this.extraNodes.clear();
      this.extraEdges.clear();
    }
    const put = () => {
      for (const [id, a] of want) {
        if (!this.graph.hasNode(id)) {
          this.graph.addNode(id, a);
          continue;
        }
        const o = this.graph.getNodeAttributes(id);
        if (o.x !== a.x || o.y !== a.y || o.size !== a.size || o.color !== a.color || o.label !== a.label || o.kind !== a.kind || o.zIndex !== a.zIndex || o.type !== a.type) this.graph.replaceNodeAttributes(id, a);
      }
      if (this.selected && !this.graph.hasNode(this.selected) && !this.isCompound(this.selected)) this.selected = null;
      this.syncLevelEdges();
    };
    // Sigma indexes the graph once, at the refresh below, not per node.
    if (this.renderer) this.renderer.quietly(put);
    else put();
    this.baseNodes = this.graph.order;
    this.baseEdges = this.graph.size;
    if (this.matches) this.matches = new Set([...this.matches].filter((id) => this.graph.hasNode(id)));

    this.ensureRenderer();
    if (this.renderer) {
      this.renderer.setLevel('projects');
      this.renderer.setLabelRoom(null);
      this.renderer.tune(this.graph.order, this.graph.size, false);
      this.renderer.setCompounds(this.compoundList());
      this.renderer.setForcedLabels(this.forcedLabels());
      if (Number.isFinite(minX)) {
        // The frame is the outer circles, not the nodes: a group's circle
        // reaches past the projects in it.
        const pad = (maxX - minX) * 0.02;
        this.renderer.frame(minX - pad, maxX + pad, minY - pad, maxY + pad);
      }
      if (fresh) this.renderer.resetCamera();
      // One draw, at the next frame: an opening project also moves the
      // camera, and each draw of thousands of nodes costs a frame or more
      // in software WebGL.
      this.renderer.scheduleRefresh();
    }
    this.renderLegend();
    this.renderDetails();
    this.renderResults();
    this.renderStatus();
  }

  /**
   * levelEdges are the edges the project level draws: the dependencies
   * between projects, and the relations inside each open project, unless
   * it holds more than INNER_EDGE_CAP of them. Those are left out (a line
   * from each of thousands of files is a grey fog, and costs an opening
   * as much as its nodes), by the server (edge_limit) or by
   * drawnContents, but the selected node's own, which are drawn picked
   * out: the project's whole contents are asked for them once a node in
   * it is selected. thinned counts what each project left out.
   */
  private levelEdges(): GEdge[] {
    const data = this.projectData;
    if (!data) return [];
    const shown = (id: string) => this.graph.hasNode(id);
    const out = shownEdges(data.edges, shown);
    this.thinned.clear();
    const sel = this.selected;
    const selProject = sel ? this.raw.get(sel)?.project : undefined;
    for (const [p, c] of this.contents) {
      out.push(...shownEdges(c.edges, shown));
      const left = innerOmitted(c);
      if (left === 0) continue;
      this.thinned.set(p, left);
      if (!sel || selProject !== p) continue;
      const whole = this.wholeEdgesOf(p, c);
      if (whole) for (const e of shownEdges(whole, shown)) if (e.source === sel || e.target === sel) out.push(e);
    }
    return out;
  }

  /**
   * wholeEdgesOf is every edge of an open project's contents (c, a
   * thinned answer), or null until they come: the first call asks the
   * source, and their arrival draws the selection's edges.
   */
  private wholeEdgesOf(project: string, c: GraphData): GEdge[] | null {
    const have = this.wholeEdges.get(c);
    if (have) return have === 'asked' ? null : have;
    const source = this.source;
    if (!source) return null;
    this.wholeEdges.set(c, 'asked');
    source.expand(project).then(
      (whole) => {
        this.wholeEdges.set(c, whole.edges);
        if (this.level !== 'projects' || this.focusView || this.contents.get(project) !== c) return;
        this.syncLevelEdges();
        this.baseEdges = this.graph.size;
        this.renderDetails();
        this.renderStatus();
        this.refresh();
      },
      () => this.wholeEdges.delete(c),
    );
    return null;
  }

  /**
   * syncLevelEdges puts levelEdges in the graph: it adds what is missing,
   * and when some edge must go (a new selection in a thinned project), it
   * clears the edges and adds them again, one event for sigma instead of
   * a whole re-index per edge dropped.
   */
  private syncLevelEdges(): void {
    const edges = this.levelEdges();
    const keys = new Set(edges.map(edgeKey));
    let clear = false;
    this.graph.forEachEdge((k) => void (clear ||= !keys.has(k)));
    if (clear) this.graph.clearEdges();
    for (const e of edges) {
      const k = this.addEdge(e);
      if (k) this.graph.mergeEdgeAttributes(k, { size: 1, color: LEVEL_EDGE });
    }
  }

  /** refocus changes how far a focus reaches. */
  private refocus(id: string, hops: number): void {
    if (this.focusView) void this.focusAround(id, hops);
    else this.setFocus(id, hops);
  }

  /** focusAround shows a node and what lies within hops of it in the project level's place. */
  private async focusAround(id: string, hops: number): Promise<void> {
    const n = this.lookup(id);
    if (!n || !this.source) return;
    const data = await this.source.around(n, hops);
    if (!data || this.level !== 'projects') return;
    const cam = this.focusView?.camera ?? this.renderer?.sigma.getCamera().getState() ?? { x: 0.5, y: 0.5, ratio: 1 };
    this.focusView = { id, hops, camera: { x: cam.x, y: cam.y, ratio: cam.ratio } };
    this.hops = hops;
    this.graph.clear();
    this.raw.clear();
    this.circles.clear();
    this.renderer?.setLevel('all');
    this.renderer?.setCompounds([]);
    this.renderer?.unfreezeFrame();
    this.saved.knowledge = null;
    this.apply(data, 'knowledge', { keep: false });
    this.selected = this.graph.hasNode(id) ? id : null;
    this.focusId = this.selected;
    this.renderDetails();
    this.renderStatus();
    this.refresh();
  }

  /** leaveFocusView goes back from a focus to the project level, as it was. */
  private leaveFocusView(): void {
    const f = this.focusView;
    if (!f) return;
    this.stopLayout();
    this.focusView = null;
    this.focusId = null;
    this.focus = null;
    this.level = 'projects';
    this.renderer?.unfreezeFrame();
    this.renderProjects(false);
    this.renderer?.jump(f.camera);
    if (this.selected && !this.graph.hasNode(this.selected)) this.selected = null;
    this.renderDetails();
  }

  /** forcedLabels are the labels placed first: the selection, then a focus's root, then search matches. */
  private forcedLabels(): string[] {
    const out: string[] = [];
    if (this.selected) out.push(this.selected);
    if (this.focusId && this.focusId !== this.selected) out.push(this.focusId);
    if (this.matches && this.matches.size <= 40) out.push(...[...this.matches].sort());
    return out;
  }

  /**
   * setFocus dims all but a node and what lies within this.hops edges of
   * it (null: no focus). On the project level, where most nodes are not
   * loaded, the neighbourhood is asked of the source and shown in the
   * project level's place until the focus is cleared.
   */
  setFocus(id: string | null, hops = this.hops): void {
    this.hops = hops;
    if (id !== null && this.level === 'projects' && !this.focusView) {
      void this.focusAround(id, hops);
      return;
    }
    if (id === null && this.focusView) {
      this.leaveFocusView();
      return;
    }
    if (id === null || !this.graph.hasNode(id)) {
      this.focusId = null;
      this.focus = null;
    } else {
      this.focusId = id;
      this.focus = this.neighbourhood(id, hops);
      this.selected = id;
      this.renderer?.fit(this.focus);
    }
    this.renderDetails();
    this.renderStatus();
    this.refresh();
  }

  get focused(): boolean {
    return this.focus !== null || this.focusView !== null;
  }

  toggleKind(kind: string): void {
    if (this.hiddenKinds.has(kind)) this.hiddenKinds.delete(kind);
    else this.hiddenKinds.add(kind);
    this.renderLegend();
    this.refresh();
  }

  /**
   * setMatches highlights a set of nodes (null: no search); listed are the
   * results to list, when they are more than those highlighted.
   */
  setMatches(ids: Set<string> | null, fit = true, listed?: string[]): void {
    this.matches = ids;
    this.listed = listed ?? (ids ? [...ids].sort() : null);
    this.renderer?.setForcedLabels(this.forcedLabels());
    this.renderResults();
    this.renderStatus();
    this.refresh();
    if (ids && ids.size > 0 && fit) this.renderer?.fit(ids);
  }

  /**
   * setSearchResult shows a select= answer: its nodes are highlighted, and
   * nodes the view does not hold (symbols, for instance) join it for as
   * long as the search stands. In the target view only targets join. On
   * the project level nothing joins: the projects holding what was found
   * are highlighted, and the list of results opens each in its project.
   */
  setSearchResult(result: GraphData, query = ''): void {
    this.dropExtras();
    this.found.clear();
    // What the query's terms select is listed before the neighbours the
    // answer adds around it.
    const seeds = query ? querySeeds(query, result.nodes) : new Set<string>();
    const byRank = (ids: string[]) => [...ids].sort((a, b) => Number(seeds.has(b)) - Number(seeds.has(a)) || (a < b ? -1 : a > b ? 1 : 0));
    if (this.level === 'projects' && !this.focusView) {
      const ids = new Set<string>();
      for (const n of result.nodes) {
        this.found.set(n.id, n);
        if (this.graph.hasNode(n.id)) ids.add(n.id);
        if (n.project && this.graph.hasNode(`project:${n.project}`)) ids.add(`project:${n.project}`);
      }
      this.setMatches(ids, false, byRank(result.nodes.map((n) => n.id)));
      return;
    }
    const added: string[] = [];
    const unique = uniqueNames([...this.raw.values(), ...result.nodes]);
    for (const n of result.nodes) {
      if (this.graph.hasNode(n.id)) continue;
      if (this.view === 'targets' && n.kind !== 'target') continue;
      this.raw.set(n.id, n);
      this.graph.addNode(n.id, { x: 0, y: 0, size: nodeSize(n.kind, 0), color: kindColor(n.kind), label: unique.get(n.id) ?? nodeLabel(n), kind: n.kind });
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
    this.setMatches(ids, true, byRank([...ids]));
  }

  /**
   * setSnapshotMatches shows a snapshot search: ids of the whole graph
   * (nodes: where to find them when the view does not show them).
   */
  setSnapshotMatches(ids: Set<string>, nodes: (id: string) => GNode | undefined): void {
    if (this.level !== 'projects' || this.focusView) {
      this.setMatches(ids);
      return;
    }
    this.found.clear();
    const shown = new Set<string>();
    for (const id of ids) {
      const n = nodes(id);
      if (n) this.found.set(id, n);
      if (this.graph.hasNode(id)) shown.add(id);
      if (n?.project && this.graph.hasNode(`project:${n.project}`)) shown.add(`project:${n.project}`);
    }
    this.setMatches(shown, false, [...ids].sort());
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
    this.listed = null;
    this.found.clear();
    this.renderer?.setForcedLabels(this.forcedLabels());
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
    this.leaveProjects();
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
    if (!this.matches || !this.listed) {
      el.replaceChildren();
      show(el, false);
      return;
    }
    const ids = [...new Set(this.listed)];
    const shown = ids.slice(0, RESULT_CAP);
    // Each result says where it is: a file's path, so that four index.ts
    // read as four places.
    const unique = uniqueNames(shown.map((id) => this.lookup(id)).filter((n): n is GNode => !!n));
    const list = shown.map((id) => {
      const li = h('li', {}, this.nodeButton(id, unique.get(id)));
      const focus = h('button', { type: 'button', className: 'node-focus', text: '◎', title: `Focus on it and what lies within ${this.hops} hop${this.hops === 1 ? '' : 's'}` });
      focus.setAttribute('aria-label', `Focus on ${id}`);
      focus.addEventListener('click', () => this.focusFromList(id));
      li.append(focus);
      return li;
    });
    const more = ids.length > RESULT_CAP ? h('li', { className: 'more', text: `… and ${ids.length - RESULT_CAP} more` }) : null;
    el.replaceChildren(
      h('p', { className: 'result-count', text: ids.length === 1 ? '1 match' : `${ids.length} matches` }),
      h('ul', {}, ...list, more),
    );
    show(el, true);
  }

  /** focusFromList focuses a search result, bringing it in first when the view does not show it. */
  private focusFromList(id: string): void {
    if (this.graph.hasNode(id) || this.level !== 'projects') {
      this.setFocus(id);
      return;
    }
    void this.focusAround(id, this.hops);
  }

  /** nodeButton is a node as a button that selects it: its label, and its path when it has one. */
  private nodeButton(id: string, label?: string): HTMLButtonElement {
    const n = this.lookup(id);
    const b = h(
      'button',
      { className: 'node-link', type: 'button', title: id },
      h('span', { className: `swatch kind-${n?.kind ?? 'unknown'}` }),
      h('span', { className: 'node-name', text: label ?? (n ? nodeLabel(n) : id) }),
    );
    // Where it is: a file's, doc's or symbol's path, a package's import
    // path, a target's project.
    let where = '';
    if (n?.path && (n.kind === 'file' || n.kind === 'doc' || n.kind === 'symbol')) where = n.path;
    else if (n?.kind === 'package' && n.id.startsWith('package:') && n.id.slice(8) !== n.name) where = n.id.slice(8);
    else if (n?.kind === 'target') where = n.project ?? '';
    if (where) b.append(h('span', { className: 'node-path', text: where }));
    b.addEventListener('click', () => this.selectAndShow(id));
    return b;
  }

  private renderStatus(): void {
    core.nodes = this.baseNodes;
    core.edges = this.baseEdges;
    const parts: string[] = [];
    if (this.level === 'projects' && this.focusView) {
      parts.push(`focus: ${this.focusView.id}, ${this.focusView.hops} hop${this.focusView.hops === 1 ? '' : 's'}: ${this.baseNodes} nodes, ${this.baseEdges} edges (Esc: back to the projects)`);
    } else if (this.level === 'projects') {
      const projects = this.projectData?.nodes.filter((n) => n.kind === 'project').length ?? 0;
      parts.push(`${projects} projects of ${this.totalNodes.toLocaleString('en-US')} nodes`);
      if (this.contents.size > 0) parts.push(`${this.contents.size} open: ${[...this.contents.keys()].join(', ')}`);
      parts.push(`${this.baseNodes} nodes, ${this.baseEdges} edges shown`);
      for (const [p, n] of this.thinned) parts.push(`${n.toLocaleString('en-US')} edges inside ${p} not drawn (select a node for its own)`);
      if (this.expanding.size > 0) parts.push(`opening ${[...this.expanding].join(', ')}…`);
    } else {
      parts.push(`${this.baseNodes} nodes`, `${this.baseEdges} edges`);
    }
    if (this.extraNodes.size > 0) parts.push(`+${this.extraNodes.size} from search`);
    if (this.layoutRunning) parts.push('layout running…');
    if (this.focus && !this.focusView) parts.push(`focus: ${this.focusId}, ${this.hops} hop${this.hops === 1 ? '' : 's'}`);
    if (this.painting && this.affected) parts.push(`diff touches ${this.affected.size} nodes`);
    const line = [parts.join(' · ')];
    if (this.diagnostic) line.push(`workspace problem: ${this.diagnostic}`);
    this.els.status(line.join('  —  '));
  }

  /** holdsText says what a project owns: "52 files, 2 targets, 1 doc". */
  private holdsText(n: GNode): string {
    const plural: Record<string, string> = { file: 'files', target: 'targets', doc: 'docs', package: 'packages', symbol: 'symbols', spell: 'spells' };
    return Object.entries(n.holds ?? {})
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${v} ${v === 1 ? k : (plural[k] ?? k)}`)
      .join(', ');
  }

  /** compoundDetails are the details of a group or folder circle: where it is and what it holds. */
  private compoundDetails(c: Circle, n: GNode): HTMLElement[] {
    const children = [...this.circles.values()].filter((x) => x.parent === c.id);
    const ul = h('ul', { className: 'neighbours' });
    for (const x of children.slice(0, LIST_CAP)) ul.append(h('li', {}, this.nodeButton(x.id, x.role === 'group' || x.role === 'folder' ? `${x.name}/` : undefined)));
    if (children.length > LIST_CAP) ul.append(h('li', { className: 'more', text: `… and ${children.length - LIST_CAP} more` }));
    const dl = h('dl', {}, h('dt', { text: 'kind' }), h('dd', { text: n.kind === 'group' ? 'folder of projects' : 'folder' }), h('dt', { text: 'path' }), h('dd', { text: c.name }));
    return [dl, h('section', { className: 'edges' }, h('h3', { text: `Holds (${children.length})` }), ul)];
  }

  private renderDetails(): void {
    const el = this.els.details;
    const id = this.selected;
    const n = id ? this.raw.get(id) : undefined;
    if (!id || !n) {
      el.replaceChildren(...this.nothingSelected());
      return;
    }
    const circle = this.level === 'projects' ? this.circles.get(id) : undefined;
    const closeBtn = h('button', { type: 'button', className: 'close', text: 'Close', title: 'Close (Esc)' });
    closeBtn.addEventListener('click', () => this.select(null));
    if (circle && (n.kind === 'group' || n.kind === 'folder')) {
      el.replaceChildren(
        h('header', {}, h('span', { className: `swatch kind-${n.kind}` }), h('h2', { text: `${circle.name}/` })),
        h('div', { className: 'actions' }, closeBtn),
        ...this.compoundDetails(circle, n),
      );
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
      ['holds', n.kind === 'project' && n.holds ? this.holdsText(n) : undefined],
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

    // Focus: the node and what lies within 1, 2 or 3 hops of it.
    const focused = this.focusId === id || this.focusView?.id === id;
    const focusBtn = h('button', { type: 'button', className: 'focus', text: focused ? 'Clear focus' : 'Focus' });
    focusBtn.id = 'focus';
    focusBtn.title = focused ? 'Show everything again (Esc)' : `Show only this node and what lies within ${this.hops} hop${this.hops === 1 ? '' : 's'} of it`;
    focusBtn.addEventListener('click', () => this.setFocus(focused ? null : id, this.hops));
    const hopPick = h('select', { className: 'focus-hops', title: 'How far the focus reaches' }) as HTMLSelectElement;
    hopPick.setAttribute('aria-label', 'Hops');
    for (const k of FOCUS_HOPS) {
      const o = h('option', { text: `${k} hop${k === 1 ? '' : 's'}` });
      o.value = String(k);
      o.selected = k === this.hops;
      hopPick.append(o);
    }
    hopPick.addEventListener('change', () => {
      const k = Number(hopPick.value);
      if (focused) this.refocus(id, k);
      else this.hops = k;
      this.renderDetails();
    });
    const actions: HTMLElement[] = [focusBtn, hopPick];
    if (this.level === 'projects' && !this.focusView && n.kind === 'project') {
      const open = this.contents.has(n.name);
      const b = h('button', { type: 'button', className: 'expand', text: open ? 'Fold project' : 'Open project', title: open ? 'Show the project as one circle again' : 'Show its folders and files' });
      b.id = 'expand';
      b.addEventListener('click', () => (open ? this.collapse(n.name) : void this.expand(n.name)));
      actions.unshift(b);
    }

    el.replaceChildren(
      h('header', {}, h('span', { className: `swatch kind-${n.kind}` }), h('h2', { text: (this.graph.hasNode(id) && this.graph.getNodeAttribute(id, 'label')) || nodeLabel(n) })),
      h('div', { className: 'actions' }, ...actions, closeBtn),
      dl,
      ...sections,
      edgeSection('Edges out', out),
      edgeSection('Edges in', inc),
    );
  }

  /**
   * nothingSelected is what the details panel says with no selection: how
   * to fill it. The panel keeps its place then, so that a selection does
   * not narrow the graph: a narrower graph means new canvases, and sigma
   * drawing everything again into them (about 50 ms of software WebGL a
   * click, BENCHMARKS.md, Explorer), and the picture moving sideways.
   */
  private nothingSelected(): HTMLElement[] {
    const hints = [
      this.level === 'projects' && !this.focusView
        ? 'Click a project to open it into its folders and files, and any node or circle to see what it is and what it connects to.'
        : 'Click a node to see what it is and what it connects to.',
      'Double-click a node to focus on it and what lies near it.',
      'Esc leaves a focus, then clears the selection.',
    ];
    return [h('header', {}, h('h2', { text: 'Nothing selected' })), ...hints.map((text) => h('p', { className: 'hint', text }))];
  }

  private edgesByKind(id: string, dir: 'in' | 'out'): Map<string, Neighbour[]> {
    const groups = new Map<string, Neighbour[]>();
    if (!this.graph.hasNode(id)) return groups;
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

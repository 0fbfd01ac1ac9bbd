// The sigma.js (WebGL) view of the explorer's graphology graph. Everything
// per node happens in the reducers, which sigma runs on a refresh (a state
// change), never per frame; camera moves only re-render.
//
// Two layers are ours: the compound circles of the project level (groups,
// folders, expanded projects), drawn on a canvas under sigma's edges, and
// the labels, drawn after each render by a pass that places them most
// important first and keeps a label only where it overlaps none placed
// (sigma's own label grid lets neighbouring cells collide).

import Sigma from 'sigma';
import { EdgeLineProgram, NodePointProgram, drawDiscNodeHover } from 'sigma/rendering';
import type { CameraState, Coordinates, EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import type { MultiDirectedGraph } from 'graphology';
import { SnapshotPan } from './pan';
import { core } from './core';
import { LabelBoxes, type Box } from './labels';

export interface NodeAttrs {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  kind: string;
  zIndex?: number;
  /** The sigma program that draws it: 'point' for the many small nodes of an open project (default: a disc). */
  type?: string;
}

export interface EdgeAttrs {
  kind: string;
  color: string;
  size: number;
  type?: string;
  via?: string;
}

export type ExplorerGraph = MultiDirectedGraph<NodeAttrs, EdgeAttrs>;

/** A compound circle of the project level, in graph coordinates. */
export interface Compound {
  id: string;
  x: number;
  y: number;
  r: number;
  label: string;
  fill: string;
  stroke: string;
  /** Its label starts this many pixels lower (an expanded project's node sits on its top). */
  labelDrop?: number;
}

/** Captioned is a node's display data with its label kept aside (see the nodeReducer). */
interface Captioned {
  caption?: string;
}

export interface RendererHooks {
  nodeReducer(node: string, data: NodeAttrs & Partial<NodeDisplayData>): Partial<NodeDisplayData>;
  edgeReducer(edge: string, data: EdgeAttrs & Partial<EdgeDisplayData>): Partial<EdgeDisplayData>;
  click(node: string): void;
  doubleClick(node: string): void;
  /** clickStage: a click on no node, at a point of the graph (graph coordinates). */
  clickStage(at: Coordinates): void;
  /** busy: the layout is still moving the nodes (no frame is at rest). */
  busy(): boolean;
}

/** The ids of the nodes warmUp draws for a moment (no node id of the graph's starts with a NUL). */
const WARM = '\u0000warm:';

const LABEL_FONT = 'system-ui, sans-serif';
const LABEL_SIZE = 12;
/** At most this many labels a frame, and this many candidates looked at. */
const MAX_LABELS = 400;
const MAX_SCANNED = 6000;
/** A label cut to the room before its neighbour keeps at least this much (px), or is not drawn. */
const MIN_CUT_LABEL = 30;
/** Two clicks further apart than this (px) are two clicks, never a double click. */
const DOUBLE_CLICK_SLOP = 6;
/** A compound circle is labelled once it is this wide on screen (px). */
const COMPOUND_LABEL_MIN = 36;

export class Renderer {
  readonly sigma: Sigma<NodeAttrs, EdgeAttrs>;
  private readonly pan: SnapshotPan<NodeAttrs, EdgeAttrs>;
  private readonly compoundCanvas: HTMLCanvasElement;
  private compounds: Compound[] = [];
  private forced: string[] = [];
  private order: string[] = [];
  private orderStale = true;
  private labelThreshold = 7;
  private readonly boxes = new LabelBoxes();
  private readonly widths = new Map<string, number>();
  private measure: CanvasRenderingContext2D | null = null;
  private level: 'projects' | 'all' = 'all';
  private labelRoom: number | null = null;
  /** The settings tune last gave sigma. */
  private tuned = '';
  /** warmUp's state: not yet asked, asked for the next idle moment, done. */
  private warm: 'cold' | 'asked' | 'done' = 'cold';

  constructor(
    private readonly container: HTMLElement,
    private readonly graph: ExplorerGraph,
    private readonly hooks: RendererHooks,
  ) {
    this.sigma = new Sigma<NodeAttrs, EdgeAttrs>(graph, container, {
      allowInvalidContainer: true,
      renderEdgeLabels: false,
      // The labels are ours (drawLabels): placed without overlaps.
      renderLabels: false,
      enableEdgeEvents: false,
      labelFont: LABEL_FONT,
      labelSize: LABEL_SIZE,
      defaultEdgeType: 'line',
      // 'thin': one-pixel GL lines, far cheaper than the default quads,
      // for graphs with very many edges, and of one width at any zoom.
      edgeProgramClasses: { thin: EdgeLineProgram },
      // 'point': a node as one GL point, not an instanced triangle. The
      // browser tests' software WebGL (SwiftShader) draws instances one by
      // one at a cost per node; an open project's thousands of files drew
      // many times slower as triangles than as points (BENCHMARKS.md,
      // Explorer). A point is clipped by its centre, which a small node
      // leaving the screen does not show.
      nodeProgramClasses: { point: NodePointProgram },
      // A hover draws the node and its label in a box, over other labels.
      defaultDrawNodeHover: (ctx, data, settings) => drawDiscNodeHover(ctx, { ...data, label: (data as Captioned).caption || null }, settings),
      minCameraRatio: 0.005,
      maxCameraRatio: 4,
      zIndex: false,
      // The label goes to caption: sigma adds every node with a label to
      // a grid of its own, at each indexing, for labels it does not draw.
      nodeReducer: (n, d) => {
        if (n.startsWith(WARM)) return { ...d, highlighted: true, label: null };
        const out = hooks.nodeReducer(n, d as NodeAttrs & Partial<NodeDisplayData>) as Partial<NodeDisplayData> & Captioned;
        out.caption = out.label ?? '';
        out.label = null;
        return out;
      },
      edgeReducer: (e, d) => (e.startsWith(WARM) ? d : hooks.edgeReducer(e, d as EdgeAttrs & Partial<EdgeDisplayData>)),
    });
    this.compoundCanvas = this.sigma.createCanvas('compounds', { beforeLayer: 'edges' });
    this.compoundCanvas.classList.add('sigma-compounds');
    this.pan = new SnapshotPan(this.sigma, container);
    this.sigma.getCamera().on('updated', (s) => {
      core.camera = { x: s.x, y: s.y, ratio: s.ratio };
      core.settled = false;
    });
    this.sigma.on('afterRender', () => {
      this.drawCompounds();
      this.drawLabels();
      if (this.warm === 'cold' && this.level === 'projects' && this.graph.order > 0) this.askWarmUp();
    });
    this.sigma.on('clickNode', ({ node }) => {
      if (!this.pan.consumeClick()) hooks.click(node);
    });
    this.sigma.on('doubleClickNode', (e) => {
      e.preventSigmaDefault();
      if (!this.pan.consumeClick()) hooks.doubleClick(e.node);
    });
    this.sigma.on('doubleClickStage', (e) => {
      if (this.pan.consumeClick() || this.level === 'projects') e.preventSigmaDefault();
    });
    this.sigma.on('clickStage', ({ event }) => {
      if (!this.pan.consumeClick()) hooks.clickStage(this.sigma.viewportToGraph({ x: event.x, y: event.y }));
    });
    // Sigma takes any two clicks within its timeout for a double click,
    // wherever they land; the browser takes only two on one spot. A click
    // away from the one before starts afresh: open a project, then at
    // once click one of its files, and the file is selected, not focused.
    let lastClick = { x: NaN, y: NaN };
    container.addEventListener(
      'click',
      (e) => {
        if (!(Math.hypot(e.clientX - lastClick.x, e.clientY - lastClick.y) <= DOUBLE_CLICK_SLOP)) this.sigma.getMouseCaptor().clicks = 0;
        lastClick = { x: e.clientX, y: e.clientY };
      },
      true,
    );
    this.sigma.on('enterNode', () => container.classList.add('pointer'));
    this.sigma.on('leaveNode', () => container.classList.remove('pointer'));
    this.watch(graph);
  }

  /** watch notes the changes to a graph that reorder its labels. */
  private watch(graph: ExplorerGraph): void {
    const stale = () => {
      this.orderStale = true;
      core.settled = false;
    };
    graph.on('nodeAdded', stale);
    graph.on('nodeDropped', stale);
    graph.on('cleared', stale);
    graph.on('nodeAttributesUpdated', (e) => {
      if (e.type !== 'set' || e.name === 'size') this.orderStale = true;
      core.settled = false;
    });
    graph.on('eachNodeAttributesUpdated', () => (core.settled = false));
    graph.on('edgeAdded', () => (core.settled = false));
    graph.on('edgesCleared', () => (core.settled = false));
  }

  /** tune adapts costly settings to the graph's size. */
  tune(order: number, size: number, arrows: boolean): void {
    // A drag or the wheel moves a picture of the graph once a redraw costs
    // more than a frame (measured: 1k nodes and 3k edges redraw at 19
    // frames/s in software WebGL).
    this.pan.enabled = order + size > 2000;
    const projects = this.level === 'projects';
    // Small graphs get every label there is room for; big ones only when
    // zoomed in (or hovered); the project level's circles are labelled
    // once they are a few pixels wide.
    this.labelThreshold = projects ? 4 : order <= 300 ? 1 : 7;
    const hideEdgesOnMove = size > 2000;
    const hideLabelsOnMove = order > 2000;
    const defaultEdgeType = projects || size > 20000 ? 'thin' : arrows ? 'arrow' : 'line';
    // Settings that change nothing are not set again: sigma answers each
    // setSettings by indexing the whole graph again.
    const key = `${hideEdgesOnMove} ${hideLabelsOnMove} ${defaultEdgeType} ${projects}`;
    if (key === this.tuned) return;
    this.tuned = key;
    this.sigma.setSettings({
      // While the camera moves, edges and labels of a big graph are left
      // out: panning and zooming stay fluid, and they return when it stops.
      hideEdgesOnMove,
      hideLabelsOnMove,
      defaultEdgeType,
      // The project level's sizes are radii in graph units, so that a
      // file stays inside its folder's circle at every zoom.
      itemSizesReference: projects ? 'positions' : 'screen',
      zoomToSizeRatioFunction: projects ? (r: number) => r : Math.sqrt,
      zIndex: projects,
    });
    this.orderStale = true;
  }

  /** setLevel says how the graph is laid out: packed circles (projects) or a force layout (all). */
  setLevel(level: 'projects' | 'all'): void {
    this.level = level;
    if (level === 'all') this.compounds = [];
  }

  /**
   * setLabelRoom says how far apart, in graph units, neighbours sit in a
   * row of the layout (the target graph's layers), or null when the
   * layout has no rows. A label longer than the room to the next node is
   * cut with an ellipsis instead of running over its neighbours' dots;
   * the node's hover and details show it whole.
   */
  setLabelRoom(units: number | null): void {
    this.labelRoom = units;
  }

  /** setCompounds gives the circles drawn under the nodes (outermost first). */
  setCompounds(compounds: Compound[]): void {
    this.compounds = compounds;
  }

  /** setForcedLabels names the labels placed before any other, in order (the selection first). */
  setForcedLabels(ids: string[]): void {
    this.forced = ids;
  }

  /**
   * quietly runs fn, which adds nodes and edges and changes attributes
   * but drops no node, with sigma's graph listeners off; the caller then
   * refreshes, which indexes the whole graph once. Listening, sigma
   * indexes each node added as it comes (its reducer twice), and the
   * refresh after does every node again. A node dropped must be heard:
   * sigma keeps the hovered node (edges are not hovered here).
   */
  quietly(fn: () => void): void {
    const s = this.sigma as unknown as { unbindGraphHandlers(): void; bindGraphHandlers(): void };
    s.unbindGraphHandlers();
    try {
      fn();
    } finally {
      s.bindGraphHandlers();
    }
  }

  refresh(): void {
    core.settled = false;
    this.sigma.refresh();
  }

  scheduleRefresh(): void {
    core.settled = false;
    this.sigma.scheduleRefresh();
  }

  /** freezeFrame fixes the normalisation box so nodes that arrive later do not move the view. */
  freezeFrame(): void {
    this.sigma.refresh();
    const bbox = this.sigma.getBBox();
    this.sigma.setCustomBBox({ x: [...bbox.x] as [number, number], y: [...bbox.y] as [number, number] });
  }

  /** frame fixes the normalisation box to a region of the graph (the project level's outer circles). */
  frame(minX: number, maxX: number, minY: number, maxY: number): void {
    this.sigma.setCustomBBox({ x: [minX, maxX], y: [minY, maxY] });
  }

  unfreezeFrame(): void {
    this.sigma.setCustomBBox(null);
  }

  resetCamera(): void {
    this.jump({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
  }

  /**
   * jump puts the camera somewhere at once. A camera animation still
   * running (a fit or a centring begun just before) would otherwise go on
   * over it and leave the camera at its own end, where a new view may
   * show nothing: it is replaced by one that stays where the jump landed.
   */
  jump(state: Partial<CameraState>): void {
    this.pan.settle();
    const cam = this.sigma.getCamera();
    cam.setState(state);
    if (cam.isAnimated()) void cam.animate(cam.getState(), { duration: 1 });
  }

  /** fit moves the camera onto a set of nodes. */
  fit(ids: Iterable<string>): void {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    let count = 0;
    for (const id of ids) {
      const d = this.framed(id);
      if (!d) continue;
      count++;
      minX = Math.min(minX, d.x);
      maxX = Math.max(maxX, d.x);
      minY = Math.min(minY, d.y);
      maxY = Math.max(maxY, d.y);
    }
    if (count === 0) return;
    this.pan.settle();
    const ratio = Math.min(1.2, Math.max(0.2, Math.max(maxX - minX, maxY - minY) * 1.4));
    void this.sigma.getCamera().animate({ x: (minX + maxX) / 2, y: (minY + maxY) / 2, ratio }, { duration: 400 });
  }

  /** fitCircle moves the camera onto a circle of the graph (an expanded project). */
  fitCircle(x: number, y: number, r: number, duration = 400): void {
    const a = this.sigma.viewportToFramedGraph(this.sigma.graphToViewport({ x: x - r, y: y - r }));
    const b = this.sigma.viewportToFramedGraph(this.sigma.graphToViewport({ x: x + r, y: y + r }));
    const cam = this.sigma.getCamera();
    const span = Math.max(Math.abs(b.x - a.x), Math.abs(b.y - a.y));
    const ratio = Math.min(1.2, Math.max(0.01, span * 1.15 * cam.ratio));
    this.pan.settle();
    const c = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    if (duration === 0) this.jump({ ...c, ratio });
    else void cam.animate({ ...c, ratio }, { duration });
  }

  /**
   * framed is a node's position in the camera's (normalised) space, read
   * from the graph: sigma's display cache holds raw positions between a
   * refresh and the next render.
   */
  private framed(id: string): { x: number; y: number } | null {
    const g = this.sigma.getGraph();
    if (!g.hasNode(id)) return null;
    const a = g.getNodeAttributes(id);
    return this.sigma.viewportToFramedGraph(this.sigma.graphToViewport({ x: a.x, y: a.y }));
  }

  centerOn(id: string): void {
    const d = this.framed(id);
    if (!d) return;
    this.pan.settle();
    const cam = this.sigma.getCamera();
    void cam.animate({ x: d.x, y: d.y, ratio: Math.min(cam.ratio, 0.35) }, { duration: 350 });
  }

  /** askWarmUp runs warmUp at the page's next idle moment. */
  private askWarmUp(): void {
    this.warm = 'asked';
    const run = () => {
      if (this.warm !== 'asked') return;
      this.warm = 'done';
      this.warmUp();
    };
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 2000 });
    else setTimeout(run, 200);
  }

  /**
   * warmUp draws, once and unseen, what the first opening of a project
   * draws that the project level has not: its files as GL points, and
   * the selected node again on sigma's hover layer. Software WebGL
   * (SwiftShader, as in the browser tests) compiles a program's pipeline
   * at its first draw in each context, and the first opening paid that
   * at the click: 60 to 90 ms of its frame (BENCHMARKS.md, Explorer).
   * Two transparent nodes of a pixel and an edge between them are drawn
   * and dropped in one task, so no frame ever shows them.
   */
  private warmUp(): void {
    const g = this.graph;
    if (g.order === 0 || g.someNode((_id, a) => a.type === 'point')) return;
    const at = g.getNodeAttributes(g.nodes()[0]!);
    const nothing = { x: at.x, y: at.y, size: 1, color: 'rgba(0,0,0,0)', label: '', kind: 'warm' };
    const ids = [`${WARM}point`, `${WARM}disc`] as const;
    try {
      g.addNode(ids[0], { ...nothing, type: 'point' });
      g.addNode(ids[1], nothing);
      g.addEdgeWithKey(`${WARM}edge`, ids[0], ids[1], { kind: 'warm', color: 'rgba(0,0,0,0)', size: 1 });
      this.sigma.refresh();
    } finally {
      for (const id of ids) if (g.hasNode(id)) g.dropNode(id);
    }
    this.sigma.refresh();
  }

  kill(): void {
    this.warm = 'done';
    this.pan.kill();
    this.sigma.kill();
    this.container.replaceChildren();
  }

  // ---- our layers ---------------------------------------------------------

  /** radiusOnScreen is a length of the graph (at x, y) in CSS pixels. */
  private onScreen(x: number, y: number, r: number): { x: number; y: number; r: number } {
    const c = this.sigma.graphToViewport({ x, y });
    const e = this.sigma.graphToViewport({ x: x + r, y });
    return { x: c.x, y: c.y, r: Math.hypot(e.x - c.x, e.y - c.y) };
  }

  private drawCompounds(): void {
    const canvas = this.compoundCanvas;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const { width, height } = this.sigma.getDimensions();
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    for (const c of this.compounds) {
      const s = this.onScreen(c.x, c.y, c.r);
      if (s.x + s.r < 0 || s.x - s.r > width || s.y + s.r < 0 || s.y - s.r > height || s.r < 1) continue;
      ctx.beginPath();
      ctx.arc(s.x, s.y, s.r, 0, Math.PI * 2);
      ctx.fillStyle = c.fill;
      ctx.fill();
      ctx.lineWidth = 1;
      ctx.strokeStyle = c.stroke;
      ctx.stroke();
    }
  }

  private textWidth(ctx: CanvasRenderingContext2D, text: string, font: string): number {
    const key = `${font}\u0000${text}`;
    let w = this.widths.get(key);
    if (w === undefined) {
      ctx.font = font;
      w = ctx.measureText(text).width;
      if (this.widths.size > 50_000) this.widths.clear();
      this.widths.set(key, w);
    }
    return w;
  }

  /**
   * sortOrder ranks the graph's nodes for labels: the biggest first, then
   * by id. Nodes of one score (an open project's thousands of files) are
   * sorted by the engine's own string order, not through a comparator.
   */
  private sortOrder(): void {
    const byScore = new Map<number, string[]>();
    this.graph.forEachNode((id, a) => {
      const score = a.size + (a.kind === 'project' ? 1000 : 0) + Math.min(10, this.graph.degree(id)) / 100;
      let l = byScore.get(score);
      if (!l) byScore.set(score, (l = []));
      l.push(id);
    });
    const order: string[] = [];
    for (const score of [...byScore.keys()].sort((a, b) => b - a)) for (const id of byScore.get(score)!.sort()) order.push(id);
    this.order = order;
    this.orderStale = false;
  }

  /**
   * drawLabels places labels most important first: the compound circles'
   * names (inside their top), the forced labels (the selection, search
   * matches, a focus), then nodes by size; each where it overlaps no label
   * placed before it, or not at all. What it placed is in
   * window.__core.labels (boxes in CSS pixels, from the graph's top left).
   */
  private drawLabels(): void {
    const canvas = this.sigma.getCanvases().labels;
    const ctx = canvas?.getContext('2d');
    this.boxes.clear();
    core.labels = [];
    const cam = this.sigma.getCamera();
    core.settled = !cam.isAnimated() && !this.hooks.busy();
    if (!ctx || this.graph.order === 0) return;
    if (this.sigma.getSetting('hideLabelsOnMove') && cam.isAnimated()) return;
    if (this.orderStale) this.sortOrder();
    const { width, height } = this.sigma.getDimensions();
    const font = `${LABEL_SIZE}px ${LABEL_FONT}`;
    const bold = `600 ${LABEL_SIZE}px ${LABEL_FONT}`;
    const onScreen = (b: Box) => b.x >= 0 && b.y >= 0 && b.x + b.w <= width && b.y + b.h <= height;
    const draw = (text: string, x: number, y: number, f: string) => {
      ctx.font = f;
      ctx.lineWidth = 3;
      ctx.strokeStyle = 'rgba(255,255,255,0.9)';
      ctx.strokeText(text, x, y);
      ctx.fillStyle = '#1d2433';
      ctx.fillText(text, x, y);
    };

    // Compound circles, outermost first, named inside their top.
    for (const c of this.compounds) {
      const s = this.onScreen(c.x, c.y, c.r);
      if (s.r * 2 < COMPOUND_LABEL_MIN) continue;
      const w = Math.min(this.textWidth(ctx, c.label, bold), s.r * 1.6);
      const box = { x: s.x - w / 2 - 2, y: s.y - s.r + 4 + (c.labelDrop ?? 0), w: w + 4, h: LABEL_SIZE + 4 };
      if (!onScreen(box) || !this.boxes.offer(box, c.id, c.label)) continue;
      draw(fit(ctx, c.label, w, bold), box.x + 2, box.y + LABEL_SIZE, bold);
    }

    // Nodes: the forced ones first, then the rest by size, those on screen
    // (the graph's region the viewport shows, with a margin).
    const m = 40;
    const corners = [
      this.sigma.viewportToGraph({ x: -m, y: -m }),
      this.sigma.viewportToGraph({ x: width + m, y: height + m }),
      this.sigma.viewportToGraph({ x: -m, y: height + m }),
      this.sigma.viewportToGraph({ x: width + m, y: -m }),
    ];
    const minX = Math.min(...corners.map((c) => c.x));
    const maxX = Math.max(...corners.map((c) => c.x));
    const minY = Math.min(...corners.map((c) => c.y));
    const maxY = Math.max(...corners.map((c) => c.y));
    const seen = new Set<string>();
    let scanned = 0;
    // The room a label has before the next node of its row, in pixels.
    let room = Infinity;
    if (this.labelRoom !== null) {
      const a = this.sigma.graphToViewport({ x: 0, y: 0 });
      const b = this.sigma.graphToViewport({ x: this.labelRoom, y: 0 });
      room = Math.hypot(b.x - a.x, b.y - a.y);
    }
    const place = (id: string, forced: boolean): void => {
      if (seen.has(id) || !this.graph.hasNode(id)) return;
      seen.add(id);
      const d = this.sigma.getNodeDisplayData(id);
      const caption = d && (d as Captioned).caption;
      if (!d || d.hidden || !caption) return;
      const size = this.sigma.scaleSize(d.size);
      if (!forced && !d.forceLabel && size < this.labelThreshold) return;
      const p = this.sigma.framedGraphToViewport(d);
      if (p.x + size < 0 || p.x - size > width || p.y + size < 0 || p.y - size > height) return;
      const isProject = this.level === 'projects' && this.graph.getNodeAttribute(id, 'kind') === 'project';
      const f = isProject ? bold : font;
      let text = caption;
      let w = this.textWidth(ctx, text, f);
      // Up to the next node's dot, less a gap on either side.
      const fits = room - 2 * size - 8;
      if (w > fits && !forced) {
        if (fits < MIN_CUT_LABEL) return;
        text = fit(ctx, text, fits, f);
        w = this.textWidth(ctx, text, f);
      }
      // A project's circle is named across its middle; any other node to
      // its right, as sigma does.
      const box = isProject && size * 2 >= Math.min(w, 40)
        ? { x: p.x - w / 2 - 2, y: p.y - LABEL_SIZE / 2 - 2, w: w + 4, h: LABEL_SIZE + 4 }
        : { x: p.x + size + 2, y: p.y - LABEL_SIZE / 2 - 2, w: w + 4, h: LABEL_SIZE + 4 };
      if (!onScreen(box) || !this.boxes.offer(box, id, text)) return;
      draw(text, box.x + 2, box.y + LABEL_SIZE, f);
    };
    for (const id of this.forced) place(id, true);
    for (const id of this.order) {
      if (this.boxes.accepted.length >= MAX_LABELS || scanned >= MAX_SCANNED) break;
      const a = this.graph.getNodeAttributes(id);
      if (a.x < minX || a.x > maxX || a.y < minY || a.y > maxY) continue;
      scanned++;
      place(id, false);
    }
    core.labels = this.boxes.accepted.map((b) => ({ id: b.id, text: b.text, x: b.x, y: b.y, w: b.w, h: b.h }));
  }
}

/** fit cuts text to width with an ellipsis. */
function fit(ctx: CanvasRenderingContext2D, text: string, width: number, font: string): string {
  ctx.font = font;
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}

/** webglAvailable tells whether the browser can give sigma a WebGL context. */
export function webglAvailable(): boolean {
  try {
    const c = document.createElement('canvas');
    return !!(c.getContext('webgl2') || c.getContext('webgl'));
  } catch {
    return false;
  }
}

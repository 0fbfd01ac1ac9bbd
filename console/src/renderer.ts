// The sigma.js (WebGL) view of the explorer's graphology graph. Everything
// per node happens in the reducers, which sigma runs on a refresh (a state
// change), never per frame; camera moves only re-render.

import Sigma from 'sigma';
import { EdgeLineProgram } from 'sigma/rendering';
import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import type { MultiDirectedGraph } from 'graphology';
import { SnapshotPan } from './pan';
import { core } from './core';

export interface NodeAttrs {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  kind: string;
}

export interface EdgeAttrs {
  kind: string;
  color: string;
  size: number;
  type?: string;
  via?: string;
}

export type ExplorerGraph = MultiDirectedGraph<NodeAttrs, EdgeAttrs>;

export interface RendererHooks {
  nodeReducer(node: string, data: NodeAttrs & Partial<NodeDisplayData>): Partial<NodeDisplayData>;
  edgeReducer(edge: string, data: EdgeAttrs & Partial<EdgeDisplayData>): Partial<EdgeDisplayData>;
  click(node: string): void;
  doubleClick(node: string): void;
  clickStage(): void;
}

export class Renderer {
  readonly sigma: Sigma<NodeAttrs, EdgeAttrs>;
  private readonly pan: SnapshotPan<NodeAttrs, EdgeAttrs>;

  constructor(
    private readonly container: HTMLElement,
    graph: ExplorerGraph,
    hooks: RendererHooks,
  ) {
    this.sigma = new Sigma<NodeAttrs, EdgeAttrs>(graph, container, {
      allowInvalidContainer: true,
      renderEdgeLabels: false,
      enableEdgeEvents: false,
      labelRenderedSizeThreshold: 7,
      labelDensity: 0.8,
      labelGridCellSize: 90,
      labelFont: 'system-ui, sans-serif',
      labelSize: 12,
      defaultEdgeType: 'line',
      // 'thin': one-pixel GL lines, far cheaper than the default quads,
      // for graphs with very many edges.
      edgeProgramClasses: { thin: EdgeLineProgram },
      minCameraRatio: 0.005,
      maxCameraRatio: 4,
      zIndex: false,
      nodeReducer: (n, d) => hooks.nodeReducer(n, d as NodeAttrs & Partial<NodeDisplayData>),
      edgeReducer: (e, d) => hooks.edgeReducer(e, d as EdgeAttrs & Partial<EdgeDisplayData>),
    });
    this.pan = new SnapshotPan(this.sigma, container);
    this.sigma.getCamera().on('updated', (s) => (core.camera = { x: s.x, y: s.y, ratio: s.ratio }));
    this.sigma.on('clickNode', ({ node }) => {
      if (!this.pan.consumeClick()) hooks.click(node);
    });
    this.sigma.on('doubleClickNode', (e) => {
      e.preventSigmaDefault();
      if (!this.pan.consumeClick()) hooks.doubleClick(e.node);
    });
    this.sigma.on('doubleClickStage', (e) => {
      if (this.pan.consumeClick()) e.preventSigmaDefault();
    });
    this.sigma.on('clickStage', () => {
      if (!this.pan.consumeClick()) hooks.clickStage();
    });
    this.sigma.on('enterNode', () => container.classList.add('pointer'));
    this.sigma.on('leaveNode', () => container.classList.remove('pointer'));
  }

  /** tune adapts costly settings to the graph's size. */
  tune(order: number, size: number, arrows: boolean): void {
    // A drag or the wheel moves a picture of the graph once a redraw costs
    // more than a frame (measured: 1k nodes and 3k edges redraw at 19
    // frames/s in software WebGL).
    this.pan.enabled = order + size > 2000;
    this.sigma.setSettings({
      // While the camera moves, edges and labels of a big graph are left
      // out: panning and zooming stay fluid, and they return when it stops.
      hideEdgesOnMove: size > 2000,
      hideLabelsOnMove: order > 2000,
      defaultEdgeType: size > 20000 ? 'thin' : arrows ? 'arrow' : 'line',
      // Small graphs get every label the grid has room for; big ones only
      // when zoomed in (or hovered).
      labelRenderedSizeThreshold: order <= 300 ? 1 : 7,
    });
  }

  refresh(): void {
    this.sigma.refresh();
  }

  scheduleRefresh(): void {
    this.sigma.scheduleRefresh();
  }

  /** freezeFrame fixes the normalisation box so nodes that arrive later do not move the view. */
  freezeFrame(): void {
    this.sigma.refresh();
    const bbox = this.sigma.getBBox();
    this.sigma.setCustomBBox({ x: [...bbox.x] as [number, number], y: [...bbox.y] as [number, number] });
  }

  unfreezeFrame(): void {
    this.sigma.setCustomBBox(null);
  }

  resetCamera(): void {
    this.pan.settle();
    this.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
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

  kill(): void {
    this.pan.kill();
    this.sigma.kill();
    this.container.replaceChildren();
  }
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

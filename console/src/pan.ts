// Panning and zooming a big graph by moving a picture of it. Sigma redraws
// the whole graph on every camera move, which costs what the graph costs (in
// software WebGL, tens of microseconds a node); a CSS transform on the drawn
// canvases costs the compositor nothing, so a drag follows the mouse and a
// wheel zooms at display rate, and sigma draws once, where the gesture ends.
// What a gesture uncovers stays empty until then (and a zoomed-in picture is
// blurred), as on a tiled map.

import type Sigma from 'sigma';
import type { MouseCoords, WheelCoords } from 'sigma/types';
import type { Attributes } from 'graphology-types';

/** Below this distance (CSS pixels) a press and release is a click, not a drag. */
const clickSlop = 3;

/** How long after the last wheel step the zoom is drawn for real (ms). */
const zoomSettle = 200;

export class SnapshotPan<N extends Attributes, E extends Attributes> {
  /** enabled is set for graphs whose redraw is too slow to follow the mouse. */
  enabled = false;
  private from: { x: number; y: number } | null = null;
  private dx = 0;
  private dy = 0;
  private moved = false;
  private swallowClick = false;
  // The wheel's picture maps a point q of the drawn graph to t + k*q.
  private zoom: { k: number; tx: number; ty: number; timer: number } | null = null;

  constructor(
    private readonly sigma: Sigma<N, E>,
    private readonly container: HTMLElement,
  ) {
    const captor = sigma.getMouseCaptor();
    captor.on('mousedown', (e) => this.down(e));
    captor.on('mousemovebody', (e) => this.move(e));
    captor.on('mouseup', () => this.up());
    captor.on('wheel', (e) => this.wheel(e));
  }

  /** kill forgets a gesture under way: the renderer is going away. */
  kill(): void {
    if (this.zoom) clearTimeout(this.zoom.timer);
    this.zoom = null;
    this.from = null;
  }

  /**
   * settle ends a gesture before the camera is moved some other way (a
   * reset, a fit, centring on a node): a pending zoom lands, a drag under
   * way is dropped, and no layer stays moved.
   */
  settle(): void {
    this.endZoom();
    if (this.from) {
      this.from = null;
      this.shift('');
    }
  }

  /** consumeClick says whether a click is the tail of a drag, which selects nothing. */
  consumeClick(): boolean {
    return this.swallowClick;
  }

  private down(e: MouseCoords): void {
    if (!this.enabled || !('button' in e.original) || e.original.button !== 0) return;
    this.endZoom();
    this.shift(''); // a drag whose release was lost leaves nothing behind
    this.from = { x: e.x, y: e.y };
    this.dx = 0;
    this.dy = 0;
    this.moved = false;
  }

  private move(e: MouseCoords): void {
    if (!this.from) return;
    // The release can be lost (a context menu, the window losing focus):
    // a move with no button down ends the drag where it is.
    const released = 'buttons' in e.original && (e.original.buttons & 1) === 0;
    if (released || !this.sigma.getMouseCaptor().isMouseDown) {
      this.up();
      return;
    }
    e.preventSigmaDefault();
    this.dx = e.x - this.from.x;
    this.dy = e.y - this.from.y;
    if (!this.moved && Math.hypot(this.dx, this.dy) < clickSlop) return;
    this.moved = true;
    this.shift(`translate(${this.dx}px, ${this.dy}px)`);
  }

  private up(): void {
    const from = this.from;
    this.from = null;
    if (!from || !this.moved) return;
    // The camera moves by the drag's length in graph space; the picture
    // goes back in the same task as the redraw, so no frame shows both.
    const a = this.sigma.viewportToFramedGraph(from);
    const b = this.sigma.viewportToFramedGraph({ x: from.x + this.dx, y: from.y + this.dy });
    const camera = this.sigma.getCamera();
    const s = camera.getState();
    camera.setState({ x: s.x + a.x - b.x, y: s.y + a.y - b.y });
    this.shift('');
    // A render now, not at the next frame: an empty partial refresh that
    // skips indexation is sigma's public way to draw synchronously.
    this.sigma.refresh({ partialGraph: { nodes: [], edges: [] }, skipIndexation: true });
    this.swallowClick = true;
    setTimeout(() => {
      this.swallowClick = false;
      // Nor does the release count towards a double click.
      this.sigma.getMouseCaptor().clicks = 0;
    }, 0);
  }

  private wheel(e: WheelCoords): void {
    if (!this.enabled || !e.delta) return;
    // sigma 3.0.3's wheel coordinates are a copy whose preventSigmaDefault
    // marks the original: set the mark on the copy it reads.
    e.preventSigmaDefault();
    e.sigmaDefaultPrevented = true;
    if (this.from) return; // no zoom in the middle of a drag
    const camera = this.sigma.getCamera();
    const z = this.zoom ?? { k: 1, tx: 0, ty: 0, timer: 0 };
    // As sigma's own wheel: one step zooms by zoomingRatio, within the
    // camera's bounds.
    const step = this.sigma.getSetting('zoomingRatio');
    const ratio = camera.getState().ratio;
    const wanted = (ratio / z.k) * (e.delta > 0 ? 1 / step : step);
    const k = ratio / camera.getBoundedRatio(wanted);
    if (k !== z.k) {
      // Scaling by s about the cursor c: q -> c + s*(q - c).
      const sc = k / z.k;
      z.tx = e.x * (1 - sc) + sc * z.tx;
      z.ty = e.y * (1 - sc) + sc * z.ty;
      z.k = k;
      this.shift(`translate(${z.tx}px, ${z.ty}px) scale(${z.k})`);
    }
    clearTimeout(z.timer);
    z.timer = window.setTimeout(() => this.endZoom(), zoomSettle);
    this.zoom = z;
  }

  /** endZoom moves the camera to where the wheel's picture is and draws it. */
  private endZoom(): void {
    const z = this.zoom;
    this.zoom = null;
    if (!z) return;
    clearTimeout(z.timer);
    // The camera's centre is what the picture shows at the viewport's
    // centre v, the point (v - t) / k of the drawing (no division by 1 - k,
    // so a zoom that comes back to k = 1 keeps its translation).
    const camera = this.sigma.getCamera();
    const { width, height } = this.sigma.getDimensions();
    const c = this.sigma.viewportToFramedGraph({ x: (width / 2 - z.tx) / z.k, y: (height / 2 - z.ty) / z.k });
    camera.setState({ x: c.x, y: c.y, ratio: camera.getState().ratio / z.k });
    this.shift('');
    this.sigma.refresh({ partialGraph: { nodes: [], edges: [] }, skipIndexation: true });
  }

  /** shift moves every drawn layer; the mouse layer stays, it is where events land. */
  private shift(transform: string): void {
    for (const c of this.container.querySelectorAll<HTMLCanvasElement>('canvas')) {
      if (c.classList.contains('sigma-mouse')) continue;
      c.style.transformOrigin = '0 0';
      c.style.transform = transform;
    }
  }
}

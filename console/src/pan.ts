// Panning a big graph by moving a picture of it. Sigma redraws the whole
// graph on every camera move, which costs what the graph costs (in software
// WebGL, tens of microseconds a node); a CSS transform on the drawn canvases
// costs the compositor nothing, so the drag follows the mouse at display
// rate and sigma draws once, where the drag ends. What the drag uncovers
// stays empty until then, as on a tiled map.

import type Sigma from 'sigma';
import type { MouseCoords } from 'sigma/types';
import type { Attributes } from 'graphology-types';

/** Below this distance (CSS pixels) a press and release is a click, not a drag. */
const clickSlop = 3;

export class SnapshotPan<N extends Attributes, E extends Attributes> {
  /** enabled is set for graphs whose redraw is too slow to follow the mouse. */
  enabled = false;
  private from: { x: number; y: number } | null = null;
  private dx = 0;
  private dy = 0;
  private moved = false;
  private swallowClick = false;

  constructor(
    private readonly sigma: Sigma<N, E>,
    private readonly container: HTMLElement,
  ) {
    const captor = sigma.getMouseCaptor();
    captor.on('mousedown', (e) => this.down(e));
    captor.on('mousemovebody', (e) => this.move(e));
    captor.on('mouseup', () => this.up());
  }

  /** consumeClick says whether a click is the tail of a drag, which selects nothing. */
  consumeClick(): boolean {
    return this.swallowClick;
  }

  private down(e: MouseCoords): void {
    if (!this.enabled || !('button' in e.original) || e.original.button !== 0) return;
    this.from = { x: e.x, y: e.y };
    this.dx = 0;
    this.dy = 0;
    this.moved = false;
  }

  private move(e: MouseCoords): void {
    if (!this.from) return;
    if (!this.sigma.getMouseCaptor().isMouseDown) {
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
    setTimeout(() => (this.swallowClick = false), 0);
  }

  /** shift moves every drawn layer; the mouse layer stays, it is where events land. */
  private shift(transform: string): void {
    for (const c of this.container.querySelectorAll<HTMLCanvasElement>('canvas')) {
      if (!c.classList.contains('sigma-mouse')) c.style.transform = transform;
    }
  }
}

// ForceAtlas2 on flat arrays, shared by the layout worker and the
// main-thread fallback. It drives graphology-layout-forceatlas2's own
// iteration function with matrices that persist between steps (its
// synchronous API would rebuild them, and lose the per-node speeds, on
// every call).

import iterate from 'graphology-layout-forceatlas2/iterate.js';

export interface FA2Settings {
  linLogMode: boolean;
  outboundAttractionDistribution: boolean;
  adjustSizes: boolean;
  edgeWeightInfluence: number;
  scalingRatio: number;
  strongGravityMode: boolean;
  gravity: number;
  slowDown: number;
  barnesHutOptimize: boolean;
  barnesHutTheta: number;
}

const PPN = 10;
const PPE = 3;

/** fa2Settings is graphology's inferSettings plus the library defaults. */
export function fa2Settings(order: number): FA2Settings {
  return {
    linLogMode: false,
    outboundAttractionDistribution: false,
    adjustSizes: false,
    edgeWeightInfluence: 1,
    scalingRatio: 10,
    strongGravityMode: true,
    gravity: 0.05,
    slowDown: 1 + Math.log(Math.max(1, order)),
    barnesHutOptimize: order > 2000,
    barnesHutTheta: 0.5,
  };
}

/** iterationBudget bounds the layout: fewer iterations for bigger graphs. */
export function iterationBudget(order: number, mainThread = false): number {
  let n: number;
  if (order <= 500) n = 600;
  else if (order <= 2000) n = 400;
  else if (order <= 10000) n = 200;
  else if (order <= 30000) n = 120;
  else n = 80;
  return mainThread ? Math.max(30, Math.floor(n / 3)) : n;
}

export class FA2 {
  private readonly nodes: Float32Array;
  private readonly edges: Float32Array;
  readonly order: number;

  /**
   * @param xy    interleaved start positions, 2 per node
   * @param pairs node index pairs, 2 per edge
   */
  constructor(
    xy: Float32Array,
    pairs: Uint32Array,
    private readonly settings: FA2Settings,
  ) {
    const n = xy.length / 2;
    this.order = n;
    this.nodes = new Float32Array(n * PPN);
    const m = pairs.length / 2;
    this.edges = new Float32Array(m * PPE);
    for (let i = 0; i < n; i++) {
      const j = i * PPN;
      this.nodes[j] = xy[2 * i]!;
      this.nodes[j + 1] = xy[2 * i + 1]!;
      this.nodes[j + 6] = 1; // mass
      this.nodes[j + 7] = 1; // convergence
      this.nodes[j + 8] = 1; // size
    }
    for (let e = 0; e < m; e++) {
      const s = pairs[2 * e]!;
      const t = pairs[2 * e + 1]!;
      this.nodes[s * PPN + 6]! += 1;
      this.nodes[t * PPN + 6]! += 1;
      this.edges[e * PPE] = s * PPN;
      this.edges[e * PPE + 1] = t * PPN;
      this.edges[e * PPE + 2] = 1;
    }
  }

  step(iterations: number): void {
    if (this.order === 0) return;
    for (let i = 0; i < iterations; i++) iterate(this.settings, this.nodes, this.edges);
  }

  /** positions copies the current positions, 2 per node. */
  positions(): Float32Array {
    const out = new Float32Array(this.order * 2);
    for (let i = 0; i < this.order; i++) {
      out[2 * i] = this.nodes[i * PPN]!;
      out[2 * i + 1] = this.nodes[i * PPN + 1]!;
    }
    return out;
  }
}

/**
 * postInterval is how often the layout shows progress: every update costs
 * the renderer a full pass over the graph, so big graphs update rarely.
 */
export function postInterval(order: number): number {
  if (order > 20000) return 1500;
  if (order > 5000) return 700;
  if (order > 1000) return 300;
  return 150;
}

/** Messages between the page and the layout worker. */
export type ToWorker =
  | { type: 'start'; xy: Float32Array; pairs: Uint32Array; iterations: number; settings: FA2Settings; postEveryMs: number }
  | { type: 'stop' };

export type FromWorker = { type: 'positions'; xy: Float32Array; done: boolean; iteration: number };

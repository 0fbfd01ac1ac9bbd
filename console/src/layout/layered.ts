// Layered (longest-path) layout for the target graph. Pure.
//
// An edge [a, b] means "a depends on b". Layer 0 holds what depends on
// nothing; every other node sits one layer above its highest dependency, so
// dependencies are drawn below their dependents (y grows upward, as in
// sigma's graph coordinates). Within a layer, a few barycenter sweeps order
// nodes to cut edge crossings; ties fall back to id order, so the result is
// deterministic. Cycles (which targets.yaml forbids) cannot hang it: a back
// edge is ignored. Very wide layers wrap into several rows, and nodes with no
// edge at all sit in a band of their own under layer 0.

export interface LayeredOptions {
  /** Horizontal distance between neighbours in a row. */
  xGap?: number;
  /** Vertical distance between layers. */
  yGap?: number;
  /** Nodes per row before a layer wraps. */
  maxRowWidth?: number;
  /** Barycenter sweeps (each one up and one down). */
  sweeps?: number;
}

export interface LayeredPosition {
  x: number;
  y: number;
  layer: number;
}

export function layeredLayout(
  nodeIds: readonly string[],
  edges: ReadonlyArray<readonly [string, string]>,
  opts: LayeredOptions = {},
): Map<string, LayeredPosition> {
  const xGap = opts.xGap ?? 1;
  const yGap = opts.yGap ?? 1.6;
  const sweeps = opts.sweeps ?? 4;
  const ids = [...new Set(nodeIds)].sort();
  const n = ids.length;
  const maxRow = Math.max(4, opts.maxRowWidth ?? Math.max(24, Math.ceil(Math.sqrt(n) * 2)));
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));

  // Adjacency, deduplicated, self-loops and unknown ends dropped.
  const deps: number[][] = Array.from({ length: n }, () => []);
  const dependents: number[][] = Array.from({ length: n }, () => []);
  const seen = new Set<string>();
  for (const [a, b] of edges) {
    const s = index.get(a);
    const t = index.get(b);
    if (s === undefined || t === undefined || s === t) continue;
    const key = `${s},${t}`;
    if (seen.has(key)) continue;
    seen.add(key);
    deps[s]!.push(t);
    dependents[t]!.push(s);
  }

  // Longest path from each node down to a node without dependencies,
  // computed with an explicit stack (graphs can be deep).
  const layer = new Int32Array(n).fill(-1);
  const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
  const stack: number[] = [];
  const cursor = new Int32Array(n);
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    stack.push(root);
    state[root] = 1;
    while (stack.length > 0) {
      const v = stack[stack.length - 1]!;
      const d = deps[v]!;
      if (cursor[v]! < d.length) {
        const w = d[cursor[v]!]!;
        cursor[v]!++;
        if (state[w] === 0) {
          state[w] = 1;
          stack.push(w);
        }
        continue; // state 1 = back edge (cycle): ignored
      }
      let l = 0;
      for (const w of d) if (state[w] === 2) l = Math.max(l, layer[w]! + 1);
      layer[v] = l;
      state[v] = 2;
      stack.pop();
    }
  }

  // Nodes without any edge do not widen layer 0: they get a band of their
  // own below it.
  const isolated: number[] = [];
  let maxLayer = 0;
  for (let i = 0; i < n; i++) maxLayer = Math.max(maxLayer, layer[i]!);
  const layers: number[][] = Array.from({ length: n === 0 ? 0 : maxLayer + 1 }, () => []);
  for (let i = 0; i < n; i++) {
    if (deps[i]!.length === 0 && dependents[i]!.length === 0 && n > 1) isolated.push(i);
    else layers[layer[i]!]!.push(i); // id order
  }

  // rank = centred position within the layer.
  const rank = new Float64Array(n);
  const setRanks = (row: number[]) => {
    const mid = (row.length - 1) / 2;
    row.forEach((v, i) => (rank[v] = i - mid));
  };
  layers.forEach(setRanks);

  const reorder = (row: number[], neighbours: number[][]) => {
    const key = new Map<number, number>();
    for (const v of row) {
      const nb = neighbours[v]!;
      if (nb.length === 0) key.set(v, rank[v]!);
      else {
        let sum = 0;
        for (const w of nb) sum += rank[w]!;
        key.set(v, sum / nb.length);
      }
    }
    row.sort((a, b) => key.get(a)! - key.get(b)! || rank[a]! - rank[b]! || a - b);
    setRanks(row);
  };
  for (let s = 0; s < sweeps; s++) {
    for (let l = 1; l < layers.length; l++) reorder(layers[l]!, deps);
    for (let l = layers.length - 2; l >= 0; l--) reorder(layers[l]!, dependents);
  }

  const out = new Map<string, LayeredPosition>();
  const rowGap = yGap * 0.45;
  // place lays a band of rows upward from y and returns the band's height.
  const place = (row: number[], y: number, l: number): number => {
    const rows = Math.max(1, Math.ceil(row.length / maxRow));
    for (let r = 0; r < rows; r++) {
      const part = row.slice(r * maxRow, (r + 1) * maxRow);
      const mid = (part.length - 1) / 2;
      // Stagger wrapped rows by half a gap so edges do not hide each other.
      const shift = rows > 1 && r % 2 === 1 ? xGap / 2 : 0;
      part.forEach((v, i) => out.set(ids[v]!, { x: (i - mid) * xGap + shift, y: y + r * rowGap, layer: l }));
    }
    return (rows - 1) * rowGap;
  };
  let y = 0;
  layers.forEach((row, l) => {
    if (row.length === 0) return;
    y += place(row, y, l) + yGap;
  });
  if (isolated.length > 0) {
    const rows = Math.ceil(isolated.length / maxRow);
    const top = layers.some((row) => row.length > 0) ? -yGap : 0;
    place(isolated, top - (rows - 1) * rowGap, 0);
  }
  return out;
}

/** crossings counts edge crossings between consecutive layers (for tests). */
export function crossings(
  pos: Map<string, LayeredPosition>,
  edges: ReadonlyArray<readonly [string, string]>,
): number {
  const segs = edges
    .map(([a, b]) => [pos.get(a), pos.get(b)] as const)
    .filter((p): p is readonly [LayeredPosition, LayeredPosition] => !!p[0] && !!p[1]);
  let c = 0;
  for (let i = 0; i < segs.length; i++) {
    for (let j = i + 1; j < segs.length; j++) {
      const [a1, b1] = segs[i]!;
      const [a2, b2] = segs[j]!;
      if (a1.layer !== a2.layer || b1.layer !== b2.layer) continue;
      if ((a1.x - a2.x) * (b1.x - b2.x) < 0) c++;
    }
  }
  return c;
}

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseGraphText } from '../src/model';
import { hash32, placeNear, seedPositions } from '../src/layout/seed';
import { FA2, fa2Settings, iterationBudget } from '../src/layout/fa2';

const demo = parseGraphText(readFileSync(new URL('../../testdata/golden/graph/demo.json', import.meta.url), 'utf8'));

describe('seed positions', () => {
  it('places every node, deterministically', () => {
    const a = seedPositions(demo.nodes, demo.edges);
    const b = seedPositions([...demo.nodes].reverse(), [...demo.edges].reverse());
    expect(a.size).toBe(demo.nodes.length);
    for (const [id, p] of a) expect(b.get(id)).toEqual(p);
  });

  it('keeps what a project owns near the project', () => {
    const pos = seedPositions(demo.nodes, demo.edges);
    const api = pos.get('project:api')!;
    const web = pos.get('project:web')!;
    const file = demo.nodes.find((n) => n.kind === 'file' && n.project === 'api')!;
    const f = pos.get(file.id)!;
    expect(Math.hypot(f.x - api.x, f.y - api.y)).toBeLessThan(Math.hypot(f.x - web.x, f.y - web.y));
  });

  it('places a newcomer next to its neighbours', () => {
    const p = placeNear('symbol:x#y', [{ x: 100, y: 100 }], { x: 0, y: 0 }, 2);
    expect(Math.hypot(p.x - 100, p.y - 100)).toBeLessThanOrEqual(2);
  });

  it('hashes stably', () => {
    expect(hash32('')).toBe(0x811c9dc5);
    expect(hash32('project:api')).toBe(hash32('project:api'));
  });
});

describe('force layout core', () => {
  it('moves nodes and stays finite', () => {
    const index = new Map(demo.nodes.map((n, i) => [n.id, i]));
    const start = seedPositions(demo.nodes, demo.edges);
    const xy = new Float32Array(demo.nodes.length * 2);
    demo.nodes.forEach((n, i) => {
      xy[2 * i] = start.get(n.id)!.x;
      xy[2 * i + 1] = start.get(n.id)!.y;
    });
    const pairs = new Uint32Array(demo.edges.flatMap((e) => [index.get(e.source)!, index.get(e.target)!]));
    const fa2 = new FA2(xy, pairs, fa2Settings(demo.nodes.length));
    fa2.step(50);
    const out = fa2.positions();
    expect(out.length).toBe(xy.length);
    expect(out.every(Number.isFinite)).toBe(true);
    expect(out.some((v, i) => v !== xy[i])).toBe(true);
  });

  it('bounds the work for big graphs', () => {
    expect(iterationBudget(100)).toBeGreaterThan(iterationBudget(50000));
    expect(iterationBudget(50000, true)).toBeLessThan(iterationBudget(50000));
    expect(fa2Settings(5000).barnesHutOptimize).toBe(true);
  });
});

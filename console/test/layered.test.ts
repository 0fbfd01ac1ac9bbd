import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { crossings, layeredLayout } from '../src/layout/layered';

const E = (s: string) => s.split(' ').map((p) => p.split('>') as [string, string]);

describe('layeredLayout', () => {
  it('puts a chain on one layer each, dependencies at the bottom', () => {
    const pos = layeredLayout(['a', 'b', 'c'], E('a>b b>c'));
    expect(pos.get('c')!.layer).toBe(0);
    expect(pos.get('b')!.layer).toBe(1);
    expect(pos.get('a')!.layer).toBe(2);
    expect(pos.get('a')!.y).toBeGreaterThan(pos.get('b')!.y);
    expect(pos.get('b')!.y).toBeGreaterThan(pos.get('c')!.y);
  });

  it('uses the longest path', () => {
    // a depends on c directly and through b: a sits above b.
    const pos = layeredLayout(['a', 'b', 'c'], E('a>c a>b b>c'));
    expect([pos.get('a')!.layer, pos.get('b')!.layer, pos.get('c')!.layer]).toEqual([2, 1, 0]);
  });

  it('lays out a diamond on three layers', () => {
    const pos = layeredLayout(['top', 'l', 'r', 'bottom'], E('top>l top>r l>bottom r>bottom'));
    expect(pos.get('bottom')!.layer).toBe(0);
    expect(pos.get('l')!.layer).toBe(1);
    expect(pos.get('r')!.layer).toBe(1);
    expect(pos.get('top')!.layer).toBe(2);
    expect(pos.get('l')!.x).not.toBe(pos.get('r')!.x);
  });

  it('puts unconnected nodes on layer 0', () => {
    const pos = layeredLayout(['x', 'y'], []);
    expect(pos.get('x')!.layer).toBe(0);
    expect(pos.get('y')!.layer).toBe(0);
    expect(pos.get('x')!.x).not.toBe(pos.get('y')!.x);
  });

  it('puts nodes without edges below the lowest layer, out of its way', () => {
    const pos = layeredLayout(['a', 'b', 'lonely1', 'lonely2'], E('a>b'));
    expect(pos.get('lonely1')!.y).toBeLessThan(pos.get('b')!.y);
    expect(pos.get('lonely2')!.y).toBe(pos.get('lonely1')!.y);
    expect(pos.get('b')!.x).toBe(0); // layer 0 holds b alone, centred
  });

  it('survives a cycle, a self loop, duplicate edges and unknown ends', () => {
    const pos = layeredLayout(['a', 'b', 'c'], E('a>b b>c c>a a>a a>b a>zz'));
    expect(pos.size).toBe(3);
    for (const p of pos.values()) {
      expect(Number.isFinite(p.x)).toBe(true);
      expect(Number.isFinite(p.y)).toBe(true);
    }
  });

  it('handles a deep chain without recursion limits', () => {
    const n = 20000;
    const ids = Array.from({ length: n }, (_, i) => `t${i}`);
    const edges = ids.slice(1).map((id, i) => [id, ids[i]!] as [string, string]);
    const pos = layeredLayout(ids, edges);
    expect(pos.get(`t${n - 1}`)!.layer).toBe(n - 1);
  });

  it('is deterministic and independent of input order', () => {
    const ids = ['d', 'a', 'c', 'b', 'e'];
    const edges = E('a>b a>c d>c e>b');
    const one = layeredLayout(ids, edges);
    const two = layeredLayout([...ids].reverse(), [...edges].reverse());
    expect([...one.entries()].sort()).toEqual([...two.entries()].sort());
  });

  it('orders a layer to remove avoidable crossings', () => {
    // In id order the upper layer is a, b over x, y with a>y and b>x: one crossing.
    const edges = E('a>y b>x');
    const pos = layeredLayout(['a', 'b', 'x', 'y'], edges);
    expect(crossings(pos, edges)).toBe(0);
  });

  it('wraps a very wide layer into several rows', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `n${String(i).padStart(3, '0')}`);
    const pos = layeredLayout(ids, [], { maxRowWidth: 10 });
    const ys = new Set([...pos.values()].map((p) => p.y));
    expect(ys.size).toBe(10);
    const xs = [...pos.values()].map((p) => p.x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThanOrEqual(10);
  });

  it('keeps layers apart when a wrapped layer sits below another', () => {
    const low = Array.from({ length: 30 }, (_, i) => `low${String(i).padStart(2, '0')}`);
    const pos = layeredLayout([...low, 'top'], low.map((l) => ['top', l] as [string, string]), { maxRowWidth: 10 });
    const maxLow = Math.max(...low.map((l) => pos.get(l)!.y));
    expect(pos.get('top')!.y).toBeGreaterThan(maxLow);
  });

  it('lays out the demo target graph', () => {
    const g = JSON.parse(readFileSync(new URL('../../testdata/golden/graph/demo-targets.json', import.meta.url), 'utf8')) as {
      nodes: { id: string }[];
      edges: { source: string; target: string }[];
    };
    const edges = g.edges.map((e) => [e.source, e.target] as [string, string]);
    const pos = layeredLayout(g.nodes.map((n) => n.id), edges);
    expect(pos.size).toBe(g.nodes.length);
    for (const [s, t] of edges) expect(pos.get(s)!.layer).toBeGreaterThan(pos.get(t)!.layer);
    const seen = new Set([...pos.values()].map((p) => `${p.x},${p.y}`));
    expect(seen.size).toBe(g.nodes.length); // no two targets on the same spot
  });
});

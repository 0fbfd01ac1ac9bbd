import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { basename, isTargetGraph, nodeLabel, parseGraph, parseGraphText, substringMatches, querySeeds, targetSubgraph } from '../src/model';
import { symbolDefinition } from '../src/symbol';

const golden = (name: string) => readFileSync(new URL(`../../testdata/golden/graph/${name}`, import.meta.url), 'utf8');

describe('graph model', () => {
  it('parses the demo knowledge graph whole', () => {
    const g = parseGraphText(golden('demo.json'));
    expect(g.nodes).toHaveLength(91);
    expect(g.edges).toHaveLength(205);
    expect(isTargetGraph(g)).toBe(false);
  });

  it('derives the target graph a snapshot shows from the knowledge graph', () => {
    const sub = targetSubgraph(parseGraphText(golden('demo.json')));
    const targets = parseGraphText(golden('demo-targets.json'));
    expect(sub.nodes.map((n) => n.id)).toEqual(targets.nodes.map((n) => n.id));
    expect(sub.edges).toEqual(targets.edges);
    expect(isTargetGraph(targets)).toBe(true);
  });

  it('drops edges whose ends are missing and duplicate nodes', () => {
    const g = parseGraph({
      nodes: [{ id: 'a', kind: 'file', name: 'a' }, { id: 'a', kind: 'file', name: 'again' }, { id: 'b', kind: 'file' }, { nope: 1 }],
      edges: [
        { source: 'a', target: 'b', kind: 'imports' },
        { source: 'a', target: 'zz', kind: 'imports' },
      ],
    });
    expect(g.nodes.map((n) => n.id)).toEqual(['a', 'b']);
    expect(g.nodes[1]!.name).toBe('b');
    expect(g.edges).toHaveLength(1);
  });

  it('keeps the manifest an inferred dependency comes from, and only a string one', () => {
    const g = parseGraph({
      nodes: [{ id: 'project:app', kind: 'project', name: 'app' }, { id: 'project:ui', kind: 'project', name: 'ui' }],
      edges: [
        { source: 'project:app', target: 'project:ui', kind: 'depends_inferred', via: 'app/package.json' },
        { source: 'project:ui', target: 'project:app', kind: 'depends_inferred', via: 7 },
      ],
    });
    expect(g.edges[0]!.via).toBe('app/package.json');
    expect('via' in g.edges[1]!).toBe(false);
  });

  it('keeps what a trimmed answer says it left out, counts only', () => {
    const g = parseGraph({ nodes: [], edges: [], omitted: { owns: 3, imports: 2, bad: 'x', none: 0 } });
    expect(g.omitted).toEqual({ owns: 3, imports: 2 });
    expect('omitted' in parseGraph({ nodes: [] })).toBe(false);
  });

  it('accepts a graph without edges and an empty one', () => {
    expect(parseGraph({ nodes: [] })).toEqual({ nodes: [], edges: [] });
  });

  it('refuses what is not a graph', () => {
    expect(() => parseGraph([1, 2])).toThrow(/not a graph/);
    expect(() => parseGraphText('<html>')).toThrow(/not JSON/);
  });

  it('labels targets with their project', () => {
    expect(nodeLabel({ id: 'target:api:build', kind: 'target', name: 'build', project: 'api' })).toBe('api:build');
    expect(nodeLabel({ id: 'doc:x.md', kind: 'doc', name: 'x.md', title: 'X' })).toBe('X');
  });

  it('filters by substring of id, name, title or path, every word', () => {
    const g = parseGraphText(golden('demo.json'));
    const m = substringMatches(g.nodes, 'API build');
    expect([...m]).toContain('target:api:build');
    expect(substringMatches(g.nodes, '   ').size).toBe(0);
    expect(substringMatches(g.nodes, 'no-such-thing-anywhere').size).toBe(0);
  });

  it('takes the basename of a workspace path', () => {
    expect(basename('/home/me/src/shop')).toBe('shop');
    expect(basename('/home/me/src/shop/')).toBe('shop');
    expect(basename('C:\\src\\shop')).toBe('shop');
    expect(basename('shop')).toBe('shop');
  });

  it('names a symbol definition path:line', () => {
    expect(symbolDefinition({ id: 'symbol:libs/util/money.go#Format', kind: 'symbol', name: 'Format', path: 'libs/util/money.go', line: 12, symbol_kind: 'func' })).toBe(
      'libs/util/money.go:12 (func)',
    );
    expect(symbolDefinition({ id: 'symbol:a/b.py#T.m', kind: 'symbol', name: 'T.m', line: 3 })).toBe('a/b.py:3');
  });
});

describe('querySeeds', () => {
  const nodes = [
    { id: 'file:cmd/core/main.go', kind: 'file', name: 'main.go', path: 'cmd/core/main.go' },
    { id: 'package:main', kind: 'package', name: 'main' },
    { id: 'project:cli', kind: 'project', name: 'cli' },
    { id: 'target:cli:build', kind: 'target', name: 'build' },
    { id: 'symbol:a.go#Handle', kind: 'symbol', name: 'Handle' },
    { id: 'doc:docs/x.md', kind: 'doc', name: 'x.md', path: 'docs/x.md' },
  ];
  it.each([
    ['main.go', ['file:cmd/core/main.go']],
    ['MAIN', ['file:cmd/core/main.go', 'package:main']],
    ['project:cli depth:2', ['project:cli']],
    ['target:cli:build', ['target:cli:build']],
    ['kind:doc', ['doc:docs/x.md']],
    ['path:docs/**', ['doc:docs/x.md']],
    ['path:cmd/*/main.go', ['file:cmd/core/main.go']],
    ['symbol:Hand*', ['symbol:a.go#Handle']],
  ])('%s selects %j', (q, want) => {
    expect([...querySeeds(q, nodes)].sort()).toEqual(want);
  });
});

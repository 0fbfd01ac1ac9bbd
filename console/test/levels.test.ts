import { describe, expect, it } from 'vitest';
import { drawnContents, holdsTotal, innerOmitted, owned, packLayout, packProject, type ProjectPack, projectContents, projectLabel, projectLevel, selectTerm, shownEdges, within, type Circle } from '../src/levels';
import type { GraphData, GNode } from '../src/model';

const g: GraphData = {
  nodes: [
    { id: 'project:api', kind: 'project', name: 'api', path: 'services/api' },
    { id: 'project:auth', kind: 'project', name: 'auth', path: 'services/auth' },
    { id: 'project:util', kind: 'project', name: 'util', path: 'libs/util' },
    { id: 'file:services/api/main.go', kind: 'file', name: 'main.go', path: 'services/api/main.go', project: 'api' },
    { id: 'file:services/api/handlers/h.go', kind: 'file', name: 'h.go', path: 'services/api/handlers/h.go', project: 'api' },
    { id: 'file:services/api/handlers/x/y/z.go', kind: 'file', name: 'z.go', path: 'services/api/handlers/x/y/z.go', project: 'api' },
    { id: 'target:api:build', kind: 'target', name: 'build', project: 'api' },
    { id: 'file:libs/util/slug.go', kind: 'file', name: 'slug.go', path: 'libs/util/slug.go', project: 'util' },
  ],
  edges: [
    { source: 'project:api', target: 'project:util', kind: 'depends_declared' },
    { source: 'project:api', target: 'file:services/api/main.go', kind: 'owns' },
    { source: 'project:api', target: 'file:services/api/handlers/h.go', kind: 'owns' },
    { source: 'project:api', target: 'file:services/api/handlers/x/y/z.go', kind: 'owns' },
    { source: 'project:api', target: 'target:api:build', kind: 'owns' },
    { source: 'project:util', target: 'file:libs/util/slug.go', kind: 'owns' },
    { source: 'file:services/api/main.go', target: 'file:libs/util/slug.go', kind: 'imports' },
    { source: 'file:services/api/main.go', target: 'file:services/api/handlers/h.go', kind: 'imports' },
  ],
};

const inside = (outer: Circle, inner: Circle) => Math.hypot(outer.x - inner.x, outer.y - inner.y) + inner.r <= outer.r + 1e-6;
const apart = (a: Circle, b: Circle) => Math.hypot(a.x - b.x, a.y - b.y) >= a.r + b.r - 1e-6;

describe('drawnContents', () => {
  it('is what select=project:NAME&edge_limit=N answers: no nesting, the fog left out above N, counted', () => {
    const c = projectContents(g, 'api');
    const none = drawnContents(c, 0);
    expect(none.nodes).toEqual(c.nodes);
    expect(none.edges).toEqual([{ source: 'project:api', target: 'project:util', kind: 'depends_declared' }]);
    expect(none.omitted).toEqual({ owns: 4, imports: 1 });
    expect(innerOmitted(none)).toBe(1);
    const all = drawnContents(c, 1);
    expect(all.edges.map((e) => e.kind).sort()).toEqual(['depends_declared', 'imports']);
    expect(all.omitted).toEqual({ owns: 4 });
    expect(innerOmitted(all)).toBe(0);
    expect(innerOmitted(c)).toBe(0);
  });

  it("leaves owned to find what the project holds by the nodes' project", () => {
    const ids = (ns: GNode[]) => ns.map((n) => n.id).sort();
    const c = projectContents(g, 'api');
    expect(ids(owned(drawnContents(c, 0), 'api'))).toEqual(ids(owned(c, 'api')));
    expect(ids(owned(c, 'api'))).toEqual(['file:services/api/handlers/h.go', 'file:services/api/handlers/x/y/z.go', 'file:services/api/main.go', 'target:api:build']);
  });
});

describe('projectLevel', () => {
  it('counts what each project owns, by kind, and keeps the edges between projects', () => {
    const p = projectLevel(g);
    expect(p.nodes.map((n) => [n.id, n.holds])).toEqual([
      ['project:api', { file: 3, target: 1 }],
      ['project:auth', {}],
      ['project:util', { file: 1 }],
    ]);
    expect(p.edges).toEqual([{ source: 'project:api', target: 'project:util', kind: 'depends_declared' }]);
    expect(projectLabel(p.nodes[0]!)).toBe('api · 4');
    expect(projectLabel(p.nodes[1]!)).toBe('auth');
    expect(holdsTotal(p.nodes[2]!)).toBe(1);
  });
});

describe('projectContents', () => {
  it('is the project, its neighbours and the edges among them, as select=project:NAME answers', () => {
    const c = projectContents(g, 'api');
    expect(c.nodes.map((n) => n.id).sort()).toEqual([
      'file:services/api/handlers/h.go',
      'file:services/api/handlers/x/y/z.go',
      'file:services/api/main.go',
      'project:api',
      'project:util',
      'target:api:build',
    ]);
    expect(c.edges.some((e) => e.kind === 'imports' && e.target === 'file:services/api/handlers/h.go')).toBe(true);
    expect(owned(c, 'api').map((n) => n.id)).not.toContain('project:util');
  });
});

describe('packLayout', () => {
  const projects = projectLevel(g).nodes;
  it('groups projects by the directory that holds them, each circle apart from its siblings', () => {
    const l = packLayout(projects, new Map());
    const services = l.get('group:services')!;
    expect(services.role).toBe('group');
    expect(inside(services, l.get('project:api')!)).toBe(true);
    expect(inside(services, l.get('project:auth')!)).toBe(true);
    // A directory holding one project is no circle of its own.
    expect(l.has('group:libs')).toBe(false);
    expect(apart(l.get('project:api')!, l.get('project:auth')!)).toBe(true);
    expect(apart(services, l.get('project:util')!)).toBe(true);
  });
  it('sizes a collapsed project by what it owns', () => {
    const l = packLayout(projects, new Map());
    expect(l.get('project:api')!.r).toBeCloseTo(2); // four nodes: the area of four leaves
    expect(l.get('project:auth')!.r).toBeCloseTo(1);
  });
  it("puts an expanded project's files in folder circles inside it, and no circle around one lone thing", () => {
    const l = packLayout(projects, new Map([['api', owned(projectContents(g, 'api'), 'api')]]));
    const api = l.get('project:api')!;
    const handlers = l.get('folder:api/handlers')!;
    expect(handlers.name).toBe('handlers');
    expect(inside(api, handlers)).toBe(true);
    expect(inside(handlers, l.get('file:services/api/handlers/h.go')!)).toBe(true);
    // handlers/x/y holds one file: no folder circles around it.
    expect(l.has('folder:api/handlers/x')).toBe(false);
    expect(l.has('folder:api/handlers/x/y')).toBe(false);
    expect(inside(handlers, l.get('file:services/api/handlers/x/y/z.go')!)).toBe(true);
    expect(inside(api, l.get('target:api:build')!)).toBe(true);
    expect(l.get('file:services/api/main.go')!.r).toBeCloseTo(1);
  });
  it('is the same for the same input', () => {
    const a = [...packLayout(projects, new Map()).values()];
    const b = [...packLayout(projects, new Map()).values()];
    expect(a).toEqual(b);
  });
});

describe('packLayout of big projects', () => {
  // Two projects of 3 folders of 40 files, and a target each.
  const big: GNode[] = ['a', 'b'].map((p) => ({ id: `project:${p}`, kind: 'project', name: p, path: `p/${p}`, holds: { file: 120, target: 1 } }));
  const files = (p: string): GNode[] => [
    { id: `target:${p}:build`, kind: 'target', name: 'build', project: p },
    ...Array.from({ length: 120 }, (_, i) => ({ id: `file:p/${p}/d${i % 3}/f${i}.go`, kind: 'file', name: `f${i}.go`, path: `p/${p}/d${i % 3}/f${i}.go`, project: p })),
  ];
  const a = files('a');
  const b = files('b');

  it('puts a folder of many files on a spiral, each file inside it and apart from the others', () => {
    const l = packLayout(big, new Map([['a', a]]));
    const project = l.get('project:a')!;
    for (let d = 0; d < 3; d++) {
      const folder = l.get(`folder:a/d${d}`)!;
      expect(inside(project, folder)).toBe(true);
      const mine = [...l.values()].filter((c) => c.parent === folder.id);
      expect(mine).toHaveLength(40);
      for (const f of mine) {
        expect(f.r).toBe(1);
        expect(f.depth).toBe(folder.depth + 1);
        expect(inside(folder, f)).toBe(true);
        for (const o of mine) if (o !== f) expect(apart(f, o)).toBe(true);
      }
    }
    expect(inside(project, l.get('target:a:build')!)).toBe(true);
  });

  it('packs an open project once per answer, and lays it out the same from its kept packing', () => {
    const packs = new Map<string, ProjectPack>();
    const first = packLayout(big, new Map([['a', a]]), packs);
    const kept = packs.get('a')!;
    expect(kept.inside).toBe(a);
    const both = packLayout(big, new Map([['a', a], ['b', b]]), packs);
    expect(packs.get('a')).toBe(kept); // not packed again
    // a keeps its inside, moved with its circle.
    const shift = (l: Map<string, Circle>, id: string) => ({ x: l.get(id)!.x - l.get('project:a')!.x, y: l.get(id)!.y - l.get('project:a')!.y });
    expect(shift(both, 'file:p/a/d1/f4.go').x).toBeCloseTo(shift(first, 'file:p/a/d1/f4.go').x);
    expect(shift(both, 'file:p/a/d1/f4.go').y).toBeCloseTo(shift(first, 'file:p/a/d1/f4.go').y);
    // The same as without the kept packings.
    expect([...both.values()]).toEqual([...packLayout(big, new Map([['a', a], ['b', b]])).values()]);
    // A new answer is packed again; a closed project is forgotten.
    packLayout(big, new Map([['a', [...a]]]), packs);
    expect(packs.get('a')).not.toBe(kept);
    expect(packs.has('b')).toBe(false);
    expect(packProject(big[0]!, a).circles[0]!.id).toBe('project:a');
  });
});

describe('packProject puts a package in its folder', () => {
  it('draws a Go package inside the directory it is, and a target at the top', () => {
    const p: GNode = { id: 'project:g', kind: 'project', name: 'g', path: 'svc/g' };
    const nodes: GNode[] = [
      { id: 'target:g:build', kind: 'target', name: 'build', project: 'g' },
      { id: 'package:example.com/svc/g/api', kind: 'package', name: 'api', path: 'svc/g/api', project: 'g' },
      { id: 'package:example.com/svc/g', kind: 'package', name: 'g', path: 'svc/g', project: 'g' },
      ...['api/a.go', 'api/b.go', 'main.go', 'db/c.go', 'db/d.go'].map((f) => ({ id: `file:svc/g/${f}`, kind: 'file', name: f.split('/').pop()!, path: `svc/g/${f}`, project: 'g' })),
    ];
    const parent = new Map(packProject(p, nodes).circles.map((c) => [c.id, c.parent]));
    expect(parent.get('package:example.com/svc/g/api')).toBe('folder:g/api');
    expect(parent.get('file:svc/g/api/a.go')).toBe('folder:g/api');
    expect(parent.get('package:example.com/svc/g')).toBe('project:g');
    expect(parent.get('target:g:build')).toBe('project:g');
  });
});

describe('shownEdges', () => {
  it('leaves ownership to the circles and edges to nodes not shown out', () => {
    const shown = new Set(['project:api', 'project:util', 'file:services/api/main.go', 'file:services/api/handlers/h.go']);
    expect(shownEdges(g.edges, (id) => shown.has(id)).map((e) => e.kind)).toEqual(['depends_declared', 'imports']);
  });
});

export type { GNode };

describe('packLayout names a folded chain by its whole path', () => {
  it('calls src/lib what holds two files under src/lib', () => {
    const p: GNode = { id: 'project:w', kind: 'project', name: 'w', path: 'web' };
    const files = ['web/src/lib/a.ts', 'web/src/lib/b.ts', 'web/index.ts'].map((path) => ({ id: `file:${path}`, kind: 'file', name: path.split('/').pop()!, path }));
    const l = packLayout([p], new Map([['w', files]]));
    expect(l.get('folder:w/src/lib')?.name).toBe('src/lib');
    expect(l.has('folder:w/src')).toBe(false);
  });
});

describe('within', () => {
  it('is what lies within n edges either way', () => {
    expect(within(g, 'file:libs/util/slug.go', 1).nodes.map((n) => n.id).sort()).toEqual(['file:libs/util/slug.go', 'file:services/api/main.go', 'project:util']);
    expect(within(g, 'file:libs/util/slug.go', 2).nodes.length).toBe(5);
    expect(within(g, 'file:libs/util/slug.go', 0).edges).toEqual([]);
  });
});

describe('selectTerm', () => {
  it.each([
    [{ id: 'project:api', kind: 'project', name: 'api' }, 'project:api'],
    [{ id: 'target:api:build', kind: 'target', name: 'build' }, 'target:api:build'],
    [{ id: 'file:a/[x].go', kind: 'file', name: '[x].go', path: 'a/[x].go' }, 'path:a/\\[x\\].go'],
    [{ id: 'package:fmt', kind: 'package', name: 'fmt' }, ''],
  ])('%j selects with %s', (n, want) => {
    expect(selectTerm(n as GNode)).toBe(want);
  });
});

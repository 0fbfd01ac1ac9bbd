import { describe, expect, it } from 'vitest';
import { LabelBoxes, UniqueNames, overlaps, uniqueNames } from '../src/labels';
import type { GNode } from '../src/model';

const file = (path: string): GNode => ({ id: `file:${path}`, kind: 'file', name: path.split('/').pop()!, path });

describe('uniqueNames', () => {
  it('gives a file alone with its name just the name', () => {
    expect(uniqueNames([file('a/b/main.go'), file('a/b/util.go')])).toEqual(
      new Map([
        ['file:a/b/main.go', 'main.go'],
        ['file:a/b/util.go', 'util.go'],
      ]),
    );
  });
  it('gives files of the same name the shortest tail of their paths that tells them apart', () => {
    const m = uniqueNames([file('console/src/index.ts'), file('web/src/index.ts'), file('api/index.ts'), file('api/x/main.go')]);
    expect(m.get('file:console/src/index.ts')).toBe('console/src/index.ts');
    expect(m.get('file:web/src/index.ts')).toBe('web/src/index.ts');
    expect(m.get('file:api/index.ts')).toBe('api/index.ts');
    expect(m.get('file:api/x/main.go')).toBe('main.go');
    expect(new Set(m.values()).size).toBe(4);
  });
  it('stops at the whole path when one path ends another', () => {
    const m = uniqueNames([file('index.ts'), file('src/index.ts')]);
    expect(m.get('file:index.ts')).toBe('index.ts');
    expect(m.get('file:src/index.ts')).toBe('src/index.ts');
  });
  it('leaves nodes without a path out', () => {
    expect(uniqueNames([{ id: 'project:a', kind: 'project', name: 'a' }]).size).toBe(0);
  });
});

describe('UniqueNames', () => {
  it('names as uniqueNames does, whatever order the nodes come in', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const parts = ['a', 'b', 'src', 'lib', 'x'];
    const names = ['index.ts', 'main.go', 'util.go'];
    for (let round = 0; round < 20; round++) {
      const nodes: GNode[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < 60; i++) {
        const depth = rnd(4);
        const path = [...Array.from({ length: depth }, () => parts[rnd(parts.length)]!), names[rnd(names.length)]!].join('/');
        if (!seen.has(path)) (seen.add(path), nodes.push(file(path)));
      }
      const u = new UniqueNames();
      for (let i = 0; i < nodes.length; i += 13) u.add(nodes.slice(i, i + 13));
      const want = uniqueNames(nodes);
      for (const n of nodes) expect(u.get(n.id), n.id).toBe(want.get(n.id));
    }
  });
  it('renames a file held when one of its name comes', () => {
    const u = new UniqueNames();
    u.add([file('api/index.ts'), { id: 'project:a', kind: 'project', name: 'a' }]);
    expect(u.get('file:api/index.ts')).toBe('index.ts');
    expect(u.get('project:a')).toBeUndefined();
    u.add([file('web/index.ts')]);
    expect([u.get('file:api/index.ts'), u.get('file:web/index.ts')]).toEqual(['api/index.ts', 'web/index.ts']);
  });
});

describe('LabelBoxes', () => {
  it('accepts a box only where it overlaps no accepted one', () => {
    const b = new LabelBoxes(16);
    expect(b.offer({ x: 0, y: 0, w: 50, h: 12 }, 'a', 'a')).toBe(true);
    expect(b.offer({ x: 40, y: 6, w: 50, h: 12 }, 'b', 'b')).toBe(false);
    expect(b.offer({ x: 50, y: 0, w: 50, h: 12 }, 'c', 'c')).toBe(true);
    expect(b.offer({ x: 0, y: 12, w: 200, h: 12 }, 'd', 'd')).toBe(true);
    expect(b.accepted.map((x) => x.id)).toEqual(['a', 'c', 'd']);
    for (const x of b.accepted) for (const y of b.accepted) if (x !== y) expect(overlaps(x, y)).toBe(false);
    b.clear();
    expect(b.offer({ x: 40, y: 6, w: 50, h: 12 }, 'b', 'b')).toBe(true);
  });
});

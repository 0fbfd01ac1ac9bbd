import { describe, expect, it } from 'vitest';
import { groupByProject, parsePage, reach, reason, sessionOp, splitPatch, type ReviewFile } from '../src/reviewmodel';

const page = {
  base: { ref: 'HEAD', commit: 'abc', branch: 'main' },
  files: [
    {
      path: 'libs/util/slug.go',
      kind: 'modified',
      role: 'source',
      project: 'util',
      hash: 'h1',
      added: 1,
      deleted: 1,
      hunks: [{ old_start: 12, old_lines: 1, new_start: 12, new_lines: 1 }],
      symbols: [{ id: 'symbol:libs/util/slug.go#Slugify', name: 'Slugify', kind: 'func', line: 11, files: ['a.go', 'b.go'], files_total: 2, projects: ['auth'] }],
      coverage: { from: 'libs/util/cover.out', covered: [], uncovered: [12], unknown: [] },
    },
  ],
  affected: { projects: [{ id: 'project:util', chain: ['util', 'owns libs/util/slug.go, which changed'] }], targets: [] },
  session: {
    branch: 'main',
    version: 3,
    viewed: [{ path: 'libs/util/slug.go', hash: 'h1' }],
    comments: [{ id: 'c1', path: 'libs/util/slug.go', line: 12, text: 'x', body: 'why?', author: { kind: 'console', id: 'tok_1' }, resolved: false, outdated: true }],
  },
};

describe('parsePage', () => {
  it('reads files, reach, coverage, chains and the session', () => {
    const p = parsePage(page);
    expect(p.files).toHaveLength(1);
    const f = p.files[0]!;
    expect(f.role).toBe('source');
    expect(f.uncovered.has(12)).toBe(true);
    expect(reach(f)).toBe(2);
    expect(p.projects[0]!.chain).toEqual(['util', 'owns libs/util/slug.go, which changed']);
    expect(p.session.version).toBe(3);
    expect(p.session.viewed.get('libs/util/slug.go')).toBe('h1');
    expect(p.session.comments[0]!.outdated).toBe(true);
  });

  it('survives a body of the wrong shape', () => {
    const p = parsePage({ files: 'nope', session: null });
    expect(p.files).toEqual([]);
    expect(p.session.comments).toEqual([]);
  });
});

describe('splitPatch', () => {
  const patch = [
    'core: big.bin is over the 4 MB limit: its change is left out of this patch',
    'diff --git a/libs/util/slug.go b/libs/util/slug.go',
    'index 1111111..2222222 100644',
    '--- a/libs/util/slug.go',
    '+++ b/libs/util/slug.go',
    '@@ -12 +12 @@ func Slugify(s string) string {',
    '-\treturn old',
    '+\treturn new',
    'diff --git a/new file.txt b/new file.txt',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/new file.txt',
    '@@ -0,0 +1,2 @@',
    '+one',
    '+two',
    'diff --git a/gone.txt b/gone.txt',
    'deleted file mode 100644',
    '--- a/gone.txt',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-bye',
    '',
  ].join('\n');

  it('numbers each file lines on both sides', () => {
    const files = splitPatch(patch);
    const slug = files.get('libs/util/slug.go')!;
    expect(slug.filter((l) => l.kind === 'del')).toEqual([{ kind: 'del', text: '\treturn old', oldNo: 12 }]);
    expect(slug.filter((l) => l.kind === 'add')).toEqual([{ kind: 'add', text: '\treturn new', newNo: 12 }]);
    expect(files.get('new file.txt')!.filter((l) => l.kind === 'add').map((l) => l.newNo)).toEqual([1, 2]);
    expect(files.get('gone.txt')!.filter((l) => l.kind === 'del')).toHaveLength(1);
  });

  it('keeps commentary out of every file', () => {
    for (const lines of splitPatch(patch).values()) {
      expect(lines.some((l) => l.text.startsWith('core:'))).toBe(false);
    }
  });
});

describe('sessionOp', () => {
  it('carries the version it read and never an author', () => {
    const body = JSON.parse(sessionOp(3, { op: 'comment', path: 'a', line: 1, text: 'x', body: 'y' })) as Record<string, unknown>;
    expect(body.version).toBe(3);
    expect(body).not.toHaveProperty('author');
  });
});

describe('groupByProject', () => {
  const f = (path: string, project: string) => ({ ...parsePage({ files: [{ path, project }] }).files[0]! }) as ReviewFile;
  it('keeps the reading order inside a group and orders groups by their first file', () => {
    const groups = groupByProject([f('libs/util/a.go', 'util'), f('services/api/b.go', 'api'), f('libs/util/c.go', 'util'), f('README.md', '')]);
    expect(groups.map((g) => [g.project, g.files.map((x) => x.path)])).toEqual([
      ['util', ['libs/util/a.go', 'libs/util/c.go']],
      ['api', ['services/api/b.go']],
      ['', ['README.md']],
    ]);
  });
});

describe('reason', () => {
  it.each([
    [['util:build', 'input libs/util/slug.go changed'], 'input libs/util/slug.go changed'],
    [['api:build', 'depends on util:build', 'input libs/util/slug.go changed'], 'depends on util:build … input libs/util/slug.go changed'],
    [['api:build'], 'affected'],
  ])('%j reads %s', (chain, want) => {
    expect(reason(chain)).toBe(want);
  });
});

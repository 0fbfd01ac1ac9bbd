// The Insight view: the five lenses of GET /api/v1/insight as pictures.
// Hotspots are a treemap of files (area: score) grouped by project, beside
// ranked bars of projects on a log scale (their scores span orders of
// magnitude); affinity a chord diagram of projects (hidden coupling in the
// warning colour) and a list of file pairs; ownership a stacked bar of
// owners' shares per project with its bus factor; trend a column chart per
// project with its baseline; volatility a ranked list with its rate and
// Wilson lower bound. d3's layout modules compute the shapes (d3-hierarchy,
// d3-chord, d3-shape); the page draws the SVG itself, and every string
// from the server goes in through textContent. Every chart has a table of
// the same numbers under it (folded), for screen readers and copy-paste,
// and says its unit.

import { hierarchy, treemap, type HierarchyRectangularNode } from 'd3-hierarchy';
import { chord, ribbon, type Chord } from 'd3-chord';
import { arc } from 'd3-shape';
import { h, show } from './dom';
import type { Api } from './api';
import { chordMatrix, compact, logShare, pct, trendSentence, type Insight, type ProjectTrend } from './insightmodel';

const SVG = 'http://www.w3.org/2000/svg';
const WARN = '#b45309';
const PALETTE = ['#2563eb', '#16a34a', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#4f46e5', '#0d9488', '#b45309'];
const SCORE_UNIT = 'commits × weighted lines';

function svg(w: number, hgt: number, cls: string, label: string): SVGSVGElement {
  const s = document.createElementNS(SVG, 'svg');
  s.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  s.setAttribute('class', cls);
  s.setAttribute('role', 'img');
  s.setAttribute('aria-label', label);
  return s;
}

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, title?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (title) {
    const t = document.createElementNS(SVG, 'title');
    t.textContent = title;
    e.append(t);
  }
  return e;
}

const colour = (names: string[]) => {
  const sorted = [...new Set(names)].sort();
  return (n: string) => PALETTE[Math.max(0, sorted.indexOf(n)) % PALETTE.length]!;
};

/**
 * table is a chart's text alternative: the same numbers as a table, folded
 * under the chart (a screen reader announces the summary and opens it;
 * copied, it pastes as rows and columns).
 */
function table(caption: string, head: string[], rows: Array<Array<string | number>>): HTMLElement {
  const t = h('table', { className: 'insight-data' });
  t.append(h('caption', { text: caption }));
  const thead = h('thead');
  const hr = h('tr');
  for (const c of head) {
    const th = h('th', { text: c });
    th.scope = 'col';
    hr.append(th);
  }
  thead.append(hr);
  const tbody = h('tbody');
  for (const r of rows) tbody.append(h('tr', {}, ...r.map((c) => h('td', { className: typeof c === 'number' ? 'num' : '', text: typeof c === 'number' ? c.toLocaleString('en-US') : c }))));
  t.append(thead, tbody);
  return h('details', { className: 'insight-table' }, h('summary', { text: `${caption} as a table` }), t);
}

export class InsightView {
  private window = '1y';

  constructor(
    private readonly root: HTMLElement,
    private readonly api: () => Api | null,
    /** status is called with the view's line for the status bar. */
    private readonly status: (text: string) => void = () => {},
  ) {}

  async load(): Promise<void> {
    const api = this.api();
    if (api === null) return;
    this.root.dataset.state = 'loading';
    try {
      const data = await api.insight({ window: this.window });
      this.draw(data);
      this.root.dataset.state = 'ready';
    } catch (e) {
      this.root.replaceChildren(h('p', { className: 'insight-error', text: `Insight cannot be shown: ${(e as Error).message}` }));
      this.root.dataset.state = 'error';
      this.status('insight: cannot be read');
    }
  }

  private draw(d: Insight): void {
    const pick = h('select') as HTMLSelectElement;
    pick.className = 'insight-window';
    pick.setAttribute('aria-label', 'Window');
    for (const [v, label] of [
      ['90d', 'last 90 days'],
      ['1y', 'last year'],
      ['all', 'whole history'],
    ]) {
      const o = h('option', { text: label });
      o.value = v!;
      o.selected = v === this.window;
      pick.append(o);
    }
    pick.addEventListener('change', () => {
      this.window = pick.value;
      void this.load();
    });
    const head = h(
      'header',
      { className: 'insight-head' },
      h('h2', { text: `${d.windowCommits} of ${d.commits} commits in the window` }),
      pick,
      h('span', { className: 'muted', text: `bulk changes (over ${d.bulkThreshold} files): ${d.bulkCommits}, left out of hotspots, affinity and ownership` }),
    );
    const parts: HTMLElement[] = [head];
    for (const n of d.notes) parts.push(h('p', { className: 'insight-note', text: n }));
    parts.push(this.hotspots(d), this.affinity(d), this.ownership(d), this.trend(d), this.volatility(d));
    this.root.replaceChildren(...parts);
    const windowName = { '90d': 'the last 90 days', '1y': 'the last year', all: 'the whole history' }[this.window] ?? this.window;
    this.status(`insight: ${d.windowCommits} of ${d.commits} commits in ${windowName} · ${d.hotspots?.files.length ?? 0} hotspots · ${d.bulkCommits} bulk changes left out${d.head ? ` · HEAD ${d.head.slice(0, 7)}` : ''}`);
  }

  private section(cls: string, title: string, explain: string): HTMLElement {
    return h('section', { className: `insight-lens ${cls}` }, h('h3', { text: title }), h('p', { className: 'muted', text: explain }));
  }

  private hotspots(d: Insight): HTMLElement {
    const sec = this.section('insight-hotspots', 'Hotspots', `Files by changes in the window × complexity now (area; ${SCORE_UNIT}), grouped by project.`);
    const hs = d.hotspots;
    if (hs && hs.leftOut.length > 0) {
      const p = h('p', { className: 'insight-left-out' });
      p.append(
        `Left out: ${hs.leftOut.map((l) => `${l.files} ${l.kind}`).join(', ')} (${hs.leftOut.flatMap((l) => l.top.slice(0, 1)).join(', ')}…). `,
        h('code', { text: `core insight --include ${hs.leftOut.map((l) => l.kind).join(',')}` }),
        ' or ',
        h('code', { text: `include=${hs.leftOut.map((l) => l.kind).join(',')}` }),
        ' counts them.',
      );
      p.title = hs.note;
      sec.append(p);
    }
    const files = hs?.files ?? [];
    if (files.length === 0) {
      sec.append(h('p', { className: 'insight-empty', text: 'No hotspot: no file changed in the window still exists.' }));
      return sec;
    }
    const W = 640;
    const H = 320;
    type Leaf = { name: string; path?: string; project?: string; score?: number; changes?: number; complexity?: number; children?: Leaf[] };
    const byProject = new Map<string, Leaf[]>();
    for (const f of files) {
      const p = f.project || '(no project)';
      if (!byProject.has(p)) byProject.set(p, []);
      byProject.get(p)!.push({ name: f.path, path: f.path, project: p, score: f.score, changes: f.changes, complexity: f.complexity });
    }
    const tree: Leaf = { name: '', children: [...byProject].map(([name, children]) => ({ name, children })) };
    const root = treemap<Leaf>().size([W, H]).paddingInner(2).paddingTop(0).round(true)(
      hierarchy(tree)
        .sum((n) => n.score ?? 0)
        .sort((a, b) => (b.value ?? 0) - (a.value ?? 0)),
    );
    const col = colour([...byProject.keys()]);
    const s = svg(W, H, 'treemap', `Treemap of the ${files.length} hottest files; the table below lists them`);
    for (const leaf of root.leaves() as HierarchyRectangularNode<Leaf>[]) {
      const n = leaf.data;
      const g = el('g', {});
      const r = el('rect', { x: leaf.x0, y: leaf.y0, width: leaf.x1 - leaf.x0, height: leaf.y1 - leaf.y0, fill: col(n.project ?? ''), class: 'cell' },
        `${n.path}\n${n.project}\n${n.changes} changes × complexity ${n.complexity} = ${n.score} ${SCORE_UNIT}`);
      r.setAttribute('data-path', n.path ?? '');
      g.append(r);
      if (leaf.x1 - leaf.x0 > 60 && leaf.y1 - leaf.y0 > 16) {
        const t = el('text', { x: leaf.x0 + 4, y: leaf.y0 + 13, class: 'cell-label' });
        const base = (n.path ?? '').split('/').pop() ?? '';
        t.textContent = base.length * 6.5 > leaf.x1 - leaf.x0 - 8 ? `${base.slice(0, Math.max(1, Math.floor((leaf.x1 - leaf.x0 - 8) / 6.5) - 1))}…` : base;
        g.append(t);
      }
      s.append(g);
    }
    sec.append(s, table('Hotspot files', ['file', 'project', 'changes', 'complexity', `score (${SCORE_UNIT})`], files.map((f) => [f.path, f.project || '—', f.changes, f.complexity, f.score])));
    const projects = hs?.projects ?? [];
    if (projects.length > 0) {
      // A log scale: one big project must not flatten every other bar.
      const top = Math.max(...projects.map((p) => p.score), 1);
      sec.append(h('h4', { text: `Projects: commits × summed complexity (${SCORE_UNIT}), log scale` }));
      const bars = h('ol', { className: 'insight-bars' });
      bars.setAttribute('aria-label', 'Projects by hotspot score, log scale');
      for (const p of projects) {
        const bar = h('span', { className: 'bar' });
        bar.style.width = `${Math.max(1, logShare(p.score, top) * 100)}%`;
        bar.style.background = col(p.project);
        const li = h(
          'li',
          { title: `${p.project}: ${p.changes} commits × complexity ${p.complexity} = ${p.score.toLocaleString('en-US')} ${SCORE_UNIT}` },
          h('span', { className: 'name', text: p.project }),
          h('span', { className: 'track' }, bar),
          h('span', { className: 'num', text: compact(p.score) }),
        );
        li.dataset.project = p.project;
        bars.append(li);
      }
      sec.append(bars, table('Hotspot projects', ['project', 'commits', 'complexity', `score (${SCORE_UNIT})`], projects.map((p) => [p.project, p.changes, p.complexity, p.score])));
    }
    return sec;
  }

  private affinity(d: Insight): HTMLElement {
    const sec = this.section('insight-affinity', 'Affinity', 'Projects changed in the same commits (ribbon width: commits together). Amber: hidden coupling, no dependency declared or inferred.');
    const pairs = d.affinity?.projects ?? [];
    if (pairs.length === 0) {
      sec.append(h('p', { className: 'insight-empty', text: 'No two projects changed together twice in the window.' }));
    } else {
      const { names, matrix } = chordMatrix(pairs);
      const S = 340;
      const R = S / 2 - 40;
      const layout = chord().padAngle(0.05).sortSubgroups((a, b) => b - a)(matrix);
      const col = colour(names);
      const s = svg(S, S, 'chord', `Chord diagram of ${pairs.length} project pairs changed together; the table below lists them`);
      const g = el('g', { transform: `translate(${S / 2},${S / 2})` });
      const groupArc = arc<{ startAngle: number; endAngle: number }>().innerRadius(R).outerRadius(R + 10);
      for (const grp of layout.groups) {
        const name = names[grp.index]!;
        g.append(el('path', { d: groupArc(grp) ?? '', fill: col(name), class: 'group' }, name));
        const a = (grp.startAngle + grp.endAngle) / 2;
        const t = el('text', {
          x: Math.sin(a) * (R + 16),
          y: -Math.cos(a) * (R + 16),
          'text-anchor': a > Math.PI ? 'end' : 'start',
          class: 'chord-label',
        });
        t.textContent = name;
        g.append(t);
      }
      const hidden = new Set(pairs.filter((p) => p.hidden).map((p) => [p.a, p.b].sort().join('\u0000')));
      const rib = ribbon<Chord, unknown>().radius(R);
      for (const c of layout) {
        const a = names[c.source.index]!;
        const b = names[c.target.index]!;
        const isHidden = hidden.has([a, b].sort().join('\u0000'));
        const p = el('path', { d: (rib(c) as unknown as string) ?? '', fill: isHidden ? WARN : col(a), 'fill-opacity': 0.6, class: `ribbon${isHidden ? ' hidden' : ''}` }, `${a} + ${b}: ${c.source.value} commits together${isHidden ? ' (hidden coupling)' : ''}`);
        p.setAttribute('data-a', a);
        p.setAttribute('data-b', b);
        g.append(p);
      }
      s.append(g);
      sec.append(s);
      const list = h('ul', { className: 'insight-pairs' });
      for (const p of pairs) {
        list.append(h('li', { className: p.hidden ? 'hidden' : '', text: `${p.a} + ${p.b}: ${p.together} commits together, support ${pct(p.support)}, confidence ${pct(p.confidence)}${p.hidden ? ' — hidden coupling' : ''}` }));
      }
      sec.append(list, table('Project pairs', ['project', 'project', 'commits together', 'support', 'confidence', 'hidden coupling'], pairs.map((p) => [p.a, p.b, p.together, pct(p.support), pct(p.confidence), p.hidden ? 'yes' : 'no'])));
    }
    const files = d.affinity?.files ?? [];
    if (files.length > 0) {
      const list = h('ol', { className: 'insight-file-pairs' });
      for (const p of files.slice(0, 10)) list.append(h('li', { text: `${p.a} + ${p.b} (${p.together} commits, ${pct(p.confidence)})` }));
      sec.append(h('h4', { text: 'Files changed together' }), list, table('File pairs', ['file', 'file', 'commits together', 'confidence'], files.map((p) => [p.a, p.b, p.together, pct(p.confidence)])));
    }
    return sec;
  }

  private ownership(d: Insight): HTMLElement {
    const sec = this.section('insight-ownership', 'Ownership', "Each author's share of a project's commits. Bus factor: the fewest authors with over half of them.");
    const projects = d.ownership?.projects ?? [];
    if (projects.length === 0) {
      sec.append(h('p', { className: 'insight-empty', text: 'No project has a commit in the window.' }));
      return sec;
    }
    const col = colour(projects.flatMap((p) => p.owners.map((o) => o.author)));
    const list = h('ol', { className: 'insight-owners' });
    for (const p of projects) {
      const bar = h('span', { className: 'owner-bar' });
      bar.dataset.project = p.project;
      bar.setAttribute('role', 'img');
      bar.setAttribute('aria-label', `${p.project}: ${p.owners.map((o) => `${o.author} ${pct(o.share)}`).join(', ')}`);
      for (const o of p.owners) {
        const seg = h('span', { className: 'owner', title: `${o.author}: ${o.changes} commits, ${pct(o.share)}` });
        seg.style.width = `${o.share * 100}%`;
        seg.style.background = col(o.author);
        bar.append(seg);
      }
      const li = h(
        'li',
        {},
        h('span', { className: 'name', text: p.project }),
        h('span', { className: `bus${p.busFactor <= 1 ? ' risk' : ''}`, text: `bus ${p.busFactor}`, title: 'bus factor' }),
        bar,
        h('span', { className: 'muted', text: p.owners.slice(0, 3).map((o) => `${o.author} ${pct(o.share)}`).join(', ') }),
      );
      if (p.quiet.length > 0) li.append(h('span', { className: 'quiet', text: `quiet: ${p.quiet.map((q) => q.author).join(', ')}` }));
      list.append(li);
    }
    sec.append(
      list,
      table(
        'Owners',
        ['project', 'commits', 'bus factor', 'owners (share)', 'quiet'],
        projects.map((p) => [p.project, p.changes, p.busFactor, p.owners.map((o) => `${o.author} ${pct(o.share)}`).join(', '), p.quiet.map((q) => q.author).join(', ') || '—']),
      ),
    );
    return sec;
  }

  private trend(d: Insight): HTMLElement {
    const weeks = d.trend?.weeks ?? [];
    const sec = this.section(
      'insight-trend',
      'Trend',
      `Commits per project per week since ${weeks[0] ?? '—'}. The last 4 weeks (shaded) against the project's baseline (dashed: its weekly rate before them, since its first commit): rising, falling, steady, or new when it is too young to compare.`,
    );
    const projects = d.trend?.projects ?? [];
    if (projects.length === 0) {
      sec.append(h('p', { className: 'insight-empty', text: 'No project to chart.' }));
      return sec;
    }
    const list = h('ol', { className: 'insight-sparks' });
    for (const p of projects) {
      const li = h('li', { className: p.direction }, h('span', { className: 'name', text: p.project }), this.spark(p, weeks), h('span', { className: `direction ${p.direction}`, text: p.direction }), h('span', { className: 'muted', text: trendSentence(p) }));
      list.append(li);
    }
    sec.append(
      list,
      table(
        'Commits per week',
        ['project', ...weeks.map((w) => w.slice(5)), 'last 4 weeks', 'baseline per week', 'direction'],
        projects.map((p) => [p.project, ...p.counts, p.recent, p.baselineWeeks > 0 ? Number(p.baseline.toFixed(2)) : '—', p.direction]),
      ),
    );
    return sec;
  }

  /**
   * spark is one project's weeks as columns (readable at a glance: a
   * column a week, the top labelled), the last 4 weeks shaded, the baseline
   * dashed across, and the weeks before the project's first commit left
   * blank rather than drawn as zeros.
   */
  private spark(p: ProjectTrend, weeks: string[]): SVGSVGElement {
    const n = Math.max(p.counts.length, 1);
    const BW = 12;
    const GAP = 3;
    const H = 40;
    const TOP = 10;
    const W = n * (BW + GAP) + 24;
    const top = Math.max(...p.counts, p.baseline, 1);
    const y = (v: number) => H - 1 - (v / top) * (H - TOP - 2);
    const s = svg(W, H, 'spark', `${p.project}: ${trendSentence(p)}`);
    s.setAttribute('data-project', p.project);
    const recentFrom = Math.max(0, n - 4);
    s.append(el('rect', { x: recentFrom * (BW + GAP) - 1, y: 0, width: 4 * (BW + GAP), height: H, class: 'recent' }));
    const first = p.first ? p.first.slice(0, 10) : '';
    p.counts.forEach((c, i) => {
      const week = weeks[i] ?? '';
      const next = weeks[i + 1] ?? '9999';
      const before = first === '' || next <= first;
      const x = i * (BW + GAP);
      if (before) {
        s.append(el('rect', { x, y: H - 2, width: BW, height: 1, class: 'none' }, `${week}: before the first commit`));
        return;
      }
      const hgt = Math.max(c > 0 ? 2 : 1, H - 1 - y(c));
      s.append(el('rect', { x, y: H - 1 - hgt, width: BW, height: hgt, class: `week${i >= recentFrom ? ' last' : ''}` }, `${week}: ${c} commit${c === 1 ? '' : 's'}`));
    });
    if (p.baselineWeeks > 0) {
      const by = y(p.baseline);
      s.append(el('path', { d: `M0,${by}H${n * (BW + GAP)}`, class: 'baseline' }, `baseline: ${Number(p.baseline.toFixed(2))} a week`));
    }
    const label = el('text', { x: n * (BW + GAP) + 2, y: TOP, class: 'spark-top' });
    label.textContent = String(Math.max(...p.counts, 0));
    s.append(label);
    return s;
  }

  private volatility(d: Insight): HTMLElement {
    const v = d.volatility;
    const sec = this.section('insight-volatility', 'Volatility', `Targets whose result flips between runs with the same cache key, ranked by the 95% Wilson lower bound (at least ${v?.minSample ?? 3} same-key pairs; ${v?.runs ?? 0} runs read).`);
    const targets = v?.targets ?? [];
    if (targets.length === 0) {
      sec.append(h('p', { className: 'insight-empty', text: 'No run has flipped yet.' }));
      return sec;
    }
    const list = h('ol', { className: 'insight-flaky' });
    for (const t of targets) {
      const track = h('span', { className: 'track' });
      const rate = h('span', { className: 'bar', title: `rate ${pct(t.rate)}` });
      rate.style.width = `${t.rate * 100}%`;
      const lb = h('span', { className: 'lower', title: `at least ${pct(t.lowerBound)} (95%)` });
      lb.style.left = `${t.lowerBound * 100}%`;
      track.append(rate, lb);
      const li = h('li', {}, h('span', { className: 'name', text: t.target }), track, h('span', { className: 'num', text: `${t.flips}/${t.pairs} flips, at least ${pct(t.lowerBound)}` }));
      li.dataset.target = t.target;
      list.append(li);
    }
    sec.append(list, table('Flipping targets', ['target', 'runs', 'same-key pairs', 'flips', 'rate', 'at least (95%)'], targets.map((t) => [t.target, t.runs, t.pairs, t.flips, pct(t.rate), pct(t.lowerBound)])));
    show(sec, true);
    return sec;
  }
}

// The Insight view: the five lenses of GET /api/v1/insight as pictures.
// Hotspots are a treemap of files (area: score) grouped by project, beside
// ranked bars of projects; affinity a chord diagram of projects (hidden
// coupling in the warning colour) and a list of file pairs; ownership a
// stacked bar of owners' shares per project with its bus factor; trend a
// sparkline per project; volatility a ranked list with its rate and Wilson
// lower bound. d3's layout modules compute the shapes (d3-hierarchy,
// d3-chord, d3-shape); the page draws the SVG itself, and every string
// from the server goes in through textContent.

import { hierarchy, treemap, type HierarchyRectangularNode } from 'd3-hierarchy';
import { chord, ribbon, type Chord } from 'd3-chord';
import { arc, line } from 'd3-shape';
import { h, show } from './dom';
import type { Api } from './api';
import { chordMatrix, pct, type Insight } from './insightmodel';

const SVG = 'http://www.w3.org/2000/svg';
const WARN = '#d97706';
const PALETTE = ['#2563eb', '#16a34a', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#4f46e5', '#0d9488', '#b45309'];

function svg(w: number, hgt: number, cls: string): SVGSVGElement {
  const s = document.createElementNS(SVG, 'svg');
  s.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  s.setAttribute('class', cls);
  s.setAttribute('role', 'img');
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

export class InsightView {
  private window = '1y';

  constructor(
    private readonly root: HTMLElement,
    private readonly api: () => Api | null,
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
  }

  private section(cls: string, title: string, explain: string): HTMLElement {
    return h('section', { className: `insight-lens ${cls}` }, h('h3', { text: title }), h('p', { className: 'muted', text: explain }));
  }

  private hotspots(d: Insight): HTMLElement {
    const sec = this.section('insight-hotspots', 'Hotspots', 'Files by changes in the window × complexity now (area), grouped by project.');
    const files = d.hotspots?.files ?? [];
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
    const s = svg(W, H, 'treemap');
    for (const leaf of root.leaves() as HierarchyRectangularNode<Leaf>[]) {
      const n = leaf.data;
      const g = el('g', {});
      const r = el('rect', { x: leaf.x0, y: leaf.y0, width: leaf.x1 - leaf.x0, height: leaf.y1 - leaf.y0, fill: col(n.project ?? ''), class: 'cell' },
        `${n.path}\n${n.project}\n${n.changes} changes × complexity ${n.complexity} = ${n.score}`);
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
    sec.append(s);
    const projects = d.hotspots?.projects ?? [];
    if (projects.length > 0) {
      const top = Math.max(...projects.map((p) => p.score), 1);
      const bars = h('ol', { className: 'insight-bars' });
      for (const p of projects) {
        const bar = h('span', { className: 'bar' });
        bar.style.width = `${Math.max(1, (p.score / top) * 100)}%`;
        bar.style.background = col(p.project);
        const li = h('li', { title: `${p.changes} commits × complexity ${p.complexity}` }, h('span', { className: 'name', text: p.project }), h('span', { className: 'track' }, bar), h('span', { className: 'num', text: String(p.score) }));
        li.dataset.project = p.project;
        bars.append(li);
      }
      sec.append(bars);
    }
    return sec;
  }

  private affinity(d: Insight): HTMLElement {
    const sec = this.section('insight-affinity', 'Affinity', 'Projects changed in the same commits (ribbon width: commits together). Orange: hidden coupling, no dependency declared or inferred.');
    const pairs = d.affinity?.projects ?? [];
    if (pairs.length === 0) {
      sec.append(h('p', { className: 'insight-empty', text: 'No two projects changed together twice in the window.' }));
    } else {
      const { names, matrix } = chordMatrix(pairs);
      const S = 340;
      const R = S / 2 - 40;
      const layout = chord().padAngle(0.05).sortSubgroups((a, b) => b - a)(matrix);
      const col = colour(names);
      const s = svg(S, S, 'chord');
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
        list.append(h('li', { className: p.hidden ? 'hidden' : '', text: `${p.a} + ${p.b}: ${p.together} together, support ${pct(p.support)}, confidence ${pct(p.confidence)}${p.hidden ? ' — hidden coupling' : ''}` }));
      }
      sec.append(list);
    }
    const files = d.affinity?.files ?? [];
    if (files.length > 0) {
      const list = h('ol', { className: 'insight-file-pairs' });
      for (const p of files.slice(0, 10)) list.append(h('li', { text: `${p.a} + ${p.b} (${p.together}, ${pct(p.confidence)})` }));
      sec.append(h('h4', { text: 'Files changed together' }), list);
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
    sec.append(list);
    return sec;
  }

  private trend(d: Insight): HTMLElement {
    const weeks = d.trend?.weeks ?? [];
    const sec = this.section('insight-trend', 'Trend', `Commits per project per week since ${weeks[0] ?? '—'}; rising or falling compares the last 4 weeks with the 4 before.`);
    const projects = d.trend?.projects ?? [];
    if (projects.length === 0) {
      sec.append(h('p', { className: 'insight-empty', text: 'No project to chart.' }));
      return sec;
    }
    const list = h('ol', { className: 'insight-sparks' });
    const W = 120;
    const H = 24;
    for (const p of projects) {
      const top = Math.max(...p.counts, 1);
      const x = (i: number) => (p.counts.length <= 1 ? 0 : (i / (p.counts.length - 1)) * (W - 2) + 1);
      const y = (v: number) => H - 2 - (v / top) * (H - 4);
      const s = svg(W, H, 'spark');
      const path = el('path', { d: line<number>().x((_, i) => x(i)).y((v) => y(v))(p.counts) ?? '', class: `spark ${p.direction}`, fill: 'none' }, p.counts.map((c, i) => `${weeks[i] ?? ''}: ${c}`).join('\n'));
      path.setAttribute('data-project', p.project);
      s.append(path);
      list.append(h('li', { className: p.direction }, h('span', { className: 'name', text: p.project }), s, h('span', { className: 'direction', text: p.direction })));
    }
    sec.append(list);
    return sec;
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
    sec.append(list);
    show(sec, true);
    return sec;
  }
}

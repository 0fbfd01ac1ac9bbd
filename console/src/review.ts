// The Review view beside the explorer (live mode only): the working tree's
// change in reading order with role and reach badges, each file's diff
// with uncovered lines marked and its changed symbols linked to their
// graph nodes, the blast radius with each chain on demand, and the review
// session (viewed marks, comments) written through POST
// /api/v1/diff/session. Every string from the server goes in through
// textContent (dom.h): diff lines, paths and comments are never HTML.

import { h, show } from './dom';
import { ApiError, type Api } from './api';
import { groupByProject, reach, reason, sessionOp, splitPatch, type PatchLine, type Reached, type ReviewComment, type ReviewFile, type ReviewPage, type ReviewSession } from './reviewmodel';
import { commentsAt, elsewhere as forgeElsewhere, headline, safeLink, worthShowing, type ForgeComment, type ForgeReview } from './forgemodel';

export interface ReviewHooks {
  /** openSymbol shows a changed symbol in the knowledge graph. */
  openSymbol(id: string, name: string): void;
  /** status is called with the view's line for the status bar. */
  status(text: string): void;
}

/** Above this many affected targets, their chains start folded (each summary still says why). */
const OPEN_CHAINS = 20;

export class ReviewView {
  private page: ReviewPage | null = null;
  private forge: ForgeReview | null = null;
  private patches = new Map<string, PatchLine[]>();
  private selected = '';
  private busy = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly api: () => Api | null,
    private readonly hooks: ReviewHooks,
  ) {}

  /** load fetches the page and the patch and draws them. */
  async load(): Promise<void> {
    const api = this.api();
    if (api === null) return;
    this.root.dataset.state = 'loading';
    try {
      // The forge is asked beside the change; its answer is always a 200
      // that says what is there, and a failure here only leaves it out.
      const [page, patch, forge] = await Promise.all([api.diff(), api.patch(), api.forgeReview().catch(() => null)]);
      this.page = page;
      this.forge = forge;
      this.patches = splitPatch(patch);
      if (!page.files.some((f) => f.path === this.selected)) this.selected = page.files[0]?.path ?? '';
      this.draw(null);
      this.root.dataset.state = 'ready';
    } catch (e) {
      this.root.replaceChildren(h('p', { className: 'review-error', text: `The review cannot be shown: ${(e as Error).message}` }));
      this.root.dataset.state = 'error';
      this.hooks.status('review: cannot be read');
    }
  }

  /** statusLine is what the status bar says of the change shown. */
  private statusLine(page: ReviewPage): string {
    const files = page.files.length;
    const added = page.files.reduce((n, f) => n + f.added, 0);
    const deleted = page.files.reduce((n, f) => n + f.deleted, 0);
    const against = page.baseRef === 'HEAD' ? 'HEAD' : `merge base with ${page.baseRef}`;
    const viewed = page.files.filter((f) => f.hash !== '' && page.session.viewed.get(f.path) === f.hash).length;
    return [
      `review: ${files} file${files === 1 ? '' : 's'} changed against ${against} (+${added} −${deleted})`,
      `affects ${page.projects.length} project${page.projects.length === 1 ? '' : 's'}, ${page.targets.length} target${page.targets.length === 1 ? '' : 's'}`,
      `${viewed} of ${files} viewed`,
    ].join(' · ');
  }

  private draw(notice: string | null): void {
    const page = this.page;
    if (page === null) return;
    // Files by project, each group in reading order, the groups in the
    // order of their first file.
    const files = h('ol', { className: 'review-files' });
    const groups = groupByProject(page.files);
    for (const g of groups) {
      const list = h('ol', { className: 'review-group-files' });
      for (const f of g.files) list.append(this.fileItem(f, page.session));
      const title = h('h3', { className: 'review-group-name', text: g.project || 'no project' });
      title.append(h('span', { className: 'muted', text: ` · ${g.files.length} file${g.files.length === 1 ? '' : 's'}` }));
      const li = h('li', { className: 'review-group' }, title, list);
      li.dataset.project = g.project;
      files.append(li);
    }
    const against = page.baseRef === 'HEAD' ? 'HEAD' : `the merge base with ${page.baseRef}`;
    const head = h(
      'header',
      { className: 'review-head' },
      h('h2', { text: page.files.length === 0 ? `No change against ${against}` : `${page.files.length} changed against ${against}` }),
      h('span', { className: 'review-session', text: sessionSummary(page.session, page.files.length) }),
    );
    // The forge only when one is configured or the remote names one: a
    // local-path remote or none at all is not news.
    if (this.forge !== null && worthShowing(this.forge)) head.append(this.forgeHeader(this.forge));
    const refresh = h('button', { type: 'button', className: 'review-refresh', text: 'Refresh', title: 'Read the working tree again' });
    refresh.addEventListener('click', () => void this.load());
    head.append(refresh);
    const side = h('nav', { className: 'review-side' }, head, files, this.affected(page));
    const main = h('section', { className: 'review-main' });
    if (notice) main.append(h('p', { className: 'review-notice', text: notice }));
    if (page.session.notice) main.append(h('p', { className: 'review-notice', text: page.session.notice }));
    const f = page.files.find((x) => x.path === this.selected);
    if (f) main.append(this.fileView(f, page.session));
    this.root.replaceChildren(side, main);
    this.hooks.status(this.statusLine(page));
  }

  private fileItem(f: ReviewFile, s: ReviewSession): HTMLLIElement {
    const viewed = s.viewed.get(f.path) === f.hash && f.hash !== '';
    const li = h(
      'li',
      { className: `review-file${f.path === this.selected ? ' selected' : ''}${viewed ? ' viewed' : ''}` },
      h('button', { type: 'button', className: 'review-path', text: f.oldPath ? `${f.oldPath} → ${f.path}` : f.path, title: `${f.kind}, ${f.project || 'no project'}` }),
      h('span', { className: `badge role-${f.role}`, text: f.role }),
      h('span', { className: 'badge kind', text: f.kind }),
    );
    const r = reach(f);
    if (r > 0) li.append(h('span', { className: 'badge reach', text: `reach ${r}`, title: `${r} files use what this file changes` }));
    if (f.uncovered.size > 0) li.append(h('span', { className: 'badge uncovered', text: `${f.uncovered.size} uncovered` }));
    if (viewed) li.append(h('span', { className: 'badge viewed', text: 'viewed' }));
    li.dataset.path = f.path;
    li.querySelector('button')!.addEventListener('click', () => {
      this.selected = f.path;
      this.draw(null);
    });
    return li;
  }

  /**
   * affected lists the blast radius: each target, then each project, with
   * why it is affected on its own line (the chain's first step and the
   * change it ends at) and the whole chain under it, folded when there
   * are many.
   */
  private affected(page: ReviewPage): HTMLElement {
    const sec = h('section', { className: 'review-affected' }, h('h3', { text: `Affects ${page.projects.length} projects, ${page.targets.length} targets` }));
    const open = page.targets.length <= OPEN_CHAINS;
    const item = (r: Reached, kind: string) => {
      const summary = h('summary', { className: 'review-reached', title: r.chain.join(' ← ') }, h('span', { className: 'reached-id', text: r.id }), h('span', { className: 'reason', text: reason(r.chain) }));
      const chain = h('ol', { className: 'chain' }, ...r.chain.slice(1).map((step) => h('li', { text: step })));
      const d = h('details', { className: `review-reason ${kind}` }, summary, chain);
      d.open = open && kind === 'target';
      d.dataset.id = r.id;
      return h('li', {}, d);
    };
    if (page.targets.length > 0) sec.append(h('h4', { text: 'Targets' }), h('ul', { className: 'review-targets' }, ...page.targets.map((r) => item(r, 'target'))));
    if (page.projects.length > 0) sec.append(h('h4', { text: 'Projects' }), h('ul', { className: 'review-projects' }, ...page.projects.map((r) => item(r, 'project'))));
    return sec;
  }

  private fileView(f: ReviewFile, s: ReviewSession): HTMLElement {
    const viewed = s.viewed.get(f.path) === f.hash && f.hash !== '';
    const mark = h('input') as HTMLInputElement;
    mark.type = 'checkbox';
    mark.className = 'review-viewed';
    mark.checked = viewed;
    mark.disabled = f.hash === '';
    mark.addEventListener('change', () => {
      void this.write(mark.checked ? { op: 'view', path: f.path, hash: f.hash } : { op: 'unview', path: f.path });
    });
    const head = h(
      'header',
      { className: 'review-file-head' },
      h('h3', { text: f.path }),
      h('label', {}, mark, ' Viewed'),
      h('span', { className: 'muted', text: f.coverageFrom ? `coverage from ${f.coverageFrom}` : 'no coverage declared' }),
    );
    const syms = h('ul', { className: 'review-symbols' });
    for (const sym of f.symbols) {
      const b = h('button', { type: 'button', className: 'review-symbol', text: `${sym.name} (${sym.kind})`, title: `Show ${sym.id} in the graph` });
      b.addEventListener('click', () => this.hooks.openSymbol(sym.id, sym.name));
      const used = sym.filesTotal === 0 ? 'used nowhere else' : `used by ${sym.filesTotal} file${sym.filesTotal === 1 ? '' : 's'}${sym.projects.length ? ` in ${sym.projects.join(', ')}` : ''}`;
      syms.append(h('li', {}, b, ` ${used}`));
    }
    const view = h('article', { className: 'review-file-view' }, head);
    if (f.symbols.length > 0) view.append(syms);
    const lines = this.patches.get(f.path) ?? (f.oldPath ? this.patches.get(f.oldPath) : undefined);
    if (f.binary || f.truncated || !lines) {
      view.append(h('p', { className: 'muted', text: f.binary ? 'Binary file: no lines to show.' : f.truncated ? 'Too large to show.' : 'The patch of this file is not shown.' }));
      return view;
    }
    const comments = s.comments.filter((c) => c.path === f.path);
    const table = h('table', { className: 'review-diff' });
    for (const l of lines) {
      if (l.kind === 'meta') continue;
      const row = h(
        'tr',
        { className: `line ${l.kind}${l.newNo !== undefined && f.uncovered.has(l.newNo) && l.kind === 'add' ? ' uncovered' : ''}` },
        h('td', { className: 'no', text: l.oldNo !== undefined ? String(l.oldNo) : '' }),
        h('td', { className: 'no new', text: l.newNo !== undefined ? String(l.newNo) : '' }),
        h('td', { className: 'code', text: l.kind === 'hunk' ? l.text : `${l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' '}${l.text}` }),
      );
      if (l.newNo !== undefined) {
        row.dataset.line = String(l.newNo);
        const no = row.children[1] as HTMLElement;
        no.title = 'Comment on this line';
        no.addEventListener('click', () => this.commentForm(table, row, f, l));
      }
      table.append(row);
      for (const c of comments.filter((c) => l.newNo !== undefined && c.line === l.newNo)) table.append(this.commentRow(c));
      if (l.newNo !== undefined && l.kind !== 'del') for (const c of commentsAt(this.forge, f.path, l.newNo)) table.append(this.forgeRow(c));
    }
    view.append(table);
    const shown = new Set(lines.filter((l) => l.newNo !== undefined && l.kind !== 'del').map((l) => l.newNo!));
    const away = forgeElsewhere(this.forge, f.path, shown);
    if (away.length > 0) {
      const t = h('table', { className: 'review-diff forge-elsewhere' });
      const cap = h('caption', { text: 'On the forge, outdated or elsewhere in this file' });
      t.append(cap);
      for (const c of away) t.append(this.forgeRow(c));
      view.append(t);
    }
    const elsewhere = comments.filter((c) => !lines.some((l) => l.newNo === c.line));
    for (const c of elsewhere) view.append(h('table', { className: 'review-diff' }, this.commentRow(c)));
    return view;
  }

  /** forgeHeader is the pull request in one line, or why there is none. */
  private forgeHeader(r: ForgeReview): HTMLElement {
    const box = h('div', { className: `review-forge state-${r.state || 'unknown'}` });
    const text = headline(r);
    const url = r.pullRequest ? safeLink(r.pullRequest.url) : '';
    if (url) {
      const a = h('a', { text });
      a.href = url;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      box.append(a);
    } else {
      box.append(h('span', { className: 'muted', text }));
    }
    const general = r.comments.filter((c) => c.path === '');
    if (general.length > 0) box.append(h('span', { className: 'muted', text: ` · ${general.length} conversation comment${general.length === 1 ? '' : 's'}` }));
    return box;
  }

  /** forgeRow is a forge comment, as text, under its line. */
  private forgeRow(c: ForgeComment): HTMLTableRowElement {
    const where = c.line > 0 ? `line ${c.line}` : c.originalLine > 0 ? `was line ${c.originalLine}` : 'file';
    const meta = h('div', { className: 'comment-meta', text: `${c.author} on the forge · ${where}${c.side === 'LEFT' ? ' (old side)' : ''}` });
    const url = safeLink(c.url);
    if (url) {
      const a = h('a', { text: ' open' });
      a.href = url;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      meta.append(a);
    }
    const cell = h('td', {}, meta, h('div', { className: 'comment-body', text: c.body }));
    cell.colSpan = 3;
    const tr = h('tr', { className: 'forge-comment' }, cell);
    tr.dataset.forge = String(c.id);
    return tr;
  }

  private commentRow(c: ReviewComment): HTMLTableRowElement {
    const resolve = h('button', { type: 'button', text: c.resolved ? 'Reopen' : 'Resolve' });
    resolve.addEventListener('click', () => void this.write({ op: c.resolved ? 'reopen' : 'resolve', id: c.id }));
    const del = h('button', { type: 'button', text: 'Delete' });
    del.addEventListener('click', () => void this.write({ op: 'delete', id: c.id }));
    const cell = h(
      'td',
      {},
      h('div', { className: 'comment-meta', text: `${c.author.kind} ${c.author.id} · line ${c.line}${c.outdated ? ' · outdated' : ''}${c.resolved ? ' · resolved' : ''}` }),
      h('div', { className: 'comment-body', text: c.body }),
      resolve,
      del,
    );
    cell.colSpan = 3;
    const tr = h('tr', { className: `comment${c.resolved ? ' resolved' : ''}` }, cell);
    tr.dataset.comment = c.id;
    return tr;
  }

  private commentForm(table: HTMLTableElement, row: HTMLTableRowElement, f: ReviewFile, l: PatchLine): void {
    if (table.querySelector('.comment-form')) return;
    const text = h('textarea', { className: 'comment-input' }) as HTMLTextAreaElement;
    text.placeholder = `Comment on line ${l.newNo}`;
    const save = h('button', { type: 'button', className: 'comment-save', text: 'Comment' });
    const cancel = h('button', { type: 'button', text: 'Cancel' });
    const err = h('p', { className: 'review-error' });
    show(err, false);
    const cell = h('td', {}, text, save, cancel, err);
    cell.colSpan = 3;
    const form = h('tr', { className: 'comment-form' }, cell);
    row.after(form);
    text.focus();
    cancel.addEventListener('click', () => form.remove());
    save.addEventListener('click', () => {
      if (text.value.trim() === '') return;
      void this.write({ op: 'comment', path: f.path, line: l.newNo!, text: l.text, body: text.value }).then((ok) => {
        if (!ok) {
          // Keep what was typed: the page was read again; try again.
          err.textContent = 'The comment was not saved (see the notice above); it is kept here, send it again.';
          show(err, true);
        }
      });
    });
  }

  /** write sends one session operation and redraws from the answer. */
  private async write(op: Record<string, string | number>): Promise<boolean> {
    const api = this.api();
    const page = this.page;
    if (api === null || page === null || this.busy) return false;
    this.busy = true;
    try {
      page.session = await api.sessionWrite(sessionOp(page.session.version, op));
      this.draw(null);
      return true;
    } catch (e) {
      const msg = (e as Error).message;
      if (e instanceof ApiError && e.status === 409) {
        // Someone else wrote: read again, keep the form's text.
        const fresh = await api.diff().catch(() => null);
        if (fresh) page.session = fresh.session;
      }
      const form = this.root.querySelector('.comment-form');
      this.draw(`Not saved: ${msg}`);
      if (form) {
        const row = this.root.querySelector(`tr[data-line="${String(op.line ?? '')}"]`);
        row?.after(form);
      }
      return false;
    } finally {
      this.busy = false;
    }
  }
}

function sessionSummary(s: ReviewSession, files: number): string {
  const open = s.comments.filter((c) => !c.resolved).length;
  return `review of ${s.branch || 'this branch'}: ${s.comments.length} comments (${open} open), ${s.viewed.size} of ${files} viewed`;
}

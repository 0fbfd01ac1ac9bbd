// The index problems of the status line: paths the index skipped or could
// not parse (over the 2 MiB limit, unreadable, a symlink loop, a parse
// error), from GetStatus's graph.indexDiagnostics / graph.indexProblems.
// A <details> element: "N paths not indexed", opening to the list.

import type { IndexProblem } from './api';
import { h, show } from './dom';

export interface IndexProblemsView {
  summary: string;
  items: IndexProblem[];
  /** The line under the list when the status lists fewer than the count. */
  more: string | null;
}

/** indexProblemsView is what the status line shows; null when there is nothing to show. */
export function indexProblemsView(count: number, problems: IndexProblem[]): IndexProblemsView | null {
  const n = Math.max(count, problems.length);
  if (n === 0) return null;
  const rest = n - problems.length;
  return {
    summary: n === 1 ? '1 path not indexed' : `${n} paths not indexed`,
    items: problems,
    more: rest > 0 ? `… and ${rest} more` : null,
  };
}

/**
 * renderIndexProblems fills the <details> element (index.html gives it a
 * <summary> and a <ul>, which stay: a status that arrives while the user
 * clicks does not pull the summary from under the pointer, and an open
 * list stays open).
 */
export function renderIndexProblems(el: HTMLDetailsElement, view: IndexProblemsView | null): void {
  const summary = el.querySelector('summary');
  const list = el.querySelector('ul');
  if (!summary || !list) return;
  if (view === null) {
    el.open = false;
    summary.textContent = '';
    list.replaceChildren();
    show(el, false);
    return;
  }
  summary.textContent = view.summary;
  const items = view.items.map((p) =>
    h('li', {}, h('code', { className: 'problem-path', text: p.path }), h('span', { className: 'problem-reason', text: p.message })),
  );
  list.replaceChildren(...items, ...(view.more ? [h('li', { className: 'more', text: view.more })] : []));
  show(el, true);
}

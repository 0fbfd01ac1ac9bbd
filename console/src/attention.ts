// The Attention view (live mode only): what agents are waiting on a person
// for, open requests first, each with a form that disposes it through
// POST /api/v1/attention {id, reason}; the waiting agent receives the
// reason. Closed requests stay below as a record. Every string from the
// server goes in through textContent (dom.h): an agent's words are never
// HTML.

import { h } from './dom';
import { ApiError, type Api } from './api';
import { badgeText, type AttentionQueue, type AttentionRequest } from './attentionmodel';

export class AttentionView {
  private queue: AttentionQueue | null = null;
  /** drafts keeps what the person typed per request across redraws (an event redraws the queue). */
  private readonly drafts = new Map<string, string>();

  constructor(
    private readonly root: HTMLElement,
    private readonly badge: HTMLElement,
    private readonly api: () => Api | null,
    /** status is called with the view's line for the status bar. */
    private readonly status: (text: string) => void = () => {},
  ) {}

  /** load fetches the queue, sets the badge and, when shown, draws it. */
  async load(): Promise<void> {
    const api = this.api();
    if (api === null) return;
    try {
      this.queue = await api.attention();
      this.badge.textContent = badgeText(this.queue.open);
      this.badge.parentElement?.classList.toggle('waiting', this.queue.open > 0);
      this.draw(null);
      this.root.dataset.state = 'ready';
    } catch (e) {
      this.root.replaceChildren(h('p', { className: 'attention-error', text: `The attention queue cannot be shown: ${(e as Error).message}` }));
      this.root.dataset.state = 'error';
    }
  }

  private draw(notice: string | null): void {
    const q = this.queue;
    if (q === null) return;
    const open = q.requests.filter((r) => r.state === 'open');
    const closed = q.requests.filter((r) => r.state !== 'open');
    this.status(`attention: ${open.length} open request${open.length === 1 ? '' : 's'}, ${closed.length} answered`);
    const head = h('h2', { text: open.length === 0 ? 'No agent is waiting on you' : `${open.length} agent request${open.length === 1 ? '' : 's'} waiting on you` });
    const parts: HTMLElement[] = [head];
    if (notice) parts.push(h('p', { className: 'attention-notice', text: notice }));
    const list = h('ol', { className: 'attention-open' });
    for (const r of open) list.append(this.openItem(r));
    parts.push(list);
    if (closed.length > 0) {
      const done = h('ol', { className: 'attention-closed' });
      for (const r of closed) {
        done.append(
          h(
            'li',
            { className: `attention-request ${r.state}` },
            h('p', { className: 'attention-need', text: r.need }),
            h('p', { className: 'muted', text: r.state === 'withdrawn' ? 'withdrawn by the agent' : `answered: ${r.reason}` }),
          ),
        );
      }
      parts.push(h('h3', { text: 'Closed' }), done);
    }
    this.root.replaceChildren(...parts);
  }

  private openItem(r: AttentionRequest): HTMLLIElement {
    const reason = h('textarea') as HTMLTextAreaElement;
    reason.className = 'attention-reason';
    reason.rows = 2;
    reason.maxLength = 4096;
    reason.placeholder = 'Your answer: the agent reads it and continues';
    reason.setAttribute('aria-label', `Answer to ${r.id}`);
    reason.value = this.drafts.get(r.id) ?? '';
    reason.addEventListener('input', () => this.drafts.set(r.id, reason.value));
    const send = h('button', { type: 'submit', className: 'attention-dispose', text: 'Answer' });
    const form = h('form', { className: 'attention-form' }, reason, send);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      void this.dispose(r.id, reason.value, send);
    });
    const about = [r.node, r.file].filter((x) => x !== '').join(' · ');
    const li = h(
      'li',
      { className: 'attention-request open' },
      h('p', { className: 'attention-need', text: r.need }),
      h('p', { className: 'muted', text: `${about ? `${about} — ` : ''}asked by ${r.agent} at ${new Date(r.created).toLocaleString()}` }),
      form,
    );
    li.dataset.id = r.id;
    return li;
  }

  private async dispose(id: string, reason: string, button: HTMLButtonElement): Promise<void> {
    const api = this.api();
    if (api === null) return;
    if (reason.trim() === '') {
      this.draw('Write an answer first: the agent receives it.');
      return;
    }
    button.disabled = true;
    try {
      await api.disposeAttention(id, reason);
      this.drafts.delete(id);
      await this.load();
    } catch (e) {
      button.disabled = false;
      const msg = e instanceof ApiError ? e.message : (e as Error).message;
      this.draw(`Not sent: ${msg}`);
      if (e instanceof ApiError && e.status === 409) await this.load();
    }
  }
}

// Where the live-mode token lives (spec: "Client-side storage").
//
//   core-live-token     sessionStorage (tab lifetime); moved to localStorage
//                       only while 'Remember this workspace' is ticked
//   core-live-remember  localStorage, "1" only while the box is ticked
//
// Nothing is written before live mode is used; no cookies, ever.

export const TOKEN_KEY = 'core-live-token';
export const REMEMBER_KEY = 'core-live-remember';

/** The subset of the Web Storage API the store uses. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

function safeGet(s: StorageLike | null, key: string): string | null {
  if (!s) return null;
  try {
    return s.getItem(key);
  } catch {
    return null;
  }
}

function safeRemove(s: StorageLike | null, key: string): void {
  if (!s) return;
  try {
    s.removeItem(key);
  } catch {
    /* storage disabled */
  }
}

export class TokenStore {
  constructor(
    private readonly session: StorageLike | null,
    private readonly local: StorageLike | null,
  ) {}

  /** remembered tells whether 'Remember this workspace' is ticked. */
  remembered(): boolean {
    return safeGet(this.local, REMEMBER_KEY) !== null;
  }

  /** load returns the stored token: localStorage when remembered, else sessionStorage. */
  load(): string | null {
    const t = this.remembered() ? safeGet(this.local, TOKEN_KEY) : safeGet(this.session, TOKEN_KEY);
    return t && t !== '' ? t : null;
  }

  /** save keeps a fresh token where the remember setting says. */
  save(token: string): void {
    if (this.remembered() && this.local) {
      this.local.setItem(TOKEN_KEY, token);
      safeRemove(this.session, TOKEN_KEY);
      return;
    }
    if (!this.session) throw new Error('session storage is not available');
    this.session.setItem(TOKEN_KEY, token);
  }

  /**
   * setRemember applies the checkbox. Ticked: the token moves to
   * localStorage and core-live-remember is set. Unticked: both keys leave
   * localStorage and the token stays in (or returns to) sessionStorage.
   */
  setRemember(on: boolean): void {
    const token = this.load();
    if (on) {
      if (!this.local) throw new Error('local storage is not available');
      if (token !== null) this.local.setItem(TOKEN_KEY, token);
      this.local.setItem(REMEMBER_KEY, '1');
      safeRemove(this.session, TOKEN_KEY);
      return;
    }
    safeRemove(this.local, TOKEN_KEY);
    safeRemove(this.local, REMEMBER_KEY);
    if (token !== null && this.session) this.session.setItem(TOKEN_KEY, token);
  }

  /** clear forgets the token everywhere (401); the remember choice stays. */
  clear(): void {
    safeRemove(this.session, TOKEN_KEY);
    safeRemove(this.local, TOKEN_KEY);
  }
}

/** browserStorage returns window.sessionStorage / localStorage or null when blocked. */
export function browserStorage(which: 'session' | 'local'): StorageLike | null {
  try {
    return which === 'session' ? window.sessionStorage : window.localStorage;
  } catch {
    return null;
  }
}

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REMEMBER_KEY, TOKEN_KEY, TokenStore, type StorageLike } from '../src/storage';

class FakeStorage implements StorageLike {
  readonly map = new Map<string, string>();
  getItem(k: string) {
    return this.map.has(k) ? this.map.get(k)! : null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, String(v));
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
  dump() {
    return Object.fromEntries(this.map);
  }
}

class ThrowingStorage implements StorageLike {
  getItem(): string | null {
    throw new Error('SecurityError');
  }
  setItem(): void {
    throw new Error('SecurityError');
  }
  removeItem(): void {
    throw new Error('SecurityError');
  }
}

function setup() {
  const session = new FakeStorage();
  const local = new FakeStorage();
  return { session, local, store: new TokenStore(session, local) };
}

describe('TokenStore', () => {
  it('holds nothing and writes nothing until a token is saved', () => {
    const { session, local, store } = setup();
    expect(store.load()).toBeNull();
    expect(store.remembered()).toBe(false);
    expect(session.dump()).toEqual({});
    expect(local.dump()).toEqual({});
  });

  it('keeps a fresh token in session storage only', () => {
    const { session, local, store } = setup();
    store.save('core_console_a');
    expect(session.dump()).toEqual({ [TOKEN_KEY]: 'core_console_a' });
    expect(local.dump()).toEqual({});
    expect(store.load()).toBe('core_console_a');
  });

  it('moves the token to local storage when remembered', () => {
    const { session, local, store } = setup();
    store.save('t1');
    store.setRemember(true);
    expect(local.dump()).toEqual({ [TOKEN_KEY]: 't1', [REMEMBER_KEY]: '1' });
    expect(session.dump()).toEqual({});
    expect(store.load()).toBe('t1');
    expect(store.remembered()).toBe(true);
  });

  it('brings the token back to session storage when unticked', () => {
    const { session, local, store } = setup();
    store.save('t1');
    store.setRemember(true);
    store.setRemember(false);
    expect(local.dump()).toEqual({});
    expect(session.dump()).toEqual({ [TOKEN_KEY]: 't1' });
    expect(store.load()).toBe('t1');
  });

  it('reads local storage when remembered, session storage otherwise', () => {
    const { session, local, store } = setup();
    session.setItem(TOKEN_KEY, 'from-session');
    local.setItem(TOKEN_KEY, 'from-local');
    expect(store.load()).toBe('from-session');
    local.setItem(REMEMBER_KEY, '1');
    expect(store.load()).toBe('from-local');
  });

  it('survives a new tab when remembered (fresh session storage)', () => {
    const { local, store } = setup();
    store.save('t1');
    store.setRemember(true);
    const nextTab = new TokenStore(new FakeStorage(), local);
    expect(nextTab.load()).toBe('t1');
  });

  it('is forgotten by a new tab when not remembered', () => {
    const { local, store } = setup();
    store.save('t1');
    expect(new TokenStore(new FakeStorage(), local).load()).toBeNull();
  });

  it('saves a new pairing token to local storage while remembered', () => {
    const { session, local, store } = setup();
    store.save('old');
    store.setRemember(true);
    store.save('new');
    expect(local.getItem(TOKEN_KEY)).toBe('new');
    expect(session.dump()).toEqual({});
  });

  it('clears the token from both storages on expiry, keeping the choice', () => {
    const { session, local, store } = setup();
    store.save('t1');
    store.setRemember(true);
    session.setItem(TOKEN_KEY, 'stale');
    store.clear();
    expect(store.load()).toBeNull();
    expect(session.getItem(TOKEN_KEY)).toBeNull();
    expect(local.getItem(TOKEN_KEY)).toBeNull();
    expect(local.getItem(REMEMBER_KEY)).toBe('1');
  });

  it('ticking without a token only records the choice', () => {
    const { session, local, store } = setup();
    store.setRemember(true);
    expect(local.dump()).toEqual({ [REMEMBER_KEY]: '1' });
    expect(session.dump()).toEqual({});
  });

  it('reads nothing from blocked storage instead of throwing', () => {
    const store = new TokenStore(new ThrowingStorage(), new ThrowingStorage());
    expect(store.load()).toBeNull();
    expect(store.remembered()).toBe(false);
    expect(() => store.clear()).not.toThrow();
  });
});

describe('the page source', () => {
  const dir = new URL('../src/', import.meta.url);
  const files = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'));

  it('never touches cookies', () => {
    for (const f of files) expect(readFileSync(new URL(f, dir), 'utf8'), f).not.toMatch(/document\s*\.\s*cookie/);
  });

  it('reaches web storage only through storage.ts', () => {
    for (const f of files) {
      if (f === 'storage.ts') continue;
      expect(readFileSync(new URL(f, dir), 'utf8'), f).not.toMatch(/localStorage|sessionStorage/);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { linkCredential, MSG_NO_SESSION, originMessage, planBoot, type PageLocation } from '../src/boot';
import { parseFragment } from '../src/fragment';

const secret = 'A'.repeat(21) + '-_' + 'z9'.repeat(10); // 43 base64url chars
const consoleToken = `core_console_${secret}`;
const pairingCode = `core_pair_${secret}`;

const served: PageLocation = { protocol: 'http:', hostname: '127.0.0.1', port: '7391' };
const plan = (hash: string, loc: PageLocation = served) => planBoot(parseFragment(hash), loc);

describe('linkCredential', () => {
  it('uses a console token as it is', () => {
    expect(linkCredential(consoleToken)).toEqual({ kind: 'console', token: consoleToken });
  });

  it('trades a pairing code', () => {
    expect(linkCredential(pairingCode)).toEqual({ kind: 'pair', code: pairingCode });
  });

  it('takes a share token for the share view', () => {
    expect(linkCredential(`core_share_${secret}`)).toEqual({ kind: 'share', token: `core_share_${secret}` });
  });

  it('opens a share link on a LAN origin, and scrubs it', () => {
    const p = plan(`#token=core_share_${secret}`, { protocol: 'http:', hostname: '10.0.0.2', port: '41234' });
    expect(p).toEqual({ scrub: true, plan: { action: 'share', token: `core_share_${secret}` } });
  });

  it('refuses the other kinds, naming the kind but not the secret', () => {
    for (const kind of ['admin', 'mcp']) {
      const c = linkCredential(`core_${kind}_${secret}`);
      expect(c.kind).toBe('refused');
      if (c.kind !== 'refused') continue;
      expect(c.reason).toContain(`core_${kind}_`);
      expect(c.reason).toContain('core config console token create');
      expect(c.reason).not.toContain(secret);
    }
  });

  it('refuses a value of the wrong shape', () => {
    for (const v of ['abc', consoleToken.slice(0, -1), `${pairingCode}x`, `core_console_${'a'.repeat(42)}+`, ` ${consoleToken}`, 'CORE_CONSOLE_' + secret]) {
      const c = linkCredential(v);
      expect(c.kind, v).toBe('refused');
      if (c.kind === 'refused') expect(c.reason).toContain('core open');
    }
  });
});

describe('planBoot', () => {
  it('goes live with a console token from the link, which leaves the address bar', () => {
    expect(plan(`#token=${consoleToken}`)).toEqual({
      scrub: true,
      plan: { action: 'live', credential: { kind: 'console', token: consoleToken }, flavor: 'knowledge' },
    });
  });

  it('goes live with a pairing code to trade, with the target flavour', () => {
    expect(plan(`#token=${encodeURIComponent(pairingCode)}&flavor=targets`)).toEqual({
      scrub: true,
      plan: { action: 'live', credential: { kind: 'pair', code: pairingCode }, flavor: 'targets' },
    });
  });

  it('refuses another token, and still takes it out of the address bar', () => {
    const { scrub, plan: p } = plan(`#token=core_admin_${secret}`);
    expect(scrub).toBe(true);
    expect(p).toMatchObject({ action: 'fail' });
    const junk = plan('#token=not-a-token');
    expect(junk.scrub).toBe(true);
    expect(junk.plan).toMatchObject({ action: 'fail' });
  });

  it('refuses a token on an origin that is not 127.0.0.1 or [::1] before looking at it', () => {
    for (const hostname of ['localhost', '192.168.1.5', 'evil.example']) {
      expect(plan(`#token=${consoleToken}`, { protocol: 'http:', hostname, port: '7391' })).toEqual({
        scrub: true,
        plan: { action: 'fail', message: originMessage('7391'), withFileOpen: false },
      });
    }
    expect(plan(`#token=${pairingCode}`, { protocol: 'http:', hostname: '[::1]', port: '8000' }).plan).toMatchObject({ action: 'live' });
  });

  it('leaves a snapshot fragment where it is', () => {
    expect(plan('#data=q1YqyUxRslJKzs8tyM9LzSvRUcpJLEpXsqquBQA')).toMatchObject({ scrub: false, plan: { action: 'data' } });
    expect(plan('#src=http://127.0.0.1:8000/g.json', { protocol: 'file:', hostname: '', port: '' })).toMatchObject({
      scrub: false,
      plan: { action: 'src', url: 'http://127.0.0.1:8000/g.json' },
    });
  });

  it('without a fragment: live from storage on loopback, the origin message on localhost, else the core open message', () => {
    expect(plan('')).toEqual({ scrub: false, plan: { action: 'live', credential: null, flavor: 'knowledge' } });
    expect(plan('', { protocol: 'http:', hostname: 'localhost', port: '' }).plan).toEqual({
      action: 'fail',
      message: originMessage('7391'),
      withFileOpen: false,
    });
    expect(plan('', { protocol: 'file:', hostname: '', port: '' }).plan).toEqual({ action: 'fail', message: MSG_NO_SESSION, withFileOpen: true });
  });
});

describe('planBoot on the Runs view', () => {
  const runsPage: PageLocation = { ...served, pathname: '/console/runs/' };

  it('boots the Runs view from a run viewer link, with the code to trade and the run to show', () => {
    expect(plan(`#token=${encodeURIComponent(pairingCode)}&run=r1a2b3`, runsPage)).toEqual({
      scrub: true,
      plan: { action: 'runs', credential: { kind: 'pair', code: pairingCode }, run: 'r1a2b3' },
    });
  });

  it('boots it at the run viewer address without a run, and from storage without a token', () => {
    expect(plan(`#token=${consoleToken}`, runsPage).plan).toEqual({ action: 'runs', credential: { kind: 'console', token: consoleToken }, run: '' });
    expect(plan('', runsPage)).toEqual({ scrub: false, plan: { action: 'runs', credential: null, run: '' } });
    expect(plan('#run=r9', runsPage)).toEqual({ scrub: false, plan: { action: 'runs', credential: null, run: 'r9' } });
  });

  it('boots it wherever a run= comes beside the token', () => {
    expect(plan(`#token=${pairingCode}&run=r7`, { ...served, pathname: '/console/graph/' }).plan).toMatchObject({ action: 'runs', run: 'r7' });
  });

  it('keeps the checks of the explorer: another origin, another kind of token, a snapshot', () => {
    expect(plan(`#token=${pairingCode}&run=r1`, { ...runsPage, hostname: 'localhost' }).plan).toMatchObject({ action: 'fail', message: originMessage('7391') });
    expect(plan(`#token=core_admin_${secret}&run=r1`, runsPage)).toMatchObject({ scrub: true, plan: { action: 'fail' } });
    expect(plan('#data=q1YqyUxRslJKzs8tyM9LzSvRUcpJLEpXsqquBQA&run=r1', runsPage).plan).toMatchObject({ action: 'data' });
  });

  it('leaves the explorer alone elsewhere', () => {
    expect(plan(`#token=${pairingCode}`, { ...served, pathname: '/console/graph/' }).plan).toMatchObject({ action: 'live' });
  });
});

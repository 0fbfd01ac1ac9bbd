// The boot decision: what the page does with its fragment where it was
// opened. Pure: main.ts carries the plan out.

import { isLoopbackHostname, type Flavor, type Fragment } from './fragment';
import { isRunsPage } from './runsmodel';

export const MSG_NO_SESSION = 'No workspace to show in this tab — run `core open` in your workspace to open the explorer.';
export const originMessage = (port: string) =>
  `Open this page through http://127.0.0.1:${port}/console/graph/ — the console refuses other origins.`;

/**
 * What a #token= link carries: a console token (from `core config console
 * token create`) is used as it is; a pairing code (from `core open`) is
 * traded for one.
 */
export type Credential = { kind: 'console'; token: string } | { kind: 'pair'; code: string } | { kind: 'share'; token: string };

// Tokens are core_<kind>_<43 base64url chars> (docs/decisions.md, "Token kinds and grants").
const SECRET = '[A-Za-z0-9_-]{43}';
const CONSOLE_TOKEN = new RegExp(`^core_console_${SECRET}$`);
const PAIRING_CODE = new RegExp(`^core_pair_${SECRET}$`);
const SHARE_TOKEN = new RegExp(`^core_share_${SECRET}$`);
const OTHER_KIND = new RegExp(`^core_([a-z]+)_${SECRET}$`);

/**
 * linkCredential sorts the value of #token=. Anything but a console token
 * or a pairing code is refused with a reason that never repeats the value
 * (it may be a secret pasted by mistake).
 */
export function linkCredential(value: string): Credential | { kind: 'refused'; reason: string } {
  if (CONSOLE_TOKEN.test(value)) return { kind: 'console', token: value };
  if (PAIRING_CODE.test(value)) return { kind: 'pair', code: value };
  if (SHARE_TOKEN.test(value)) return { kind: 'share', token: value };
  const other = OTHER_KIND.exec(value);
  if (other)
    return {
      kind: 'refused',
      reason:
        `This link holds a core_${other[1]}_ token, which the console does not take: ` +
        'use a console token (`core config console token create`) or a pairing link from `core open`.',
    };
  return {
    kind: 'refused',
    reason:
      'The link holds neither a console token (core_console_…) nor a pairing code (core_pair_…), ' +
      'or it was cut short: run `core open` for a fresh link.',
  };
}

/** The parts of window.location the decision reads. */
export interface PageLocation {
  protocol: string;
  hostname: string;
  port: string;
  pathname?: string;
}

export type BootPlan =
  | { action: 'live'; credential: Credential | null; flavor: Flavor }
  | { action: 'runs'; credential: Credential | null; run: string }
  | { action: 'share'; token: string }
  | { action: 'data'; payload: string; flavor: Flavor }
  | { action: 'src'; url: string; flavor: Flavor }
  | { action: 'fail'; message: string; withFileOpen: boolean };

/**
 * planBoot decides what the page does. scrub: the fragment holds a
 * credential and must leave the address bar (and history) before anything
 * else, whatever the plan; the page must not fetch or store anything
 * before it has.
 */
export function planBoot(frag: Fragment, loc: PageLocation): { scrub: boolean; plan: BootPlan } {
  const decided = planPage(frag, loc);
  // Live mode on the run viewer's address, or with a run= to show, is the
  // Runs view: the same credential, the same checks.
  const { plan } = decided;
  if (plan.action === 'live' && (frag.kind === 'token' || frag.kind === 'none') && (frag.run !== undefined || isRunsPage(loc.pathname ?? '')))
    return { scrub: decided.scrub, plan: { action: 'runs', credential: plan.credential, run: frag.run ?? '' } };
  return decided;
}

function planPage(frag: Fragment, loc: PageLocation): { scrub: boolean; plan: BootPlan } {
  const loopback = isLoopbackHostname(loc.hostname);
  const port = loc.port || '7391';
  switch (frag.kind) {
    case 'token': {
      const c = linkCredential(frag.code);
      // A share link is opened on the share's own (LAN) address: the share
      // listener, not this check, decides who it serves.
      if (c.kind === 'share') return { scrub: true, plan: { action: 'share', token: c.token } };
      if (!loopback) return { scrub: true, plan: { action: 'fail', message: originMessage(port), withFileOpen: false } };
      if (c.kind === 'refused') return { scrub: true, plan: { action: 'fail', message: c.reason, withFileOpen: false } };
      return { scrub: true, plan: { action: 'live', credential: c, flavor: frag.flavor } };
    }
    case 'data':
      return { scrub: false, plan: { action: 'data', payload: frag.payload, flavor: frag.flavor } };
    case 'src':
      return { scrub: false, plan: { action: 'src', url: frag.url, flavor: frag.flavor } };
    case 'invalid':
      return { scrub: false, plan: { action: 'fail', message: frag.reason, withFileOpen: true } };
    case 'none': {
      if (loopback) return { scrub: false, plan: { action: 'live', credential: null, flavor: 'knowledge' } };
      const h = loc.hostname;
      if ((loc.protocol === 'http:' || loc.protocol === 'https:') && (h === 'localhost' || h.endsWith('.localhost') || h.startsWith('127.')))
        return { scrub: false, plan: { action: 'fail', message: originMessage(port), withFileOpen: false } };
      return { scrub: false, plan: { action: 'fail', message: MSG_NO_SESSION, withFileOpen: true } };
    }
  }
}

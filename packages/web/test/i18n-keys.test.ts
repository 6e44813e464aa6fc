import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import { th } from '../src/i18n/th';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('translation files', () => {
  it('Thai and English have exactly the same keys', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(th).sort());
  });
  it('every message is non-empty and uses the same {placeholders} in both languages', () => {
    for (const k of Object.keys(th) as (keyof typeof th)[]) {
      expect(th[k].trim(), k).not.toBe('');
      expect(en[k].trim(), k).not.toBe('');
      expect(placeholders(en[k]), k).toEqual(placeholders(th[k]));
    }
  });
});

describe('keys built at run time exist', () => {
  it('covers every status, source, result variant and shop state the screens look up', async () => {
    const { STATUSES, SOURCES } = await import('../src/api/types');
    const { VARIANTS } = await import('../src/lib/result-explain');
    const keys = [
      ...STATUSES.map((s) => `status.${s}`),
      ...SOURCES.map((s) => `source.${s}`),
      ...VARIANTS.flatMap((o) => [`result.${o}.title`, `result.${o}.body`, `result.${o}.next`]),
      ...['trial', 'active', 'past_due', 'suspended'].map((s) => `shopState.${s}`),
      ...['connecting', 'open', 'reconnecting'].map((s) => `live.${s}`),
      ...['live', 'test'].map((s) => `keys.env.${s}`),
      ...['active', 'unlinked'].map((s) => `line.status.${s}`),
      ...['verify', 'read', 'webhook'].flatMap((s) => [`keys.scope.${s}`, `keys.scopeHint.${s}`]),
      ...['PHONE', 'NATID', 'EWALLET'].map((s) => `payees.proxy.${s}`),
      ...['pending', 'retrying', 'delivered', 'failed', 'cancelled'].map((s) => `webhooks.dstatus.${s}`),
      ...['slip.verified', 'slip.duplicate', 'slip.failed'].map((s) => `webhooks.event.${s}`),
    ];
    for (const k of keys) expect(th, k).toHaveProperty([k]);
  });
});

describe('audit log labels', () => {
  it('every action the server records has a Thai and English label (no raw action on the security page)', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const root = path.resolve(__dirname, '../../server/src');
    const actions = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts')) for (const m of fs.readFileSync(p, 'utf8').matchAll(/action: '([a-z_.]+)'/g)) actions.add(m[1]);
      }
    };
    walk(root);
    expect(actions.size).toBeGreaterThan(20);
    for (const a of actions) {
      expect(th, a).toHaveProperty([`audit.${a}`]);
      expect(en, a).toHaveProperty([`audit.${a}`]);
    }
    for (const k of ['actor.operator', 'actor.system', 'actor.anonymous', 'audit.unknown']) expect(th).toHaveProperty([k]);
  });
});

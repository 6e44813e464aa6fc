// Provider URLs and keys are checked when the configuration loads, with a message that says what to
// write: a wrong base URL would otherwise only show as "provider unavailable" on every slip.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_DOC, ConfigError, loadConfig } from '../../src/config.js';
import { CHECKER_ADAPTERS, CHECKER_IDS } from '../../src/modules/checker/checker-registry.js';
import { EASYSLIP_KEY } from './provider-fixtures.js';

const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/slipcheck-config-test', ...env });

describe('checker configuration at load', () => {
  it.each<[string, Record<string, string>, RegExp]>([
    [
      'EasySlip base URL with /v2',
      { CHECKER: 'easyslip', CHECKER_URL: 'https://api.easyslip.com/v2', CHECKER_KEY: EASYSLIP_KEY },
      /without a version or path, e\.g\. https:\/\/api\.easyslip\.com/,
    ],
    [
      'EasySlip full endpoint URL',
      { CHECKER: 'easyslip', CHECKER_URL: 'https://api.easyslip.com/v2/verify/bank', CHECKER_KEY: EASYSLIP_KEY },
      /without a version/,
    ],
    [
      'EasySlip v1 URL',
      { CHECKER: 'easyslip', CHECKER_URL: 'https://developer.easyslip.com/api/v1', CHECKER_KEY: EASYSLIP_KEY },
      /without a version/,
    ],
    ['EasySlip key that is not a UUID', { CHECKER: 'easyslip', CHECKER_KEY: 'my-key' }, /UUIDs/],
    ['EasySlip without a key', { CHECKER: 'easyslip' }, /CHECKER_KEY for CHECKER entry 1 \(easyslip\): required/],
    [
      'SlipOK URL without the branch id',
      { CHECKER: 'slipok', CHECKER_URL: 'https://api.slipok.com/api/line/apikey', CHECKER_KEY: 'k' },
      /must end with the branch id, e\.g\. https:\/\/api\.slipok\.com\/api\/line\/apikey\/12345/,
    ],
    ['SlipOK bare host', { CHECKER: 'slipok', CHECKER_URL: 'https://api.slipok.com', CHECKER_KEY: 'k' }, /branch id/],
    ['SlipOK without a URL', { CHECKER: 'slipok', CHECKER_KEY: 'k' }, /required, with the branch id/],
    ['not a URL', { CHECKER: 'slipok', CHECKER_URL: 'api.slipok.com/x', CHECKER_KEY: 'k' }, /not an http\(s\) URL/],
    ['unknown adapter', { CHECKER: 'slipokk' }, /unknown checker 'slipokk' \(known: sandbox, easyslip, slipok\)/],
    [
      'URL list not matching CHECKER',
      {
        CHECKER: 'easyslip,slipok,sandbox',
        CHECKER_URL: 'https://api.easyslip.com,https://api.slipok.com/api/line/apikey/1',
        CHECKER_KEY: EASYSLIP_KEY,
      },
      /2 entries for 3 checkers: give one per CHECKER entry/,
    ],
  ])('refuses %s', (_label, env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });

  it('accepts the documented forms', () => {
    const cfg = load({
      CHECKER: 'slipok,easyslip',
      CHECKER_URL: 'https://api.slipok.com/api/line/apikey/12345,',
      CHECKER_KEY: `SLIPOKKEY,${EASYSLIP_KEY}`,
    });
    expect(cfg.CHECKER).toBe('slipok,easyslip');
    expect(() => load({ CHECKER: 'easyslip', CHECKER_URL: 'https://api.easyslip.com', CHECKER_KEY: EASYSLIP_KEY })).not.toThrow();
    expect(() => load({ CHECKER: 'sandbox' })).not.toThrow();
  });

  it('names every adapter of the registry: refusals, the configuration docs and the README line', () => {
    expect([...CHECKER_IDS]).toEqual(Object.keys(CHECKER_ADAPTERS));
    expect(CHECKER_IDS).toEqual(expect.arrayContaining(['sandbox', 'easyslip', 'slipok']));
    let refusal = '';
    try {
      load({ CHECKER: 'sandbox,nosuch' });
    } catch (e) {
      refusal = (e as Error).message;
    }
    expect(refusal).toContain(`CHECKER entry 2: unknown checker 'nosuch' (known: ${CHECKER_IDS.join(', ')})`);
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../README.md'), 'utf8');
    const row = readme.split('\n').find((l) => l.startsWith('| `CHECKER` |')) ?? '';
    const urlRow = readme.split('\n').find((l) => l.startsWith('| `CHECKER_URL` |')) ?? '';
    for (const id of CHECKER_IDS) {
      expect(row, `README CHECKER line names ${id}`).toMatch(new RegExp(`\\b${id}\\b`));
      expect(urlRow, `README CHECKER_URL line says what ${id} takes`).toMatch(new RegExp(`\\b${id}\\b`));
      expect(CONFIG_DOC.CHECKER.doc).toContain(id);
      expect(CONFIG_DOC.CHECKER_URL.doc).toContain(CHECKER_ADAPTERS[id].urlDoc);
    }
  });
});

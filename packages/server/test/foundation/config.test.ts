import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC, ConfigError, configTableMarkdown, loadConfig, productionWarnings } from '../../src/config.js';

/** A valid production checker (production refuses the default sandbox). */
const PROD_CHECKER = { CHECKER: 'easyslip', CHECKER_KEY: '123e4567-e89b-42d3-a456-426614174000' };

describe('configuration', () => {
  it('has the documented defaults operators rely on', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      SLIP_STALE_MODE: 'alert',
      SLIP_STALE_MAX_AGE_HOURS: 24,
      SANDBOX_PORT: 3900,
      CHECKER: 'sandbox',
      TIME_ZONE: 'Asia/Bangkok',
      HEAP_GROWING_PERCENT: 100,
      databaseKind: 'sqlite',
    });
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).HEAP_GROWING_PERCENT).toBe(0);
    expect(c.DATA_DIR).toBe(path.resolve('./data'));
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).databaseKind).toBe('postgres');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['SLIP_STALE_MODE', 'sometimes'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'not a url'],
    ['TIME_ZONE', 'Mars/Olympus'],
    ['WEBHOOK_RETRY_SCHEDULE', '60,abc'],
    ['SECRET_KEY', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['HEAP_GROWING_PERCENT', '500'],
    ['HEAP_GROWING_PERCENT', '-1'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('production needs a SECRET_KEY and forbids private webhook targets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('SECRET_KEY');
    expect(() =>
      loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(40), ...PROD_CHECKER, WEBHOOK_ALLOW_PRIVATE: 'true' }),
    ).toThrow('WEBHOOK_ALLOW_PRIVATE');
  });

  it.each([
    ['SMTP_URL', 'smtps://user:s3cretPW@smtp.example.com:99999'],
    ['DATABASE_URL', 'postgres://app:s3cretPW@db.example.com:99999/slipcheck'],
    ['REDIS_URL', 'rediss://default:s3cretPW@cache.example.com:99999'],
    ['CHECKER_URL', 'ftp://u:s3cretPW@checker.example.com/?token=s3cretTOKEN'],
  ])('a refused %s names the variable but never prints its password', (name, value) => {
    let message = '';
    try {
      loadConfig({ [name]: value, ...(name === 'CHECKER_URL' && { CHECKER: 'sandbox' }) });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message).toContain(name);
    expect(message).toContain('***');
    expect(message).not.toContain('s3cret');
  });

  // A webhook.deliver job runs as long as its receiver takes (up to WEBHOOK_TIMEOUT_MS); past its lease the
  // worker abandons it and any worker takes it back. With the lease shorter, a receiver that answered in
  // 4 s under WORKER_LEASE_MS=3000 got the same delivery 7 times in 25 s, none recorded as delivered.
  it('refuses a worker lease that a webhook send within WEBHOOK_TIMEOUT_MS can outlast', () => {
    expect(() => loadConfig({ WORKER_LEASE_MS: '3000' })).toThrow(/WORKER_LEASE_MS.*WEBHOOK_TIMEOUT_MS/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '60000' })).toThrow('WORKER_LEASE_MS');
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '30000', WORKER_LEASE_MS: '30000' })).toThrow('WORKER_LEASE_MS');
    expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '60000', WORKER_LEASE_MS: '65000' }).WORKER_LEASE_MS).toBe(65_000);
    expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '1500', WORKER_LEASE_MS: '6500' }).WORKER_LEASE_MS).toBe(6_500);
  });

  it('production never runs on the development sandbox bank by default', () => {
    const prod = { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(40) };
    // CHECKER unset: the default is the sandbox bank on 127.0.0.1:3900, which production never starts.
    expect(() => loadConfig(prod)).toThrow(ConfigError);
    expect(() => loadConfig(prod)).toThrow(/CHECKER: required in production/);
    expect(() => loadConfig({ ...prod, CHECKER: '' })).toThrow(/CHECKER: required in production/);
    // An explicit sandbox needs the URL of a sandbox bank someone runs (staging), never the default.
    expect(() => loadConfig({ ...prod, CHECKER: 'sandbox' })).toThrow(
      /CHECKER_URL for CHECKER entry 1 \(sandbox\): required in production/,
    );
    const easyslip = { CHECKER_KEY: '123e4567-e89b-42d3-a456-426614174000' };
    expect(() => loadConfig({ ...prod, ...easyslip, CHECKER: 'easyslip,sandbox', CHECKER_URL: 'https://api.easyslip.com,' })).toThrow(
      /CHECKER entry 2 \(sandbox\)/,
    );
    const staging = loadConfig({ ...prod, CHECKER: 'sandbox', CHECKER_URL: 'http://bank.staging.internal:3900' });
    expect(productionWarnings(staging)).toEqual([expect.stringMatching(/CHECKER includes sandbox in production/)]);
    const real = loadConfig({ ...prod, ...easyslip, CHECKER: 'easyslip' });
    expect(productionWarnings(real)).toEqual([]);
    // development keeps its default
    expect(productionWarnings(loadConfig({}))).toEqual([]);
  });

  it('the README documents every variable', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../README.md'), 'utf8');
    for (const name of Object.keys(CONFIG_DOC)) expect(readme, name).toContain(`\`${name}\``);
    // Its table is the schema's, word for word: edited by hand it drifted (ten meanings), and the script
    // that writes it (scripts/update-readme-config.sh) would then have thrown the richer words away.
    const start = readme.indexOf('| variable | default | meaning |');
    expect(readme.slice(start, readme.indexOf('\n## Going to production', start))).toBe(configTableMarkdown());
  });
});

describe('the sandbox LINE platform in development', () => {
  it('LINE settings left unset point at the sandbox LINE platform on SANDBOX_LINE_PORT, with its login channel', async () => {
    const { SANDBOX_LOGIN_CHANNEL } = await import('@slipcheck/sandbox-line');
    const c = loadConfig({ SANDBOX_LINE_PORT: '4901' });
    expect(c).toMatchObject({
      LINE_API_BASE_URL: 'http://127.0.0.1:4901',
      LINE_DATA_API_BASE_URL: 'http://127.0.0.1:4901',
      LINE_LOGIN_AUTHORIZE_URL: 'http://127.0.0.1:4901/oauth2/v2.1/authorize',
      LINE_LOGIN_CHANNEL_ID: SANDBOX_LOGIN_CHANNEL.channelId,
      LINE_LOGIN_CHANNEL_SECRET: SANDBOX_LOGIN_CHANNEL.channelSecret,
      LIFF_ID: SANDBOX_LOGIN_CHANNEL.liffId,
      LIFF_MOCK: true,
    });
    expect(loadConfig({}).LINE_API_BASE_URL).toBe('http://127.0.0.1:3901');
  });

  it('never in production or tests, nor when the sandbox is off or any LINE setting is given', () => {
    const real = { LINE_API_BASE_URL: 'https://api.line.me', LINE_LOGIN_CHANNEL_ID: '', LIFF_MOCK: false };
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(40), ...PROD_CHECKER })).toMatchObject(real);
    expect(loadConfig({ NODE_ENV: 'test' })).toMatchObject(real);
    expect(loadConfig({ SANDBOX_LINE_AUTOSTART: 'false' })).toMatchObject(real);
    expect(loadConfig({ LINE_LOGIN_CHANNEL_ID: '1650000000' })).toMatchObject({
      LINE_API_BASE_URL: 'https://api.line.me',
      LIFF_MOCK: false,
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@slipcheck/sdk';
import { runCli } from '../../src/cli/cli.js';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/** The operator CLI on the harness's SQLite file (same DATA_DIR), as an operator would run it. */
describe('slipcheck webhook CLI', () => {
  let h: Harness;
  let rx: Receiver;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await h.close();
  });

  async function cli(args: string[], extraEnv: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      args,
      { stdout: (s) => out.push(s), stderr: (s) => err.push(s) },
      {
        NODE_ENV: 'test',
        DATA_DIR: h.dataDir,
        LOG_LEVEL: 'silent',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SANDBOX_AUTOSTART: 'false',
        WORKER_MODE: 'off',
        ...extraEnv,
      },
    );
    return { code, json: out.length ? JSON.parse(out.join('\n')) : null, err: err.join('\n') };
  }

  it('add, list, test, deliveries, rotate-secret, redeliver', async () => {
    const { shop } = await seedShop(h);
    const add = await cli([
      'webhook',
      'add',
      '--shop',
      shop.id,
      '--url',
      rx.url('/cli'),
      '--events',
      'slip.verified,slip.failed',
      '--description',
      'ERP',
    ]);
    expect(add.code).toBe(0);
    expect(add.json).toMatchObject({
      id: expect.stringMatching(/^whe_/),
      secret: expect.stringMatching(/^whsec_/),
      events: ['slip.verified', 'slip.failed'],
      description: 'ERP',
    });

    const list = await cli(['webhook', 'list', '--shop', shop.id]);
    expect(list.json).toHaveLength(1);
    expect(JSON.stringify(list.json)).not.toContain(add.json.secret);

    const test = await cli(['webhook', 'test', '--shop', shop.id, '--endpoint', add.json.id]);
    expect(test.json).toMatchObject({
      status: 'delivered',
      test: true,
      attempt: 1,
      maxAttempts: 1,
      attempts: [{ attempt: 1, status: 'delivered', responseCode: 200 }],
    });
    const got = rx.received.at(-1)!;
    expect(verifyWebhookSignature(got.body, got.headers['x-service-signature'] as string, add.json.secret).event).toBe('slip.verified');

    const deliveries = await cli(['webhook', 'deliveries', '--shop', shop.id, '--endpoint', add.json.id]);
    expect(deliveries.json.items.map((d: { id: string }) => d.id)).toEqual([test.json.id]);

    const rot = await cli(['webhook', 'rotate-secret', '--shop', shop.id, '--endpoint', add.json.id]);
    expect(rot.json.secret).toMatch(/^whsec_/);
    expect(rot.json.secret).not.toBe(add.json.secret);

    const re = await cli(['webhook', 'redeliver', '--shop', shop.id, '--delivery', test.json.id]);
    expect(re.code).toBe(0);
    expect(re.json).toMatchObject({ id: test.json.id, status: 'pending' });

    const missing = await cli(['webhook', 'test', '--shop', shop.id, '--endpoint', 'whe_nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/NOT_FOUND/);
    expect((await cli(['webhook', 'add', '--shop', shop.id])).code).toBe(2);
  });

  it('disable, enable, reveal-secret, delivery and delete name one endpoint or delivery of the shop', async () => {
    const { shop } = await seedShop(h);
    const add = await cli(['webhook', 'add', '--shop', shop.id, '--url', rx.url('/one')]);
    const endpoint = ['--shop', shop.id, '--endpoint', add.json.id];
    expect((await cli(['webhook', 'disable', ...endpoint])).json).toMatchObject({ id: add.json.id, status: 'disabled' });
    expect((await cli(['webhook', 'enable', ...endpoint])).json).toMatchObject({ id: add.json.id, status: 'enabled' });
    expect((await cli(['webhook', 'reveal-secret', ...endpoint])).json).toMatchObject({ secret: add.json.secret });
    const test = await cli(['webhook', 'test', ...endpoint]);
    const one = await cli(['webhook', 'delivery', '--shop', shop.id, '--delivery', test.json.id]);
    expect(one.json).toMatchObject({ id: test.json.id, attempts: [{ attempt: 1 }] });
    expect((await cli(['webhook', 'delivery', '--shop', shop.id])).code).toBe(2);
    expect((await cli(['webhook', 'disable', '--shop', shop.id])).code).toBe(2);
    expect((await cli(['webhook', 'delete', ...endpoint])).json).toEqual({ deleted: true, id: add.json.id });
    expect((await cli(['webhook', 'list', '--shop', shop.id])).json).toEqual([]);
    expect((await cli(['webhook', 'reveal-secret', ...endpoint])).code).toBe(1);
  });

  it('webhook test exits 1 when the receiver answered 500 or could not be reached, 0 when it accepted (204), JSON printed either way', async () => {
    const { shop } = await seedShop(h);
    const answering = async (status: number) => {
      const r = await startReceiver((_req, _n, res) => {
        res.writeHead(status).end();
      });
      const add = await cli(['webhook', 'add', '--shop', shop.id, '--url', r.url(`/s${status}`)]);
      return { r, endpoint: ['--shop', shop.id, '--endpoint', add.json.id] };
    };
    const failing = await answering(500);
    const accepting = await answering(204);
    try {
      const bad = await cli(['webhook', 'test', ...failing.endpoint]);
      expect(bad.code).toBe(1);
      expect(bad.json).toMatchObject({ status: 'failed', test: true, attempts: [{ attempt: 1, status: 'failed', responseCode: 500 }] });
      expect(failing.r.received).toHaveLength(1);

      const good = await cli(['webhook', 'test', ...accepting.endpoint]);
      expect(good.code).toBe(0);
      expect(good.json).toMatchObject({ status: 'delivered', attempts: [{ status: 'delivered', responseCode: 204 }] });

      // Nothing listening any more: the connection is refused.
      await failing.r.close();
      const unreachable = await cli(['webhook', 'test', ...failing.endpoint]);
      expect(unreachable.code).toBe(1);
      expect(unreachable.json).toMatchObject({ status: 'failed', attempts: [{ status: 'failed', responseCode: null }] });
    } finally {
      await failing.r.close().catch(() => {});
      await accepting.r.close();
    }
  });

  it('refuses trial shops and, without the development flag, http and private targets', async () => {
    const trial = await seedShop(h, { plan: 'TRIAL' });
    const t = await cli(['webhook', 'add', '--shop', trial.shop.id, '--url', rx.url('/t')]);
    expect(t.code).toBe(1);
    expect(t.err).toMatch(/PLAN_API_ACCESS_REQUIRED/);
    const { shop } = await seedShop(h);
    const strict = { WEBHOOK_ALLOW_PRIVATE: 'false' };
    expect((await cli(['webhook', 'add', '--shop', shop.id, '--url', rx.url('/x')], strict)).err).toMatch(/https/);
    expect((await cli(['webhook', 'add', '--shop', shop.id, '--url', 'https://127.0.0.1/x'], strict)).err).toMatch(
      /public internet address/,
    );
    expect((await cli(['webhook', 'add', '--shop', shop.id, '--url', 'https://localhost/x'], strict)).err).toMatch(
      /public internet address/,
    );
    expect((await cli(['webhook', 'add', '--shop', shop.id, '--url', 'https://u:p@example.com/x'], strict)).err).toMatch(/credentials/);
  });
});

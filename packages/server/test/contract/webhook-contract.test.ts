// Webhooks an integrator can type and trust. Real deliveries (a real verify through the sandbox
// bank, the outbox worker, a real receiver on loopback) are validated with Ajv against the
// `webhooks` of the OpenAPI document the service serves (body and headers), and a strict TypeScript
// consumer written against the SDK's generated types (tsc --strict, in this test) handles the real
// INVALID delivery, whose transRef, amount, sender and receiver are null: the types say so, so code
// that forgets it does not compile instead of crashing at run time.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank } from '@slipcheck/sandbox-bank';
import { verifyWebhookSignature } from '@slipcheck/sdk';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { createOutboxWorker, type OutboxWorker } from '../../src/outbox/outbox-worker.js';
import { startReceiver, type Receiver, type Received } from '../webhooks/helpers/receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../../..');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');

/** Validators for one webhook of the document: its body schema and its header parameters. */
function webhookContract(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const rebase = (s: unknown): object => JSON.parse(JSON.stringify(s).replaceAll('"#/components/', '"openapi#/components/'));
  return (kind: string, r: { headers: Record<string, unknown>; body: string }): string[] => {
    const op = doc.webhooks[kind]?.post;
    if (!op) return [`webhook ${kind} not documented`];
    const problems: string[] = [];
    const body = ajv.compile(rebase(op.requestBody.content['application/json'].schema));
    if (!body(JSON.parse(r.body))) problems.push(...body.errors!.map((e) => `body${e.instancePath} ${e.message}`));
    for (const p of op.parameters as Json[]) {
      const value = r.headers[String(p.name).toLowerCase()];
      if (value === undefined) {
        if (p.required) problems.push(`header ${p.name} missing`);
        continue;
      }
      const check = ajv.compile(p.schema);
      const typed = p.schema.type === 'integer' ? Number(value) : value;
      if (!check(typed)) problems.push(`header ${p.name}=${String(value)} ${ajv.errorsText(check.errors)}`);
    }
    return problems;
  };
}

describe('webhooks: real deliveries match the OpenAPI document and the SDK types', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof createSandboxBank>>;
  let rx: Receiver;
  let worker: OutboxWorker;
  let doc: Json;
  let secret: string;
  let key: string;
  let shopId: string;
  let endpointId: string;
  let tmp: string;
  const deliveries = new Map<string, Received>(); // by event kind and status

  beforeAll(async () => {
    bank = await createSandboxBank({ port: 0 });
    h = await createHarness('sqlite', { CHECKER_URL: bank.url, DECODE_THREADS: '1' });
    await h.app.ready();
    doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    rx = await startReceiver((_r, _n, res) => {
      res.writeHead(204).end();
    });
    worker = createOutboxWorker({ db: h.c.db, caps: h.c.caps, clock: h.c.clock, handlers: h.c.outboxHandlers, pollMs: 50 });
    worker.start();
    const seeded = await seedShop(h);
    key = seeded.key;
    shopId = seeded.shop.id;
    const added = await h.c.webhooks.addEndpoint(shopId, { url: rx.url('/hooks/slipcheck') });
    secret = added.secret;
    endpointId = added.endpoint.id;

    const verify = async (image: Buffer, query = '') => {
      const res = await h.app.inject({
        method: 'POST',
        url: `/api/v1/verify${query}`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        payload: image,
      });
      expect(res.statusCode).toBe(200);
      return res.json().data as Json;
    };
    const created = await fetch(`${bank.url}/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sendingBank: '014',
        amount: 250,
        sender: { name: 'นาย สมชาย ใจดี', account: '4081234567' },
        receiver: { name: 'ร้านกาแฟ', account: '1234566609', bankCode: '004' },
      }),
    });
    const { transRef } = (await created.json()) as { transRef: string };
    const slip = Buffer.from(await (await fetch(`${bank.url}/transfers/${transRef}/slip.png`)).arrayBuffer());
    expect((await verify(slip, '?clientRef=order-7')).status).toBe('SUCCESS');
    expect((await verify(Buffer.concat([slip, Buffer.from([0])]))).status).toBe('DUPLICATE');
    // A photo with no slip QR on it: the customer sent the wrong picture.
    const blank = await sharp({ create: { width: 600, height: 1000, channels: 3, background: '#f4f4f4' } })
      .png()
      .toBuffer();
    const invalid = await verify(blank, '?clientRef=order-8');
    expect(invalid).toMatchObject({ status: 'INVALID', transRef: null, amount: null });

    await rx.waitFor(3, 30_000);
    for (const r of rx.received) {
      const body = JSON.parse(r.body) as Json;
      deliveries.set(`${body.event} ${body.data.status}`, r);
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-webhook-consumer-'));
  }, 120_000);

  afterAll(async () => {
    await worker?.stop({ abandon: true });
    await rx?.close();
    await h?.close();
    await bank?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('every real delivery (verified, duplicate, an unreadable slip, a test event) matches the documented body and headers', async () => {
    expect([...deliveries.keys()].sort()).toEqual(['slip.duplicate DUPLICATE', 'slip.failed INVALID', 'slip.verified SUCCESS']);
    const check = webhookContract(doc);
    for (const [name, r] of deliveries) {
      expect(check(JSON.parse(r.body).event, r), name).toEqual([]);
      expect(r.headers['x-service-attempt'], name).toBe('1'); // the first delivery is attempt 1
    }
    const failed = JSON.parse(deliveries.get('slip.failed INVALID')!.body);
    expect(failed.data).toMatchObject({ transRef: null, amount: null, sender: null, receiver: null, clientRef: 'order-8' });

    // The re-used slip says which payment it re-uses (the first check's amount and sender).
    const dup = JSON.parse(deliveries.get('slip.duplicate DUPLICATE')!.body);
    const ok = JSON.parse(deliveries.get('slip.verified SUCCESS')!.body);
    expect(dup.data).toMatchObject({ amount: 250, sender: ok.data.sender, receiver: ok.data.receiver, transRef: ok.data.transRef });

    // A receiver that credits orders tells live checks from sk_test_ ones and from the dashboard's test event.
    for (const [name, r] of deliveries) expect(JSON.parse(r.body).data.environment, name).toBe('live');
    await h.c.webhooks.sendTest(shopId, endpointId);
    const test = rx.received.at(-1)!;
    expect(check('slip.verified', test)).toEqual([]);
    expect(JSON.parse(test.body).data.environment).toBe('test');
    const { key: testKey } = await h.c.apiKeys.create(shopId, { environment: 'test', scopes: 'verify' }, 'test');
    const before = rx.received.length;
    const fromTestKey = await h.app.inject({
      method: 'POST',
      url: '/api/v1/verify?clientRef=order-9',
      headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/octet-stream' },
      payload: await sharp({ create: { width: 300, height: 500, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer(),
    });
    expect(fromTestKey.json().data).toMatchObject({ environment: 'test', status: 'INVALID' });
    await rx.waitFor(before + 1, 30_000);
    const testDelivery = rx.received.at(-1)!;
    expect(check('slip.failed', testDelivery)).toEqual([]);
    expect(JSON.parse(testDelivery.body).data).toMatchObject({ environment: 'test', clientRef: 'order-9' });

    // The check is live: what the document does not declare is reported.
    const failedHeaders = deliveries.get('slip.failed INVALID')!.headers;
    const extra = { ...failed, data: { ...failed.data, bankCode: '014' } };
    expect(check('slip.failed', { headers: failedHeaders, body: JSON.stringify(extra) })).toEqual([
      'body/data must NOT have additional properties',
    ]);
    expect(check('slip.failed', { headers: { ...failedHeaders, 'x-service-attempt': '0' }, body: JSON.stringify(failed) })).toEqual([
      'header X-Service-Attempt=0 data must be >= 1',
    ]);
  });

  // The document said "Received; anything else (or no answer within the timeout) is retried", so an
  // integrator reading it could answer 410 for an event it does not want, and lose its endpoint: a
  // 410 disables the endpoint at once, without retries. What each answer does must be in the document.
  it('a 410 answer disables the endpoint without retries, and the document says so', async () => {
    const gone = await startReceiver((_r, _n, res) => {
      res.writeHead(410).end();
    });
    const added = await h.c.webhooks.addEndpoint(shopId, { url: gone.url('/old-hook') });
    try {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v1/verify?clientRef=order-410',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        payload: await sharp({ create: { width: 320, height: 540, channels: 3, background: '#fafafa' } })
          .png()
          .toBuffer(),
      });
      expect(res.json().data.status).toBe('INVALID');
      await gone.waitFor(1, 30_000);
      const deadline = Date.now() + 10_000;
      while ((await h.c.webhooks.get(shopId, added.endpoint.id)).status !== 'disabled' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await h.c.webhooks.get(shopId, added.endpoint.id)).toMatchObject({ status: 'disabled', disabledReason: 'GONE' });
      const [delivery] = (await h.c.webhooks.listDeliveries(shopId, { endpointId: added.endpoint.id })).items;
      expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null, lastStatusCode: 410 });

      for (const kind of Object.keys(doc.webhooks)) {
        const { responses, description } = doc.webhooks[kind].post as Json;
        expect(Object.keys(responses).sort(), kind).toEqual(['2XX', '410']);
        expect(responses['410'].description, kind).toMatch(/disabl/i);
        expect(responses['410'].description, kind).toMatch(/not retried|no retr/i);
        expect(responses['2XX'].description, kind).not.toMatch(/anything else .* is retried/);
        expect(description, kind).toMatch(/redirects are not followed/i);
      }
    } finally {
      await h.c.webhooks.delete(shopId, added.endpoint.id);
      await gone.close();
    }
  });

  it('a strict TypeScript consumer of the SDK compiles only when it handles the nulls, and handles the real INVALID delivery', async () => {
    const sdk = path.join(REPO, 'packages/sdk/src/index.ts');
    const tsconfig = (files: string[]) => ({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: true,
        target: 'ES2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        paths: { '@slipcheck/sdk': [sdk] },
        typeRoots: [path.join(REPO, 'node_modules/@types')],
        types: ['node'],
      },
      files,
    });
    // What an integrator writes: verify the raw body, then use the event, null-safe.
    fs.writeFileSync(
      path.join(tmp, 'receiver.ts'),
      `import { readWebhookDelivery, verifyWebhookSignature, type WebhookEvent } from '@slipcheck/sdk';

export function describeEvent(event: WebhookEvent): string {
  const d = event.data;
  if (d.transRef === null || d.amount === null) {
    return \`\${event.event} \${d.status}: no transfer on this picture (\${d.clientRef ?? d.transactionId}), ask for the slip again\`;
  }
  return \`\${event.event} \${d.status} \${d.transRef.toUpperCase()} \${d.amount.toFixed(2)} THB from \${d.sender ?? 'unknown'}\`;
}

export function handleDelivery(rawBody: string, headers: Record<string, string | string[] | undefined>, secret: string): string {
  const event = verifyWebhookSignature(rawBody, headers['x-service-signature'], [secret]);
  const { attempt } = readWebhookDelivery(headers);
  return \`#\${attempt ?? '?'} \${describeEvent(event)}\`;
}
`,
    );
    // What crashed before: the old types said these were never null.
    fs.writeFileSync(
      path.join(tmp, 'naive.ts'),
      `import type { WebhookEvent } from '@slipcheck/sdk';

export const reference = (event: WebhookEvent): string =>
  event.data.transRef.toUpperCase() + event.data.amount.toFixed(2) + event.data.sender.trim() + event.data.receiver.trim();
`,
    );
    fs.writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify(tsconfig(['receiver.ts'])));
    fs.writeFileSync(path.join(tmp, 'tsconfig.naive.json'), JSON.stringify(tsconfig(['naive.ts'])));
    const tsc = (project: string) =>
      run(process.execPath, [TSC, '-p', project], { cwd: tmp }).then(
        (r) => r.stdout,
        (e: { stdout: string }) => e.stdout,
      );
    expect(await tsc('tsconfig.json')).toBe('');
    const naive = await tsc('tsconfig.naive.json');
    for (const field of ['transRef', 'amount', 'sender', 'receiver'])
      expect(naive, field).toMatch(new RegExp(`naive\\.ts.*error TS18047: 'event\\.data\\.${field}' is possibly 'null'`));

    // The compiled consumer's code, run on the captured deliveries.
    const consumer = (await import(path.join(tmp, 'receiver.ts'))) as {
      handleDelivery: (raw: string, headers: Record<string, string | string[] | undefined>, secret: string) => string;
    };
    const invalid = deliveries.get('slip.failed INVALID')!;
    expect(consumer.handleDelivery(invalid.body, invalid.headers, secret)).toBe(
      '#1 slip.failed INVALID: no transfer on this picture (order-8), ask for the slip again',
    );
    const ok = deliveries.get('slip.verified SUCCESS')!;
    const okEvent = verifyWebhookSignature(ok.body, ok.headers['x-service-signature'], secret);
    expect(consumer.handleDelivery(ok.body, ok.headers, secret)).toBe(
      `#1 slip.verified SUCCESS ${okEvent.data.transRef!.toUpperCase()} 250.00 THB from ${okEvent.data.sender}`,
    );
  }, 120_000);
});

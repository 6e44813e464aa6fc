// Real answers of every public route (the 200s and each refusal), over real HTTP, validated with
// Ajv against the OpenAPI document the service serves: body schema of that status, the headers it
// documents (required ones present, every one present matching its schema), and no status the
// document does not list. So the document cannot drift from what the service does.
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank } from '@slipcheck/sandbox-bank';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

function contract(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  // Local refs (#/components/...) resolve inside one schema holding the document's components.
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const rebase = (s: unknown): unknown => JSON.parse(JSON.stringify(s).replaceAll('"#/components/', '"openapi#/components/'));
  const deref = (o: Json): Json =>
    o?.$ref
      ? (o.$ref as string)
          .replace('#/', '')
          .split('/')
          .reduce((a: Json, k) => a[k], doc)
      : o;
  const seen = new Set<string>();

  return {
    seen,
    check(method: string, template: string, a: Answer) {
      const op = doc.paths[template]?.[method.toLowerCase()];
      expect(op, `${method} ${template} documented`).toBeDefined();
      const res = deref(op.responses[String(a.status)]); // shared refusals are components/responses refs
      expect(res, `${method} ${template} ${a.status} documented`).toBeDefined();
      seen.add(`${method} ${template} ${a.status}`);
      const schema = res.content?.['application/json']?.schema;
      expect(schema, `${method} ${template} ${a.status} has a JSON schema`).toBeDefined();
      const validate = ajv.compile(rebase(schema) as object);
      expect(validate(a.body) ? [] : validate.errors, `${method} ${template} ${a.status} body`).toEqual([]);
      for (const [name, h] of Object.entries<Json>(res.headers ?? {})) {
        const def = deref(h);
        const value = a.headers.get(name);
        if (def.required) expect(value, `${method} ${template} ${a.status} header ${name}`).not.toBeNull();
        if (value === null) continue;
        const typed = def.schema?.type === 'integer' ? Number(value) : value;
        const vh = ajv.compile(def.schema);
        expect(vh(typed), `${method} ${template} ${a.status} header ${name}=${value}`).toBe(true);
      }
    },
  };
}

describe('OpenAPI contract: real answers of every public route', () => {
  let h: Harness;
  let limited: Harness;
  let bank: Awaited<ReturnType<typeof createSandboxBank>>;
  let base: string;
  let limitedBase: string;
  let c: ReturnType<typeof contract>;

  beforeAll(async () => {
    bank = await createSandboxBank({ port: 0 });
    h = await createHarness('sqlite', { CHECKER_URL: bank.url, DECODE_THREADS: '1', MAX_IMAGE_BYTES: '400000' });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    limited = await createHarness('sqlite', {
      CHECKER_URL: bank.url,
      DECODE_THREADS: '1',
      RATE_LIMIT_PER_KEY: '2',
      RATE_LIMIT_VERIFY_PER_SHOP: '1',
    });
    limitedBase = await limited.app.listen({ port: 0, host: '127.0.0.1' });
    c = contract((await h.app.inject({ url: '/api/v1/openapi.json' })).json());
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await limited?.close();
    await bank?.close();
  });

  const call = async (
    b: string,
    method: string,
    url: string,
    init: { key?: string; body?: Buffer; type?: string } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    if (init.type) headers['content-type'] = init.type;
    const r = await fetch(b + url, { method, headers, ...(init.body ? { body: new Uint8Array(init.body) } : {}) });
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null };
  };
  const slip = async (amount: number) => {
    const r = await fetch(`${bank.url}/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sendingBank: '014',
        amount,
        sender: { name: 'นาย สมชาย ใจดี', account: '4081234567' },
        receiver: { name: 'ร้านกาแฟ', account: '1234566609', bankCode: '004' },
      }),
    });
    const { transRef } = (await r.json()) as { transRef: string };
    return Buffer.from(await (await fetch(`${bank.url}/transfers/${transRef}/slip.png`)).arrayBuffer());
  };

  it('health routes', async () => {
    for (const p of ['/health', '/health/liveness', '/health/uptime', '/v1/health', '/v1/health/liveness', '/v1/health/uptime']) {
      c.check('GET', p, await call(base, 'GET', p));
    }
    const post = await call(base, 'POST', '/health');
    expect(post.status).toBe(405);
    c.check('GET', '/health', post);
  });

  it('quota, me, transactions: 200, 400, 401, 403, 404, 405', async () => {
    const { key } = await seedShop(h);
    const { key: verifyOnly } = await seedShop(h, { scopes: 'verify' });
    for (const p of ['/api/v1/quota', '/api/v1/me', '/api/v1/transactions']) {
      c.check('GET', p, await call(base, 'GET', p, { key }));
      c.check('GET', p, await call(base, 'GET', p));
      c.check('GET', p, await call(base, 'GET', p, { key: 'sk_live_00000000000000000000000000000000' }));
      c.check('GET', p, await call(base, 'GET', p, { key: verifyOnly }));
      const wrongMethod = await call(base, 'DELETE', p, { key });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('x-service-quota-limit'), `DELETE ${p} with a key`).not.toBeNull();
      c.check('GET', p, wrongMethod);
    }
    const bad = await call(base, 'GET', '/api/v1/transactions?limit=0', { key });
    expect(bad.status).toBe(400);
    c.check('GET', '/api/v1/transactions', bad);
    // Refused by Node's parser before any route: documented on every route, without quota headers.
    const tooLong = await call(base, 'GET', `/api/v1/transactions?clientRef=${'A'.repeat(20_000)}`, { key });
    expect(tooLong.status).toBe(414);
    expect(tooLong.headers.get('x-service-quota-limit')).toBeNull();
    c.check('GET', '/api/v1/transactions', tooLong);
    const missing = await call(base, 'GET', '/api/v1/transactions/txn_nope', { key });
    expect(missing.status).toBe(404);
    c.check('GET', '/api/v1/transactions/{id}', missing);
  });

  it('verify: 200 (SUCCESS, DUPLICATE, INVALID) and 400, 401, 402, 403, 405, 413, 422; one record by id', async () => {
    const { shop, key } = await seedShop(h);
    const image = await slip(321);
    const ok = await call(base, 'POST', '/api/v1/verify?amount=321&clientRef=order-1', {
      key,
      body: image,
      type: 'application/octet-stream',
    });
    expect((ok.body as Json).data.status).toBe('SUCCESS');
    c.check('POST', '/api/v1/verify', ok);
    const again = await call(base, 'POST', '/api/v1/verify', { key, body: Buffer.concat([image, Buffer.from([0])]), type: 'image/png' });
    c.check('POST', '/api/v1/verify', again);
    const invalid = await call(base, 'POST', '/api/v1/verify', { key, body: Buffer.from('not an image at all'), type: 'image/jpeg' });
    c.check('POST', '/api/v1/verify', invalid);
    const json = await call(base, 'POST', '/api/v1/verify', { key, body: Buffer.from('{}'), type: 'application/json' });
    expect(json.status).toBe(400);
    c.check('POST', '/api/v1/verify', json);
    c.check('POST', '/api/v1/verify', await call(base, 'POST', '/api/v1/verify', { body: image, type: 'image/png' }));
    const { key: readOnly } = await seedShop(h, { scopes: 'read' });
    c.check('POST', '/api/v1/verify', await call(base, 'POST', '/api/v1/verify', { key: readOnly, body: image, type: 'image/png' }));
    const big = await call(base, 'POST', '/api/v1/verify', { key, body: Buffer.alloc(500_000, 1), type: 'application/octet-stream' });
    expect(big.status).toBe(413);
    c.check('POST', '/api/v1/verify', big);
    const { key: noPayee } = await seedShop(h, { payee: false });
    const unpaid = await call(base, 'POST', '/api/v1/verify', { key: noPayee, body: image, type: 'image/png' });
    expect(unpaid.status).toBe(422);
    c.check('POST', '/api/v1/verify', unpaid);
    const get = await call(base, 'GET', '/api/v1/verify', { key });
    expect(get.status).toBe(405);
    c.check('POST', '/api/v1/verify', get);
    c.check('GET', '/api/v1/transactions/{id}', await call(base, 'GET', `/api/v1/transactions/${(ok.body as Json).data.id}`, { key }));
    c.check('GET', '/api/v1/transactions', await call(base, 'GET', '/api/v1/transactions?clientRef=order-1', { key }));

    const plan = await h.c.plans.get(shop.planCode);
    await h.c.quota.adjust(shop.id, { used: (await h.c.quota.snapshot(shop, plan)).limit + 1000 }, 'test'); // past the free buffer too
    const over = await call(base, 'POST', '/api/v1/verify', { key, body: await slip(5), type: 'image/png' });
    expect(over.status).toBe(402);
    c.check('POST', '/api/v1/verify', over);
  }, 90_000);

  it('429 with Retry-After (per key and verify per shop)', async () => {
    const { key } = await seedShop(limited);
    let last: Answer | undefined;
    for (let i = 0; i < 4 && last?.status !== 429; i++) last = await call(limitedBase, 'GET', '/api/v1/quota', { key });
    expect(last!.status).toBe(429);
    c.check('GET', '/api/v1/quota', last!);
    const { key: other } = await seedShop(limited);
    const image = await slip(7);
    let v: Answer | undefined;
    for (let i = 0; i < 3 && v?.status !== 429; i++)
      v = await call(limitedBase, 'POST', '/api/v1/verify', { key: other, body: image, type: 'image/png' });
    expect(v!.status).toBe(429);
    c.check('POST', '/api/v1/verify', v!);
  }, 60_000);

  it('503 with Retry-After while another writer holds the SQLite file', async () => {
    const held = await createHarness('sqlite', { CHECKER_URL: bank.url, DECODE_THREADS: '1' });
    // The service waits busy_timeout (5 s) for the lock, then gives up; 250 ms gives the same answer sooner.
    await sql`pragma busy_timeout = 250`.execute(held.c.db);
    const { key } = await seedShop(held);
    const heldBase = await held.app.listen({ port: 0, host: '127.0.0.1' });
    const lock = new Database(path.join(held.dataDir, 'slipcheck.db'));
    try {
      lock.exec('BEGIN IMMEDIATE'); // a real second writer: the service's writes wait busy_timeout, then give up
      const r = await call(heldBase, 'POST', '/api/v1/verify', { key, body: await slip(9), type: 'image/png' });
      expect(r.status).toBe(503);
      c.check('POST', '/api/v1/verify', r);
    } finally {
      lock.exec('ROLLBACK');
      lock.close();
      await held.close();
    }
  }, 60_000);

  afterAll(() => {
    // Every documented status of verify was produced by a real answer above.
    for (const s of ['200', '400', '401', '402', '403', '405', '413', '422', '429', '503'])
      expect(c.seen.has(`POST /api/v1/verify ${s}`), s).toBe(true);
  });
});

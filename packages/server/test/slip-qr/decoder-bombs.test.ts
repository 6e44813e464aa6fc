import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { alive } from '../faults/fault-kit.js';
import { DEFAULT_DECODE_KILL_MS } from '../../src/modules/slip-qr/slip-qr-pool.js';
import { metrics } from '../../src/lib/metrics.js';
import {
  bigInterlacedPng,
  bigProgressiveJpeg,
  exifBombJpeg,
  hugeIccJpeg,
  hugeIccpPng,
  manyScansJpeg,
  otherFormats,
  slowBlankPngs,
  tinyIdatsPng,
  tinyPng,
  variantOf,
  ztxtBombPng,
} from './hostile-images.js';

const BROKEN = new URL('./fixtures/broken-worker.mjs', import.meta.url);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Answer = { status: number; ms: number; body: { code?: string; data?: { id: string; status: string; errorCode?: string | null } } };

async function serve(h: Harness): Promise<string> {
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = h.app.server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

function client(base: string) {
  return async (auth: Record<string, string>, image: Buffer): Promise<Answer> => {
    const t = performance.now();
    const r = await fetch(`${base}/api/v1/verify`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(image),
    });
    return { status: r.status, body: (await r.json()) as Answer['body'], ms: performance.now() - t };
  };
}

const used = async (h: Harness, shopId: string) =>
  (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).executeTakeFirst())?.used ?? 0;

const ENV = { DECODE_THREADS: '2', RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_VERIFY_PER_SHOP: '100000' };

async function hostileSet(): Promise<[string, Buffer][]> {
  return [
    ['zTXt bomb (40 x 50 MB of zeros)', await ztxtBombPng(40)],
    ['huge iCCP', await hugeIccpPng()],
    ['5000 tiny IDAT chunks', await tinyIdatsPng(5000)],
    ['progressive JPEG, 3000 scans', await manyScansJpeg(3000)],
    ['EXIF bomb', await exifBombJpeg(30)],
    ['1 MB ICC in APP2', await hugeIccJpeg()],
    ['24 MP progressive JPEG, 4:4:4', await bigProgressiveJpeg()],
    ['24 MP interlaced RGBA PNG', await bigInterlacedPng()],
  ];
}

// Images the byte-level gate refused: a refusal returns before the decoder queue, so a count that grows
// by one per bomb proves no bomb reached a decoder, whatever the machine's load. (The record's latency
// did not: 40 bombs at once on a loaded CI run recorded 875 ms for a gate refusal, all of it the upload
// and the record's write queued behind the other 39.)
const gateRefusals = async () => (await metrics.imageGateRefusals.get()).values.reduce((sum, v) => sum + v.value, 0);

// The issue: a 1.9 MB PNG of 16x16 pixels with 40 zTXt chunks kept a decoder busy 84.5 s, the
// sender got 500 DECODER_FAILED, another shop's checks waited 18-83 s, /health stayed green.
describe('hostile images over the real verify route', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let verify: ReturnType<typeof client>;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness('sqlite', { CHECKER_URL: bank.url, ...ENV });
    verify = client(await serve(h));
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('answers every bomb kind INVALID UNREADABLE_IMAGE from the byte gate (no decoder sees it), free; other formats 400 INVALID_IMAGE (the spec: JPEG or PNG only)', async () => {
    const bomber = await seedShop(h, { name: 'bomber' });
    const payer = await seedShop(h, { name: 'payer' });
    // Warm-up: decoders started, first connection made.
    expect((await verify(payer.auth, await bank.slip((await bank.register()).transRef, 'clean', 'png'))).body.data?.status).toBe('SUCCESS');
    for (const [name, img] of await hostileSet()) {
      const refusedBefore = await gateRefusals();
      const a = await verify(bomber.auth, img);
      expect([a.status, a.body.data?.status, a.body.data?.errorCode], name).toEqual([200, 'INVALID', 'UNREADABLE_IMAGE']);
      // Refused by the gate, not stopped by a decoder: the round trip (a 2 MB upload on a shared
      // machine) stays well within the kill limit a decoder would have run to.
      expect(await gateRefusals(), name).toBe(refusedBefore + 1);
      expect(a.ms, name).toBeLessThan(DEFAULT_DECODE_KILL_MS);
    }
    // Every other format sharp reads is refused before the service looks at it (no record, no charge).
    for (const [name, img] of Object.entries(await otherFormats())) {
      const a = await verify(bomber.auth, img);
      expect([a.status, a.body.code], name).toEqual([400, 'INVALID_IMAGE']);
      expect(a.ms, name).toBeLessThan(DEFAULT_DECODE_KILL_MS);
    }
    expect(await used(h, bomber.shop.id)).toBe(0);
    const health = await fetch(`${verifyBase(h)}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { checks: { decoder?: { status: string } } }).checks.decoder?.status).toBe('up');
  }, 120_000);

  it("while one shop sends 40 bombs at once, all 40 stop at the gate and another shop's verifies stay within the fairness bound (docs/benchmarks.md)", async () => {
    const bomber = await seedShop(h, { name: 'bomber2' });
    const payer = await seedShop(h, { name: 'payer2' });
    const slips: Buffer[] = [];
    for (let i = 0; i < 9; i++) slips.push(await bank.slip((await bank.register()).transRef, 'jpeg70', 'jpg'));
    const kinds = await hostileSet();
    const bombs = Array.from({ length: 40 }, (_, i) => variantOf(kinds[i % kinds.length]![1], i));
    const [slow] = await slowBlankPngs(1);

    // The bound of docs/benchmarks.md ("Decoder fairness"): 2 x the other shop's median alone + 3 x
    // one slow image alone.
    const alone: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await verify(payer.auth, slips[i]!);
      expect(r.body.data?.status).toBe('SUCCESS');
      alone.push(r.ms);
    }
    const slowAlone = await verify(bomber.auth, slow!);
    expect(slowAlone.body.data?.status).toBe('INVALID');
    const bound = 2 * median(alone) + 3 * slowAlone.ms;

    const refusedBefore = await gateRefusals();
    const flooding = Promise.all(bombs.map((img) => verify(bomber.auth, img)));
    await new Promise((r) => setTimeout(r, 200));
    const during: Answer[] = [];
    for (let i = 4; i < 9; i++) during.push(await verify(payer.auth, slips[i]!));
    const floodAnswers = await flooding;

    expect(during.map((d) => d.body.data?.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    for (const d of during)
      expect(d.ms, `alone median ${median(alone).toFixed(0)} ms, slow image ${slowAlone.ms.toFixed(0)} ms`).toBeLessThanOrEqual(bound);
    for (const a of floodAnswers)
      expect([a.status, a.body.data?.status, a.body.data?.errorCode]).toEqual([200, 'INVALID', 'UNREADABLE_IMAGE']);
    // All 40 refused by the gate: none took a decoder from the other shop.
    expect(await gateRefusals()).toBe(refusedBefore + bombs.length);
    expect(await used(h, bomber.shop.id)).toBe(0);
    expect(await used(h, payer.shop.id)).toBe(9);
  }, 180_000);
});

function verifyBase(h: Harness): string {
  const addr = h.app.server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

// Whatever slips past the gate (here: the gate switched off, so the zTXt bomb reaches libvips) is
// stopped for real at the kill limit: the decoder process is SIGKILLed and replaced.
describe('a decode that overruns is stopped for real (gate off, so the bomb reaches libvips)', () => {
  // A kill limit of half the default: the 190-chunk bomb below takes libvips 1.5-2.2 s on this machine
  // kind, quiet or loaded, so it overruns 1 s wherever the test runs. At the default 2 s a quiet run
  // sometimes finished the 150-chunk bomb in time (answered NO_QR_FOUND, the full run failed once).
  const KILL_MS = 1000;
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let verify: ReturnType<typeof client>;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness('sqlite', { CHECKER_URL: bank.url, ...ENV }, { decoderPool: { screen: false, jobTimeoutMs: KILL_MS } });
    verify = client(await serve(h));
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('the bomb is answered INVALID UNREADABLE_IMAGE at the kill limit, free; the decoder pid changes and the pool still decodes', async () => {
    const bomber = await seedShop(h, { name: 'bomber' });
    const payer = await seedShop(h, { name: 'payer' });
    const slips: Buffer[] = [];
    for (let i = 0; i < 9; i++) slips.push(await bank.slip((await bank.register()).transRef, 'jpeg70', 'jpg'));
    // An ordinary slip's decode is stopped at this short limit too when the full suite loads both cores
    // (one did, in a full run: INVALID instead of SUCCESS). A stopped decode is no verdict and is free, so
    // the customer sends the slip again, as the product tells them; the wait counts every attempt.
    const payerVerify = async (image: Buffer): Promise<Answer> => {
      let ms = 0;
      for (let attempt = 1; ; attempt++) {
        const r = await verify(payer.auth, image);
        ms += r.ms;
        if (r.body.data?.errorCode !== 'UNREADABLE_IMAGE' || attempt === 3) return { ...r, ms };
      }
    };
    const alone: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await payerVerify(slips[i]!);
      expect(r.body.data?.status, JSON.stringify(r.body)).toBe('SUCCESS');
      alone.push(r.ms);
    }
    const before = h.c.decoderHealth()!.pids;
    expect(before).toHaveLength(2);

    // 190 x 50 MB of zeros (9.5 MB on the wire, under MAX_IMAGE_BYTES): libvips inflates them for
    // about two seconds on a quiet machine (40 chunks took ~84 s on a loaded node), over KILL_MS.
    const bomb = await ztxtBombPng(190);
    const a = await verify(bomber.auth, bomb);
    expect([a.status, a.body.data?.status, a.body.data?.errorCode]).toEqual([200, 'INVALID', 'UNREADABLE_IMAGE']);
    expect(a.ms).toBeGreaterThanOrEqual(KILL_MS - 50);
    // The kill itself is proven by the pid below; the round trip (a 9.5 MB upload, its copy to the
    // decoder, the kill, the record) only has to stay far from the 84 s the issue measured, whatever
    // the load of a full run adds.
    expect(a.ms).toBeLessThan(KILL_MS + 10_000);
    const after = h.c.decoderHealth()!.pids;
    expect(after).toHaveLength(2);
    // The replacement's start-up (tsx, sharp, zxing): its slot decodes nothing until it says ready.
    const killedAt = performance.now();
    while (h.c.decoderHealth()!.decoders < 2) await new Promise((r) => setTimeout(r, 10));
    const restartMs = performance.now() - killedAt;
    expect(after.filter((p) => !before.includes(p))).toHaveLength(1); // one decoder replaced
    expect(before.filter((p) => !after.includes(p)).every((p) => !alive(p))).toBe(true); // and the old one is gone
    // A stopped decode is no verdict to keep: the same image is really checked again (and stopped again).
    const again = await verify(bomber.auth, bomb);
    expect(again.body.data?.errorCode).toBe('UNREADABLE_IMAGE');
    expect(again.body.data?.id).not.toBe(a.body.data?.id);

    // Fairness with the kill: 4 bombs at once from one shop; the other shop waits for at most one
    // of them (the bound of docs/benchmarks.md with the bomb as the slow image). A killed bomb's
    // slot is also out while its replacement starts, so the slow image costs its kill plus that
    // start-up (1-3 s on a loaded machine: without it the bound failed a loaded full run).
    const flooding = Promise.all([0, 1, 2, 3].map((i) => verify(bomber.auth, variantOf(bomb, i))));
    await new Promise((r) => setTimeout(r, 200));
    const during: Answer[] = [];
    for (let i = 4; i < 9; i++) during.push(await payerVerify(slips[i]!));
    const floodAnswers = await flooding;
    // The slow image's time is the bomb's during the flood when that was longer: the kill limit counts a
    // decoder's running time, and with four bombs and a full test run on two cores each took longer in
    // wall time than the lone bomb above (the first bombs of the flood waited for nothing else).
    const bombMs = Math.max(a.ms, Math.min(...floodAnswers.map((f) => f.ms)));
    const bound = 2 * median(alone) + 3 * (bombMs + restartMs);
    expect(during.map((d) => d.body.data?.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    for (const d of during)
      expect(
        d.ms,
        `alone median ${median(alone).toFixed(0)} ms, bomb ${a.ms.toFixed(0)} ms (${bombMs.toFixed(0)} in the flood), restart ${restartMs.toFixed(0)} ms`,
      ).toBeLessThanOrEqual(bound);
    for (const f of floodAnswers) expect([f.status, f.body.data?.errorCode]).toEqual([200, 'UNREADABLE_IMAGE']);
    expect(await used(h, bomber.shop.id)).toBe(0);
    expect(await used(h, payer.shop.id)).toBe(9);
  }, 180_000);
});

describe('readiness reports a decoder pool that cannot start its decoders', () => {
  it('/health answers 503 with decoder down; verify answers 503 DECODER_UNAVAILABLE, never a 500', async () => {
    const h = await createHarness('sqlite', ENV, { decoderPool: { workerUrl: BROKEN, screen: false } });
    try {
      const base = await serve(h);
      const shop = await seedShop(h);
      const verify = client(base);
      const png = await tinyPng(64, 64);
      const first = await verify(shop.auth, png);
      expect(first.status).toBe(503);
      await expect
        .poll(async () => (await verify(shop.auth, variantOf(png, Math.random()))).body.code, { timeout: 10_000 })
        .toBe('DECODER_UNAVAILABLE');
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        status: 'degraded',
        checks: { database: { status: 'up' }, decoder: { status: 'down' } },
      });
      expect(await used(h, shop.shop.id)).toBe(0);
    } finally {
      await h.close();
    }
  }, 60_000);
});

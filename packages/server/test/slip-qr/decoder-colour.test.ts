// Colour management the QR scan does not need. A CMYK JPEG (a print workflow's export) was converted to
// sRGB through lcms at full size: a 366 KB white 6000x4000 CMYK JPEG took a decoder past the 2 s kill
// limit every time (SIGKILL, ~2-4 s of respawn for the next shop's slip), and a slip in such a picture
// was answered INVALID. Embedded ICC profiles (Display P3 on every iPhone photo) were applied too:
// ~0.5 s of CPU per 24 MP photo for pixels the scan reads one channel of.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp, { type Sharp } from 'sharp';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { DEFAULT_DECODE_KILL_MS } from '../../src/modules/slip-qr/slip-qr-pool.js';
import { metrics } from '../../src/lib/metrics.js';
import { childCpuMs } from '../../src/modules/slip-qr/run-clock.js';

type Answer = { status: number; ms: number; body: { data?: { status: string; errorCode?: string | null } } };

/** CPU time (ms) a process has used so far, as the pool reads its decoders' (Linux: the test machines). */
const cpuMsOf = (pid: number): number => childCpuMs(pid)!;

const stopped = async () => (await metrics.decoderStopped.get()).values.reduce((sum, v) => sum + v.value, 0);

/**
 * A 12 MP photo filled by a slip (3000x4000, the slip enlarged 2x): its QR reads in the fast pass, so the
 * verdict does not hang on the 600 ms decode budget, whatever the load beside the test.
 */
async function slipPhoto(slip: Buffer): Promise<Sharp> {
  const big = await sharp(slip).resize({ width: 2160, kernel: 'nearest' }).png().toBuffer();
  const png = await sharp({ create: { width: 3000, height: 4000, channels: 3, background: '#ffffff' } })
    .composite([{ input: big, left: 420, top: 100 }])
    .png({ compressionLevel: 1 })
    .toBuffer();
  return sharp(png);
}

/** A blank 12 MP page (4000x3000, under 200 KB): the whole cascade runs on it up to the decode budget. */
const blankPage = () => sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#ffffff' } });

describe('colour: CMYK and ICC-tagged pictures cost no colour transform (real HTTP, SQLite, production kill limit)', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let base = '';
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness(
      'sqlite',
      { CHECKER_URL: bank.url, DECODE_THREADS: '1', RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_VERIFY_PER_SHOP: '100000' },
      // The service's own limit: the point is what a production decoder does with these pictures.
      { decoderPool: { jobTimeoutMs: DEFAULT_DECODE_KILL_MS } },
    );
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = h.app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  async function post(auth: Record<string, string>, image: Buffer): Promise<Answer> {
    const t = performance.now();
    const r = await fetch(`${base}/api/v1/verify`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(image),
    });
    const body = (await r.json()) as Answer['body'];
    return { status: r.status, body, ms: performance.now() - t };
  }

  /** One verify, with the CPU its (single) decoder spent meanwhile; Infinity when the decoder was replaced. */
  async function verify(auth: Record<string, string>, image: Buffer): Promise<Answer & { cpuMs: number }> {
    const pid = h.c.decoderHealth()!.pids[0]!;
    const cpu0 = cpuMsOf(pid);
    const answer = await post(auth, image);
    const after = h.c.decoderHealth()!.pids[0];
    return { ...answer, cpuMs: after === pid ? cpuMsOf(pid) - cpu0 : Infinity };
  }

  it('a blank 12 MP CMYK or P3 page costs a decoder no lcms transform (no kill); CMYK and Display P3 slip photos read; nothing charged for a page without a slip', async () => {
    const shop = await seedShop(h, { name: 'colour' });
    // Warm-up: the decoder started and loaded.
    expect((await post(shop.auth, await bank.slip((await bank.register()).transRef, 'clean', 'jpg'))).body.data?.status).toBe('SUCCESS');
    const stoppedBefore = await stopped();

    const plainPage = await verify(shop.auth, await blankPage().jpeg().toBuffer());
    // 183 KB: it took the decoder past the 2 s kill limit (SIGKILL, then a respawn every other shop waited for).
    const cmykPage = await verify(shop.auth, await blankPage().toColourspace('cmyk').jpeg().toBuffer());
    const p3Page = await verify(shop.auth, await blankPage().withIccProfile('p3').jpeg().toBuffer());
    const figures = `blank pages: sRGB ${plainPage.cpuMs} ms CPU / ${plainPage.ms.toFixed(0)} ms wall; CMYK ${cmykPage.cpuMs} / ${cmykPage.ms.toFixed(0)}; P3 ${p3Page.cpuMs} / ${p3Page.ms.toFixed(0)}`;
    for (const page of [plainPage, cmykPage, p3Page])
      expect([page.status, page.body.data?.status, page.body.data?.errorCode], figures).toEqual([200, 'INVALID', 'NO_QR_FOUND']);
    // No decoder was killed for overrunning (a kill also shows as a changed pid: cpuMs Infinity).
    expect(await stopped(), figures).toBe(stoppedBefore);
    // The decoder's own CPU (load beside the test stretches wall time, hardly CPU time). With lcms
    // (8c903a7^, this machine kind) the CMYK page cost 4.5x the plain page's whole cascade and the P3
    // page 1.7x; without, a P3 page costs what a plain one does and a CMYK page 2-2.4x (its JPEG has four
    // full-size channels to decode where a plain one has one and two quarter-size).
    expect(cmykPage.cpuMs, figures).toBeLessThanOrEqual(2.5 * plainPage.cpuMs + 100);
    expect(p3Page.cpuMs, figures).toBeLessThanOrEqual(1.25 * plainPage.cpuMs + 50);

    // Pixels still read right without colour management: the slip as a bank app renders it (native
    // size) and in a 12 MP photo (decoded shrunk: the separate-rendition path).
    const slips = async () => bank.slip((await bank.register()).transRef, 'clean', 'png');
    const images: [string, Buffer][] = [
      [
        'CMYK slip',
        await sharp(await slips())
          .toColourspace('cmyk')
          .jpeg({ quality: 85 })
          .toBuffer(),
      ],
      [
        'P3 slip',
        await sharp(await slips())
          .withIccProfile('p3')
          .jpeg({ quality: 85 })
          .toBuffer(),
      ],
      ['CMYK 12 MP photo', await (await slipPhoto(await slips())).toColourspace('cmyk').jpeg({ quality: 85 }).toBuffer()],
    ];
    for (const [kind, image] of images) {
      const a = await post(shop.auth, image);
      expect([a.status, a.body.data?.status, a.body.data?.errorCode], kind).toEqual([200, 'SUCCESS', null]);
    }
    // Nothing charged for the pages without a slip (the warm-up and the three photos: one unit each).
    const used = await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shop.shop.id).executeTakeFirst();
    expect(used?.used, figures).toBe(4);
  }, 120_000);
});

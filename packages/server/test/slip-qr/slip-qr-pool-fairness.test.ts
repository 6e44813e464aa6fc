import { afterEach, describe, expect, it } from 'vitest';
import { createSlipDecoderPool, type SlipDecoderPool } from '../../src/modules/slip-qr/index.js';

const FAKE = new URL('./fixtures/fake-decoder-worker.mjs', import.meta.url);

/** First byte: what the fake worker does (0 answer, 2 hang, 5 answer after byte[1]*10 ms); byte 2 tags the job. */
function cmd(n: number, delay10ms = 0, tag = 0): Buffer {
  const b = Buffer.from(new ArrayBuffer(64));
  b[0] = n;
  b[1] = delay10ms;
  b[2] = tag;
  return b;
}
const outcome = (p: Promise<{ ok: boolean; message?: string }>) =>
  p.then(
    (r) => r.message ?? 'ok',
    (e: { code?: string }) => e.code ?? 'error',
  );

let pool: SlipDecoderPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

// One shop flooding the decoder must not starve another: shares of the queue, fewest-running-first
// scheduling, a per-shop running limit, and slots that come back when a job times out.
describe('slip decoder pool fairness between shops', () => {
  it("a shop below its share of a full queue takes the flooding shop's newest place; the flooder gets DECODER_BUSY", async () => {
    pool = createSlipDecoderPool({ threads: 1, maxQueue: 4, workerUrl: FAKE, screen: false, jobTimeoutMs: 60_000 });
    await pool.ready();
    const a = [0, 1, 2, 3, 4].map(() => outcome(pool!.decode(cmd(2), { key: 'A' }))); // 1 running + 4 queued
    expect(pool.keyStats('A')).toMatchObject({ running: 1, queued: 4 });
    await expect(pool.decode(cmd(2), { key: 'A' })).rejects.toMatchObject({ code: 'DECODER_BUSY', statusCode: 503 });
    const b1 = outcome(pool.decode(cmd(2), { key: 'B' }));
    expect(await a[4]).toBe('DECODER_BUSY'); // A's newest gave its place to B
    expect(pool.keyStats('A')).toMatchObject({ running: 1, queued: 3 });
    const b2 = outcome(pool.decode(cmd(2), { key: 'B' }));
    expect(await a[3]).toBe('DECODER_BUSY');
    // Two keys, room 4: B holds its share of 2, so its third is refused and A keeps 2.
    await expect(pool.decode(cmd(2), { key: 'B' })).rejects.toMatchObject({ code: 'DECODER_BUSY' });
    expect(pool.keyStats('A')).toMatchObject({ running: 1, queued: 2 });
    expect(pool.keyStats('B')).toMatchObject({ running: 0, queued: 2 });
    await pool.close();
    expect(await Promise.all([b1, b2])).toEqual(['DECODER_CLOSED', 'DECODER_CLOSED']);
  });

  it('a free worker goes to the waiting shop with the fewest running jobs, not to the longest queue', async () => {
    pool = createSlipDecoderPool({ threads: 1, workerUrl: FAKE, screen: false });
    await pool.ready();
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => order.push(name));
    const jobs = [track('A0', pool.decode(cmd(5, 10), { key: 'A' }))];
    for (let i = 1; i <= 5; i++) jobs.push(track(`A${i}`, pool.decode(cmd(5, 2), { key: 'A' })));
    jobs.push(track('B0', pool.decode(cmd(5, 2), { key: 'B' })));
    await Promise.all(jobs);
    expect(order.slice(0, 2)).toEqual(['A0', 'B0']); // B waited for one running job only
  });

  it('limits the jobs one shop has on the workers at once, so another shop starts at once', async () => {
    pool = createSlipDecoderPool({ threads: 3, workerUrl: FAKE, screen: false, jobTimeoutMs: 60_000 });
    await pool.ready();
    const a = [0, 1, 2].map(() => outcome(pool!.decode(cmd(2), { key: 'A' })));
    expect(pool.keyStats('A')).toMatchObject({ running: 2, queued: 1 }); // default: threads - 1 per shop
    const b = outcome(pool.decode(cmd(0), { key: 'B' }));
    expect(pool.keyStats('B')).toMatchObject({ running: 1, queued: 0 });
    expect(await b).toContain('bytes=');
    await pool.close();
    expect(await Promise.all(a)).toEqual(['DECODER_CLOSED', 'DECODER_CLOSED', 'DECODER_CLOSED']);
  });

  it('charges a shop the decode time it used: after its image ran to the kill limit, a shop that used little goes first', async () => {
    pool = createSlipDecoderPool({ threads: 1, workerUrl: FAKE, screen: false, jobTimeoutMs: 400 });
    await pool.ready();
    expect(await outcome(pool.decode(cmd(2), { key: 'A' }))).toContain('longer than 400 ms'); // A's image killed at 400 ms
    expect(pool.keyStats('A').usedMs).toBeGreaterThanOrEqual(350);
    expect(await outcome(pool.decode(cmd(0), { key: 'B' }))).toContain('bytes='); // B: a quick one, started after A's
    const order: string[] = [];
    const c = pool.decode(cmd(5, 20), { key: 'C' }); // occupies the decoder while A and B queue
    const a = pool.decode(cmd(0), { key: 'A' }).then(() => order.push('A'));
    const b = pool.decode(cmd(0), { key: 'B' }).then(() => order.push('B'));
    await Promise.all([c, a, b]);
    // Round robin alone would pick A (its last start is the older); its 400 ms of decoder time puts it after B.
    expect(order).toEqual(['B', 'A']);
  });

  it('gives the shop its slot back when a job times out', async () => {
    pool = createSlipDecoderPool({ threads: 2, maxRunningPerKey: 1, workerUrl: FAKE, screen: false, jobTimeoutMs: 300 });
    await pool.ready();
    const hung = outcome(pool.decode(cmd(2), { key: 'A' }));
    const next = outcome(pool.decode(cmd(0), { key: 'A' }));
    expect(pool.keyStats('A')).toMatchObject({ running: 1, queued: 1 }); // one worker idle: A is at its limit
    expect(await hung).toContain('longer than 300 ms'); // stopped: UNREADABLE_IMAGE, not an error
    expect(await next).toContain('bytes=');
    expect(pool.keyStats('A')).toMatchObject({ running: 0, queued: 0 });
    expect(await outcome(pool.decode(cmd(0), { key: 'A' }))).toContain('bytes=');
  });
});

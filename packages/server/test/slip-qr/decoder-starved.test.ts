import { afterEach, describe, expect, it } from 'vitest';
import { throttle } from '../helpers/throttle.js';
import { generateSlip } from '@slipcheck/sandbox-bank';
import { createSlipDecoderPool, type SlipDecoderPool } from '../../src/modules/slip-qr/index.js';
import { STARVED_GRACE_MS } from '../../src/modules/slip-qr/slip-qr-pool.js';
import { ztxtBombPng } from './hostile-images.js';
import { childCpuMs, processCpuMs } from '../../src/modules/slip-qr/run-clock.js';

let pool: SlipDecoderPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('decoder time limits count running time, not time spent waiting for a CPU', () => {
  it('reads a process\u2019s CPU time from /proc as the process counts it itself', () => {
    const t0 = performance.now();
    while (performance.now() - t0 < 100); // run, so both clocks have moved by ticks
    const own = processCpuMs();
    const read = childCpuMs(process.pid);
    expect(read).toBeGreaterThan(90);
    // /proc counts in 10 ms ticks; both include every thread of the process.
    expect(Math.abs(read! - own)).toBeLessThan(40);
    expect(childCpuMs(2 ** 22 + 7)).toBeNull(); // above Linux's largest pid: no such process
  });

  it('reads an edited slip\u2019s printed amount while its decoder gets a twentieth of a core', async () => {
    // Budgets scaled down from the production 1.7 s / 2 s so the test stays short: the decode and the
    // read need 75-250 ms of CPU, and at a twentieth of a core (less on a loaded machine) they take
    // longer than both limits. A starved decoder's grace is raised: the load beside the test is not its to bound.
    pool = createSlipDecoderPool({ threads: 1, warmReader: true, imageBudgetMs: 1000, jobTimeoutMs: 1200, starvedGraceMs: 60_000 });
    await pool.ready();
    const g = await generateSlip({ amount: 100, edit: 'add', layout: 'kplus' });
    // Unthrottled first: the amount reads, and the pool keeps the same decoder.
    expect(await (await pool.decodeAndRead(Buffer.from(g.image), { key: 'warm' })).printed).toMatchObject({ amountSatang: 110000 });
    const [pid] = pool.health().pids;
    const release = throttle(pid!, 5, 95);
    const t0 = performance.now();
    try {
      const r = await pool.decodeAndRead(g.image, { key: 'shop' });
      expect(r.decoded).toMatchObject({ ok: true });
      const printed = await r.printed;
      const wall = performance.now() - t0;
      // The job did wait past both limits (else this test proves nothing), and still read the amount.
      expect(wall).toBeGreaterThan(1200);
      expect(printed).toMatchObject({ amountSatang: 110000, text: '1,100.00' });
    } finally {
      release();
    }
    expect(pool.health().pids).toEqual([pid]); // not killed
  }, 60_000);

  it('still stops a decoder that gets no CPU at all, its grace after the limit (6 s by default), and replaces it', async () => {
    expect(STARVED_GRACE_MS).toBe(6000);
    pool = createSlipDecoderPool({ threads: 1, jobTimeoutMs: 400, starvedGraceMs: 1000 });
    await pool.ready();
    const [pid] = pool.health().pids;
    const g = await generateSlip({ amount: 50, layout: 'kplus' });
    process.kill(pid!, 'SIGSTOP'); // for good: the pool's SIGKILL ends it
    const t0 = performance.now();
    const r = await pool.decode(g.image, { key: 'shop' });
    const wall = performance.now() - t0;
    expect(r).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE', stopped: true, message: expect.stringContaining('overloaded') });
    expect(wall).toBeGreaterThanOrEqual(1350);
    expect(wall).toBeLessThan(5000);
    expect(() => process.kill(pid!, 0)).toThrow(); // gone for real
    // The replacement decodes the same slip.
    expect(await pool.decode((await generateSlip({ amount: 50, layout: 'kplus' })).image)).toMatchObject({ ok: true });
    expect(pool.health().pids).not.toContain(pid);
  }, 60_000);

  it('stops a decoder that spends its limit running, at the limit, as before', async () => {
    // The gate off, so a zTXt bomb reaches libvips: it inflates for 1.5-2.2 s of CPU (decoder-bombs).
    // Stopped once it has run 300 ms, however loaded the machine, long before the starved limit.
    pool = createSlipDecoderPool({ threads: 1, screen: false, jobTimeoutMs: 300, starvedGraceMs: 60_000 });
    await pool.ready();
    const [pid] = pool.health().pids;
    const t0 = performance.now();
    const r = await pool.decode(await ztxtBombPng(190), { key: 'shop' });
    expect(r).toMatchObject({
      ok: false,
      errorCode: 'UNREADABLE_IMAGE',
      stopped: true,
      message: expect.stringContaining('longer than 300 ms'),
    });
    expect(performance.now() - t0).toBeLessThan(30_000);
    expect(() => process.kill(pid!, 0)).toThrow();
  }, 60_000);
});

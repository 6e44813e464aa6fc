import { afterEach, describe, expect, it } from 'vitest';
import { createSlipDecoderPool, type SlipDecoderPool } from '../../src/modules/slip-qr/index.js';
import { bankPayload, slipImage } from './qr-images.js';
import { manyScansJpeg, otherFormats, ztxtBombPng } from './hostile-images.js';

const FAKE = new URL('./fixtures/fake-decoder-worker.mjs', import.meta.url);
const BROKEN = new URL('./fixtures/broken-worker.mjs', import.meta.url);

/** A standalone image buffer whose first byte tells the fake worker what to do. */
function cmd(n: number, size = 64): Buffer {
  const b = Buffer.from(new ArrayBuffer(size));
  b[0] = n;
  return b;
}

let pool: SlipDecoderPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('slip decoder pool with the real worker', () => {
  it('decodes concurrently in decoder processes and keeps the event loop free', async () => {
    pool = createSlipDecoderPool({ threads: 2 });
    const refs = ['AAAAAAAAAAAA0001', 'BBBBBBBBBBBB0002', 'CCCCCCCCCCCC0003', 'DDDDDDDDDDDD0004'];
    const images = await Promise.all(refs.map((ref) => slipImage([{ text: bankPayload('014', ref), size: 260, left: 780, top: 1500 }])));
    await pool.ready();
    // The decoding must not happen on this thread. No fixed limit (a loaded machine stretches
    // everything): this process's CPU while four decodes run (handing images over and reading answers)
    // against their wall time, which a decode on this thread would about fill. CPU, not event-loop lag:
    // a loaded full run preempts the loop for longer than the decodes' own lag, but adds little CPU.
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const results = await Promise.all(images.map((img) => pool!.decode(img)));
    const cpu = process.cpuUsage(cpu0);
    const elapsed = performance.now() - t0;
    expect(results.map((r) => (r.ok ? r.transRef : r.errorCode))).toEqual(refs);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(elapsed / 4);
  });

  it('transfers the image to the worker unless asked to copy', async () => {
    pool = createSlipDecoderPool({ threads: 1 });
    const payload = bankPayload('004', 'TRANSFER0000001');
    const a = Buffer.from(await slipImage([{ text: payload, size: 260, left: 780, top: 1500 }]));
    const b = Buffer.from(a);
    const size = a.length;
    const pending = pool.decode(a);
    expect(a.length).toBe(0); // detached: no copy of the image stays on this thread
    expect(await pending).toMatchObject({ ok: true, payload });
    expect(await pool.decode(b, { copy: true })).toMatchObject({ ok: true, payload });
    expect(b.length).toBe(size);
  });

  it('reads a kept image in place: the caller keeps its whole, unchanged Buffer (the verify pipeline)', async () => {
    pool = createSlipDecoderPool({ threads: 1 });
    const payload = bankPayload('004', 'TRANSFER0000002');
    const a = Buffer.from(await slipImage([{ text: payload, size: 260, left: 780, top: 1500 }]));
    const before = Buffer.from(a);
    const pending = pool.decode(a, { keep: true });
    expect(a.length).toBe(before.length); // not transferred: the checker call still has it
    expect(await pending).toMatchObject({ ok: true, payload });
    expect(a.equals(before)).toBe(true);
    // A slice of a larger buffer is read where it lies too (the decoder gets only its bytes).
    const framed = Buffer.concat([Buffer.from('head'), before, Buffer.from('tail')]);
    expect(await pool.decode(framed.subarray(4, 4 + before.length), { keep: true })).toMatchObject({ ok: true, payload });
  });

  it('handles small pooled Buffers (which must not be transferred) and returns typed failures', async () => {
    pool = createSlipDecoderPool({ threads: 1 });
    const small = Buffer.from('not an image');
    const other = Buffer.from('neighbour in the same pool');
    expect(await pool.decode(small)).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    expect(other.toString()).toBe('neighbour in the same pool');
  });
});

describe('slip decoder pool gate (every caller: API, LINE, dashboard)', () => {
  it('refuses bombs and other formats UNREADABLE_IMAGE from their bytes, without taking a decoder', async () => {
    pool = createSlipDecoderPool({ threads: 1 });
    await pool.ready();
    const images = [await ztxtBombPng(40), await manyScansJpeg(3000), ...Object.values(await otherFormats())];
    const answers = images.map((img) => pool!.decode(img, { key: 'bomber' }));
    // No decoder took any of them (refused before the queue): what makes the gate fast under any load.
    expect(pool.stats()).toEqual({ threads: 1, busy: 0, queued: 0 });
    for (const a of await Promise.all(answers)) expect(a).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
  });
});

describe('slip decoder pool failure handling', () => {
  it('answers the image of a crashed decoder UNREADABLE_IMAGE (never a 500) and replaces the decoder', async () => {
    pool = createSlipDecoderPool({ threads: 1, workerUrl: FAKE, screen: false });
    expect(await pool.decode(cmd(1))).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    expect(await pool.decode(cmd(3))).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    expect(await pool.decode(cmd(0))).toMatchObject({ ok: false, errorCode: 'NO_QR_FOUND' });
    expect(pool.stats().threads).toBe(1);
  });

  it('answers a job the decoder reports as failed UNREADABLE_IMAGE, without losing the decoder', async () => {
    pool = createSlipDecoderPool({ threads: 1, workerUrl: FAKE, screen: false });
    await pool.ready();
    const pid = pool.health().pids[0];
    expect(await pool.decode(cmd(4))).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    expect(await pool.decode(cmd(0, 10))).toMatchObject({ message: expect.stringContaining('bytes=10') });
    expect(pool.health().pids).toEqual([pid]);
  });

  it('SIGKILLs a decoder stuck in a loop nothing can interrupt, replaces it and gives the slot back', async () => {
    // A second, not 300 ms: this stand-in reports no CPU time, so its limit is wall time, and a full run's
    // load once kept the test process from reading the replacement's immediate answer for 300 ms.
    pool = createSlipDecoderPool({ threads: 1, workerUrl: FAKE, screen: false, jobTimeoutMs: 1000 });
    await pool.ready();
    const [before] = pool.health().pids;
    const t0 = performance.now();
    const r = await pool.decode(cmd(6), { key: 'bomber' });
    const ms = performance.now() - t0;
    expect(r).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE', message: expect.stringContaining('longer than 1000 ms') });
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(ms).toBeLessThan(5000);
    expect(() => process.kill(before!, 0)).toThrow(); // the old process is gone for real
    const after = await pool.decode(cmd(0));
    expect(after).toMatchObject({ ok: false, errorCode: 'NO_QR_FOUND' });
    expect(after.ok ? '' : after.message).not.toContain(`pid=${before}`);
    expect(pool.health()).toMatchObject({ status: 'up', decoders: 1 });
    expect(pool.health().pids).not.toContain(before);
    // The shop is charged the time its image held the decoder, and its slot is free again.
    expect(pool.keyStats('bomber')).toMatchObject({ running: 0, queued: 0 });
    // (Decaying with a 10 s time constant while the replacement starts: at least half of it is left.)
    expect(pool.keyStats('bomber').usedMs).toBeGreaterThanOrEqual(500);
  });

  it('bounds the queue and rejects the overflow with DECODER_BUSY', async () => {
    pool = createSlipDecoderPool({ threads: 1, maxQueue: 2, workerUrl: FAKE, screen: false, jobTimeoutMs: 60_000 });
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: { code?: string }) => e.code,
      );
    const running = outcome(pool.decode(cmd(2)));
    const queued = [outcome(pool.decode(cmd(0))), outcome(pool.decode(cmd(0)))];
    await expect(pool.decode(cmd(0))).rejects.toMatchObject({ code: 'DECODER_BUSY', statusCode: 503 });
    expect(pool.stats()).toEqual({ threads: 1, busy: 1, queued: 2 });
    await pool.close();
    expect(await Promise.all([running, ...queued])).toEqual(['DECODER_CLOSED', 'DECODER_CLOSED', 'DECODER_CLOSED']);
    await expect(pool.decode(cmd(0))).rejects.toMatchObject({ code: 'DECODER_CLOSED' });
  });

  it('stops respawning a decoder that cannot start, says DECODER_UNAVAILABLE and reports itself down', async () => {
    pool = createSlipDecoderPool({ threads: 1, workerUrl: BROKEN, screen: false });
    expect(pool.health().status).toBe('up');
    await expect(pool.ready()).rejects.toMatchObject({ code: 'DECODER_UNAVAILABLE' });
    await expect(pool.decode(cmd(0))).rejects.toMatchObject({ code: 'DECODER_UNAVAILABLE' });
    expect(pool.stats().threads).toBe(0);
    expect(pool.health()).toMatchObject({ status: 'down', decoders: 0 });
  });
});

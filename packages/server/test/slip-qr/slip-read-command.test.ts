import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSlip, renderNonSlip } from '@slipcheck/sandbox-bank';
import { runReadCommand } from '../../src/modules/slip-qr/index.js';

let dir: string;
const bangkokHhmm = (d: Date) => new Date(d.getTime() + 7 * 3600_000).toISOString().slice(11, 16);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slipcheck-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runReadCommand (slipcheck read FILE...)', () => {
  it('per file: the QR, the printed amount with its confidence, the printed text, milliseconds; exit 1 when one is unread', async () => {
    // A fixed transfer time: the test's outcome must not depend on the minute it runs at (it did; see
    // the printed-time test below).
    const edited = await generateSlip({
      amount: 35,
      edit: 'decimal',
      layout: 'scb',
      format: 'png',
      transDate: new Date('2026-11-26T03:27:00Z'),
    });
    const files = [join(dir, 'edited.png'), join(dir, 'photo.png')];
    await writeFile(files[0], edited.image);
    await writeFile(files[1], await renderNonSlip('photo'));
    const lines: string[] = [];
    const code = await runReadCommand(files, (l) => lines.push(l));
    const [a, b] = lines.map((l) => JSON.parse(l));
    expect(a).toMatchObject({
      file: files[0],
      qr: { ok: true, bankCode: '014', transRef: edited.transfer.transRef, error: null },
      printedAmount: 3500,
      // The printed time (Bangkok, as the slip prints it) is read too; it never concludes anything.
      printed: { amountText: '3,500.00', time: bangkokHhmm(edited.transfer.transDate), reason: null },
      ms: expect.any(Number),
    });
    expect(a.confidence).toBeGreaterThanOrEqual(0.8);
    expect(b).toMatchObject({ file: files[1], qr: { ok: false, error: { code: 'NO_QR_FOUND' } }, printedAmount: null, printed: null });
    expect(code).toBe(1);
  }, 90_000);

  // Run at 06:53 UTC, the test above printed 18:53 for the slip's 13:53 (Bangkok): at 24 px the engine
  // took this layout's small 3 for an 8 with confidence 0.95, and 13:33 for 18:83 (read as nothing).
  it('reads the printed time right where a small 3 looked like an 8', async () => {
    const times = ['2026-11-26T06:53:00Z', '2026-11-26T06:33:00Z', '2026-11-26T01:38:00Z'];
    const files: string[] = [];
    for (const [i, t] of times.entries()) {
      const slip = await generateSlip({ amount: 35, layout: 'scb', format: 'png', transDate: new Date(t) });
      files.push(join(dir, `time-${i}.png`));
      await writeFile(files[i], slip.image);
    }
    const lines: string[] = [];
    expect(await runReadCommand(files, (l) => lines.push(l))).toBe(0);
    expect(lines.map((l) => (JSON.parse(l) as { printed: { time: string | null } }).printed.time)).toEqual(['13:53', '13:33', '08:38']);
  }, 90_000);

  it('usage error without files', async () => {
    const lines: string[] = [];
    expect(await runReadCommand([], (l) => lines.push(l))).toBe(2);
  });
});

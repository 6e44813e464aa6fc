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
    const edited = await generateSlip({ amount: 35, edit: 'decimal', layout: 'scb', format: 'png' });
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

  it('usage error without files', async () => {
    const lines: string[] = [];
    expect(await runReadCommand([], (l) => lines.push(l))).toBe(2);
  });
});

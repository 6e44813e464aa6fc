import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDecodeCommand } from '../../src/modules/slip-qr/index.js';
import { bankPayload, slipImage } from './qr-images.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slipcheck-decode-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runDecodeCommand (slipcheck decode FILE...)', () => {
  it('prints one JSON line per file, in argument order, and exits 0 when all are slips', async () => {
    const payloads = [bankPayload('014', 'CMDREF000000001'), bankPayload('002', 'CMDREF000000002')];
    const files = await Promise.all(
      payloads.map(async (p, i) => {
        const f = join(dir, `slip-${i}.jpg`);
        await writeFile(f, await slipImage([{ text: p, size: 260, left: 780, top: 1500 }]));
        return f;
      }),
    );
    const lines: string[] = [];
    const code = await runDecodeCommand(files, (l) => lines.push(l));
    expect(code).toBe(0);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed).toEqual([
      { file: files[0], ok: true, bankCode: '014', transRef: 'CMDREF000000001', payload: payloads[0], ms: expect.any(Number), error: null },
      { file: files[1], ok: true, bankCode: '002', transRef: 'CMDREF000000002', payload: payloads[1], ms: expect.any(Number), error: null },
    ]);
  });

  it('reports non-slips (exit 1) and unreadable files (exit 2) without stopping', async () => {
    const blank = join(dir, 'blank.jpg');
    await writeFile(blank, await slipImage([]));
    const lines: string[] = [];
    expect(await runDecodeCommand([blank], (l) => lines.push(l))).toBe(1);
    expect(JSON.parse(lines[0])).toMatchObject({ file: blank, ok: false, bankCode: null, error: { code: 'NO_QR_FOUND' } });

    const missing = join(dir, 'missing.png');
    const text = join(dir, 'notes.txt');
    await writeFile(text, 'hello');
    lines.length = 0;
    expect(await runDecodeCommand([missing, text, blank], (l) => lines.push(l))).toBe(2);
    expect(lines.map((l) => JSON.parse(l).error.code)).toEqual(['FILE_UNREADABLE', 'UNREADABLE_IMAGE', 'NO_QR_FOUND']);
  });

  it('prints usage and exits 2 without files', async () => {
    const lines: string[] = [];
    expect(await runDecodeCommand([], (l) => lines.push(l))).toBe(2);
    expect(lines[0]).toContain('usage');
  });
});

/** The real `slipcheck` process: exit status and output as an operator's shell sees them. */
function slipcheckProcess(...args: string[]): Promise<{ code: number | null; stdout: string }> {
  const bin = resolve(import.meta.dirname, '../../bin/slipcheck.js');
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, DATABASE_URL: '', REDIS_URL: '' } }, (err, stdout) =>
      done({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout }),
    );
  });
}

describe('slipcheck decode / read as a process', { timeout: 120_000 }, () => {
  // The pool's idle decoders do not hold the event loop; a command that awaited ready() or close()
  // on them alone had nothing keeping Node alive: it printed nothing and exited 13 (unsettled await).
  it('decode prints its line and exits 0; read on a picture without a slip QR prints its line and exits 1, not 13', async () => {
    const slip = join(dir, 'process-slip.jpg');
    const blank = join(dir, 'process-blank.jpg');
    await writeFile(slip, await slipImage([{ text: bankPayload('014', 'PROCREF00000001'), size: 260, left: 780, top: 1500 }]));
    await writeFile(blank, await slipImage([]));
    const [decoded, read] = await Promise.all([slipcheckProcess('decode', slip), slipcheckProcess('read', blank)]);
    expect(decoded.code).toBe(0);
    expect(JSON.parse(decoded.stdout)).toMatchObject({ ok: true, bankCode: '014', transRef: 'PROCREF00000001' });
    expect(read.code).toBe(1);
    expect(JSON.parse(read.stdout)).toMatchObject({ file: blank, qr: { ok: false, error: { code: 'NO_QR_FOUND' } }, printedAmount: null });
  });
});

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Two processes starting on a fresh DATA_DIR at once (two `slipcheck worker`s, the outbox-schedule
// test) both found no dev-secret.key: the second one's exclusive create failed with EEXIST and the
// process exited, or it read the file the first had created but not yet written (an empty secret).
// Three processes each make the secret of the same 300 fresh directories, in step: every process must
// get one and the same non-empty secret per directory.
const SERVER_DIR = path.resolve(import.meta.dirname, '../..');
const PROCESSES = 3;
const DIRS = 300;

describe('the development secret file', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-dev-secret-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is made once when several processes start on a fresh data directory at the same moment', async () => {
    // Each process says it is loaded (a file in ready/) and spins until all are: they begin together.
    const ready = path.join(root, 'ready');
    fs.mkdirSync(ready);
    const script = `
      import fs from 'node:fs';
      import { readOrCreateDevSecret } from './src/lib/dev-secret.ts';
      fs.writeFileSync(${JSON.stringify(ready)} + '/' + process.pid, '');
      while (fs.readdirSync(${JSON.stringify(ready)}).length < ${PROCESSES});
      const out = [];
      for (let i = 0; i < ${DIRS}; i++) {
        try { out.push(readOrCreateDevSecret(${JSON.stringify(root)} + '/d' + i)); } catch (err) { out.push('error: ' + err.code); }
      }
      process.stdout.write(JSON.stringify(out));`;
    const runs = await Promise.all(
      Array.from(
        { length: PROCESSES },
        () =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
            const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: SERVER_DIR });
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', (d: Buffer) => (err += d.toString()));
            child.once('exit', (code) => resolve({ code, out, err }));
          }),
      ),
    );
    for (const r of runs) expect(r, r.err).toMatchObject({ code: 0 });
    const secrets = runs.map((r) => JSON.parse(r.out) as string[]);
    for (let i = 0; i < DIRS; i++) {
      const mine = secrets.map((s) => s[i]);
      expect(mine[0], `d${i}`).toMatch(/^[0-9a-f]{64}$/);
      expect(new Set(mine).size, `d${i}: ${mine.join(' ')}`).toBe(1);
    }
  });
});

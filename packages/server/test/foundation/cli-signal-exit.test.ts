import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * bin/slipcheck.js, on a build (NODE_ENV=production), runs the CLI in a child node process and exits with
 * the child's status. A child ended by a signal was reported as 143 (SIGTERM's) whatever the signal: a
 * SIGKILLed worker (the OOM killer, `kill -9`) looked like one stopped politely. Shells report 128 + the
 * signal's number; so does the bin now. The child here is `slipcheck worker`, killed from outside with
 * signals it does not handle (it drains on SIGTERM and SIGINT, and exits 0 then).
 */
const BIN = path.resolve(import.meta.dirname, '../../bin/slipcheck.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-signal-exit-'));
const started: ChildProcess[] = [];

afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const childOf = (pid: number) =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map(Number)
    .filter(Boolean);

describe.skipIf(!fs.existsSync(path.resolve(import.meta.dirname, '../../dist/cli/cli.js')))(
  'bin/slipcheck.js exit status of a signalled child',
  () => {
    it.each([
      ['SIGKILL', 137],
      ['SIGHUP', 129],
      ['SIGUSR2', 140],
    ] as const)(
      '%s -> %i',
      async (signal, expected) => {
        const bin = spawn(process.execPath, [BIN, 'worker'], {
          env: {
            ...process.env,
            NODE_ENV: 'production',
            SECRET_KEY: randomBytes(32).toString('hex'),
            CHECKER: 'sandbox',
            CHECKER_URL: 'http://127.0.0.1:9',
            DATA_DIR: path.join(dir, signal),
            DATABASE_URL: '',
            REDIS_URL: '',
            METRICS_PORT: '',
            LOG_LEVEL: 'warn',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        started.push(bin);
        let output = '';
        bin.stdout!.on('data', (d) => (output += d));
        bin.stderr!.on('data', (d) => (output += d));
        const exited = new Promise<number | null>((r) => bin.on('exit', (code) => r(code)));
        const deadline = Date.now() + 60_000;
        while (!/worker \S+ started/.test(output)) {
          if (Date.now() > deadline || bin.exitCode !== null) throw new Error(`the worker did not start:\n${output}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const [child] = childOf(bin.pid!);
        expect(child, 'the bin runs the CLI in a child process on a build').toBeGreaterThan(0);
        process.kill(child!, signal);
        expect(await exited).toBe(expected);
      },
      90_000,
    );
  },
);

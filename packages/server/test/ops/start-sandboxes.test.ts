import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, portOpen } from '../faults/fault-kit.js';

/**
 * `npm start` (scripts/start.js) decides which sandboxes to run beside the service from the same
 * variables the service reads, and must read them as the service does (src/config.ts): a boolean is
 * off for 0/false/no/off, CHECKER is a comma list in any case and spacing. It tested `=== 'false'`
 * and `split(',').includes('sandbox')`, so SANDBOX_AUTOSTART=0 still started the sandbox bank (on a
 * port someone else may hold), and CHECKER=Sandbox left the service asking a bank nobody started.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-start-'));
const started: ChildProcess[] = [];

afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until(what: () => Promise<boolean>, ms: number, label: string) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${label}`);
}

/** Runs scripts/start.js with `env`; answers which of the bank and LINE sandboxes listen once the service does. */
async function sandboxesStarted(name: string, env: Record<string, string>) {
  const ports = {
    PORT: await freePort(),
    SANDBOX_PORT: await freePort(),
    SANDBOX_LINE_PORT: await freePort(),
    METRICS_PORT: await freePort(),
  };
  const child = spawn(process.execPath, ['scripts/start.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      DATA_DIR: path.join(dir, name),
      DECODE_THREADS: '1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  try {
    await until(() => portOpen(ports.PORT), 90_000, 'the service to listen').catch((e) => {
      throw new Error(`${(e as Error).message}\n${output}`);
    });
    // The sandboxes are spawned before the service and listen well before it; give a late one time anyway.
    await new Promise((r) => setTimeout(r, 2_000));
    return { bank: await portOpen(ports.SANDBOX_PORT), line: await portOpen(ports.SANDBOX_LINE_PORT) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

describe('npm start reads the autostart and CHECKER variables as the service does', () => {
  it('SANDBOX_AUTOSTART=0 and SANDBOX_LINE_AUTOSTART=off start neither sandbox', async () => {
    expect(await sandboxesStarted('off', { SANDBOX_AUTOSTART: '0', SANDBOX_LINE_AUTOSTART: 'off' })).toEqual({ bank: false, line: false });
  }, 150_000);

  it('CHECKER=" Sandbox" (the service takes it as sandbox) starts the sandbox bank', async () => {
    expect(await sandboxesStarted('case', { CHECKER: ' Sandbox', SANDBOX_LINE_AUTOSTART: 'No' })).toEqual({ bank: true, line: false });
  }, 150_000);
});

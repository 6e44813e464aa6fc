import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, freePort, portOpen } from '../faults/fault-kit.js';

/**
 * `npx slipcheck worker` is npx -> sh -> node and `npm start` is npm -> sh -> scripts/start.js ->
 * (service, sandbox bank, sandbox LINE). A SIGTERM or SIGKILL to the wrapper never reached the node
 * processes: they were re-parented, kept their ports, and the next start failed with EADDRINUSE.
 * Here a real `sh -c` stands in for npm/npx (`; exit $?` keeps sh from exec-ing node, as npm's sh does
 * with its own command line), and the node processes below it must all exit and free their ports.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-orphans-'));
const started: ChildProcess[] = [];
let leftovers: number[] = [];

afterAll(() => {
  // Whatever a failed test left behind, by pid: never by name.
  for (const pid of leftovers) kill(pid, 'SIGKILL');
  for (const c of started) if (c.pid) kill(c.pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

function kill(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Every process below `pid` (children, grandchildren...), from ps. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of rows)
      if (parent === p) {
        out.push(child);
        walk(child);
      }
  };
  walk(pid);
  return out;
}

function wrap(command: string, env: Record<string, string>) {
  const sh = spawn('sh', ['-c', `${command}; exit $?`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(sh);
  let output = '';
  sh.stdout!.on('data', (d) => (output += d));
  sh.stderr!.on('data', (d) => (output += d));
  return { sh, output: () => output };
}

async function until(what: () => boolean | Promise<boolean>, ms: number, label: string) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${label}`);
}

/** `npm start`'s script under a wrapper shell, on free ports, once the service and both sandboxes listen. */
async function startDev(dataDirName: string) {
  const ports = {
    PORT: await freePort(),
    SANDBOX_PORT: await freePort(),
    SANDBOX_LINE_PORT: await freePort(),
    METRICS_PORT: await freePort(),
  };
  const s = wrap('node scripts/start.js', {
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dir, dataDirName),
    DECODE_THREADS: '1',
    LOG_LEVEL: 'warn',
  });
  const all = Object.values(ports);
  await until(async () => (await Promise.all(all.map(portOpen))).every(Boolean), 90_000, 'the service and both sandboxes to listen').catch(
    (e) => {
      throw new Error(`${(e as Error).message}\n${s.output()}`);
    },
  );
  return { s, all };
}

describe.each(['SIGKILL', 'SIGTERM'] as const)('a killed wrapper leaves no node process behind (%s)', (signal) => {
  it('slipcheck worker (npx -> sh -> node) drains and exits', async () => {
    const dataDir = path.join(dir, `worker-${signal}`);
    const w = wrap(`node packages/server/bin/slipcheck.js worker`, { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await until(() => /worker \S+ started/.test(w.output()), 60_000, 'the worker to start');
    const nodes = descendants(w.sh.pid!);
    expect(nodes.length).toBeGreaterThan(0);
    leftovers.push(...nodes);

    w.sh.kill(signal);
    await until(() => nodes.every((p) => !alive(p)), 20_000, `worker processes ${nodes.join(',')} to exit`).catch((e) => {
      throw new Error(`${(e as Error).message}\n${w.output()}`);
    });
    expect(w.output()).toMatch(/parent process gone/);
    expect(w.output()).toMatch(/stopped \{/); // drained as on SIGTERM, not killed
  }, 120_000);

  it('npm start (npm -> sh -> scripts/start.js -> service, sandbox bank, sandbox LINE) stops all and frees the ports', async () => {
    const { s, all } = await startDev(`start-${signal}`);
    const nodes = descendants(s.sh.pid!);
    expect(nodes.length).toBeGreaterThanOrEqual(4); // start.js, service, bank, LINE (and decoders)
    leftovers.push(...nodes);

    s.sh.kill(signal);
    await until(() => nodes.every((p) => !alive(p)), 30_000, `processes ${nodes.join(',')} to exit`).catch((e) => {
      throw new Error(`${(e as Error).message}\n${s.output()}`);
    });
    for (const port of all) expect(await portOpen(port), `port ${port} freed`).toBe(false);
  }, 150_000);
});

describe('scripts/start.js itself killed outright', () => {
  it('the service and the sandboxes notice their parent is gone, stop and free the ports', async () => {
    const { s, all } = await startDev('start-direct');
    const [startJs] = descendants(s.sh.pid!);
    const below = descendants(startJs);
    leftovers.push(startJs, ...below);

    kill(startJs, 'SIGKILL'); // no handler runs: only the children's own watch can stop them
    await until(() => below.every((p) => !alive(p)), 30_000, `processes ${below.join(',')} to exit`).catch((e) => {
      throw new Error(`${(e as Error).message}\n${s.output()}`);
    });
    for (const port of all) expect(await portOpen(port), `port ${port} freed`).toBe(false);
    leftovers = [];
  }, 150_000);
});

/**
 * `npm run sandbox` was npm -> sh -> npm (`npm start -w packages/sandbox-bank`) -> sh -> tsx -> node. A
 * SIGTERM to the top npm stopped at the first sh; the inner npm, its sh, tsx and the bank lived on, and the
 * bank's own parent watch saw tsx, still there: the port stayed taken. Now both scripts `exec node`, so the
 * bank is npm's own child: npm passes a SIGTERM on, and a SIGKILLed npm changes the bank's parent. Run by
 * real npm, as an operator does.
 */
describe.each([
  ['npm run sandbox', 'SIGTERM', ['run', 'sandbox']],
  ['npm start -w packages/sandbox-bank', 'SIGTERM', ['start', '-w', 'packages/sandbox-bank']],
  ['npm run sandbox', 'SIGKILL', ['run', 'sandbox']],
] as const)('%s killed with %s', (_label, signal, npmArgs) => {
  it('leaves no process behind and frees the sandbox port within seconds', async () => {
    const port = await freePort();
    const npm = spawn('npm', [...npmArgs], {
      cwd: ROOT,
      env: {
        ...process.env,
        SANDBOX_PORT: String(port),
        SANDBOX_HOST: '127.0.0.1',
        DATA_DIR: path.join(dir, `sandbox-${port}`),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(npm);
    let output = '';
    npm.stdout!.on('data', (d) => (output += d));
    npm.stderr!.on('data', (d) => (output += d));
    await until(() => portOpen(port), 60_000, 'the sandbox bank to listen').catch((e) => {
      throw new Error(`${(e as Error).message}\n${output}`);
    });
    const nodes = descendants(npm.pid!);
    leftovers.push(...nodes);

    npm.kill(signal);
    await until(async () => !(await portOpen(port)), 5_000, `port ${port} to be freed`).catch((e) => {
      throw new Error(`${(e as Error).message}\nstill alive: ${nodes.filter(alive).join(',')}\n${output}`);
    });
    await until(() => nodes.every((p) => !alive(p)), 10_000, `processes ${nodes.join(',')} to exit`);
  }, 90_000);
});

import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * Fault tests break connections, so each one runs on a PostgreSQL database of its own (created here,
 * dropped after) and never touches the shared `test` database's backends.
 */
export async function createOwnDatabase(baseUrl: string) {
  const name = `slipcheck_fault_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    /** Ends every connection to this database only (the admin connection is on another database). */
    async terminateBackends(): Promise<number> {
      const r = await admin.query(
        'select pg_terminate_backend(pid) as t from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      return r.rows.filter((x) => x.t).length;
    },
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Whether a process with this pid still exists (signal 0 checks without sending anything). */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether something accepts connections on a loopback port. */
export const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * A TCP relay in front of the real PostgreSQL that the test can take down (listener closed, every
 * relayed connection cut: the database is unreachable, new connections are refused) and bring back
 * on the same port.
 */
export async function startRelay(target: { host: string; port: number }) {
  const port = await freePort();
  let server: net.Server | null = null;
  const sockets = new Set<net.Socket>();
  const up = async () => {
    if (server) return;
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
  };
  const down = async () => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await up();
  return { port, up, down };
}

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The real service (src/main.ts) as a child process; its log lines are kept for assertions. */
export async function startService(env: Record<string, string>) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      SANDBOX_AUTOSTART: 'false',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => {
    log += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`service exited at start: ${log}`);
    const ok = await fetch(`${url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (i > 1500) throw new Error(`service did not become ready: ${log}`);
    await sleep(100);
  }
  return {
    url,
    child,
    exited,
    log: () => log,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until fn() is true (or gives up after `tries`), returning whether it became true. */
export async function eventually(fn: () => Promise<boolean>, tries = 100, everyMs = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await fn().catch(() => false)) return true;
    await sleep(everyMs);
  }
  return false;
}

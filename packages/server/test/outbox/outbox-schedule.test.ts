import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { openDatabase } from '../../src/db/db.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { SCHEDULED_JOB, slotOf } from '../../src/outbox/outbox-schedule.js';
import { createOwnDatabase, sleep } from '../faults/fault-kit.js';
import { REUSE_BUILD, SERVICE_LOADER } from '../helpers/reuse-build.js';

const SERVER_DIR = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(SERVER_DIR, 'bin/slipcheck.js');
/** The test's "hour" (SCHEDULE_SLOT_MS): short, so that several slots pass while both workers run. */
const SLOT_MS = 2000;
/** Every scheduled task of the container (container.ts): each must run once per slot. */
const TASKS = [
  'audit.prune',
  'image-claims.prune',
  'shops.purge-erased',
  'results.anonymize',
  'shops.trial-alerts',
  'webhooks.prune-deliveries',
  'line.prune-events',
  'secrets.reencrypt',
  'outbox.prune-done',
  'mail.prune',
  'outbox.prune-failed',
  'sessions.prune',
  'accounts.prune-resets',
  'line.prune-link-codes',
  'line-login.prune',
  'reports.summary-due',
  'verification.payee-refusal-alerts',
].sort();

describe('slot ids', () => {
  it('name the slot at the precision of its length, the same on every node', () => {
    const t = new Date('2026-11-25T23:41:07.250Z');
    expect(slotOf(3_600_000, t).id).toBe('2026-11-25T23');
    expect(slotOf(60_000, t).id).toBe('2026-11-25T23:41');
    expect(slotOf(2000, t).id).toBe('2026-11-25T23:41:06');
    expect(slotOf(1500, t)).toEqual({ id: '2026-11-25T23:41:06.000', start: new Date('2026-11-25T23:41:06.000Z') });
    expect(slotOf(3_600_000, new Date('2026-11-25T23:59:59.999Z')).id).toBe('2026-11-25T23');
    expect(slotOf(3_600_000, new Date('2026-11-26T00:00:00.000Z')).id).toBe('2026-11-26T00');
  });
});

interface Worker {
  child: ChildProcess;
  out: () => string;
  started: Promise<void>;
  exited: Promise<number | null>;
}

/** Under `npm test` the workers run the build's CLI as bin/slipcheck.js runs it in production (reuse-build.ts). */
const WORKER_ARGS = REUSE_BUILD
  ? [...SERVICE_LOADER, '--input-type=module', '-e', "process.exitCode = await (await import('./dist/cli/cli.js')).runCli(['worker'])"]
  : [BIN, 'worker'];

/** `slipcheck worker` as its own process (the operator's command), logging at debug level as JSON lines. */
function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, WORKER_ARGS, {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'debug',
      SANDBOX_AUTOSTART: 'false',
      WORKER_MODE: 'off',
      WORKER_POLL_MS: '100',
      SCHEDULE_SLOT_MS: String(SLOT_MS),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const started = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (/worker .+ started/.test(err)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before starting: ${err.slice(-2000)}`)));
  });
  started.catch(() => undefined);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, out: () => out, started, exited };
}

type LogLine = { msg: string; task?: string; slot?: string; queued?: boolean };
const logLines = (w: Worker): LogLine[] =>
  w
    .out()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/**
 * Two worker processes on one database, with an "hour" of SLOT_MS: both look at every slot and try to
 * queue it, one insert wins (the outbox's unique dedupe key), and each task runs exactly once per slot.
 */
async function twoWorkersOnOneDatabase(expect: ExpectStatic, env: Record<string, string>, db: ReturnType<typeof openDatabase>['db']) {
  const workers = [startWorker(env), startWorker(env)];
  try {
    await Promise.all(workers.map((w) => w.started));
    const bothUp = Date.now();
    await sleep(SLOT_MS * 5);
    const stopAt = Date.now();
    for (const w of workers) w.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);

    // The slots that began after both workers were up and ended a slot before the stop (time to run).
    const first = slotOf(SLOT_MS, new Date(bothUp + SLOT_MS)).start.getTime();
    const slots: string[] = [];
    for (let t = first; t + 2 * SLOT_MS <= stopAt; t += SLOT_MS) slots.push(slotOf(SLOT_MS, new Date(t)).id);
    expect(slots.length).toBeGreaterThanOrEqual(3);

    const rows = await db.selectFrom('outbox').selectAll().where('kind', '=', SCHEDULED_JOB).execute();
    const logs = workers.map(logLines);
    for (const slot of slots) {
      // One job per task and slot, run by one claim and done.
      const ofSlot = rows.filter((r) => (JSON.parse(r.payload) as { slot: string }).slot === slot);
      expect(ofSlot.map((r) => (JSON.parse(r.payload) as { task: string }).task).sort(), slot).toEqual(TASKS);
      for (const r of ofSlot) expect(r, `${r.dedupe_key}`).toMatchObject({ status: 'done', attempts: 1, last_error: null });
      // Each task ran once in this slot, on one of the two processes.
      const ran = logs.flat().filter((l) => l.msg === 'scheduled task ran' && l.slot === slot);
      expect(ran.map((l) => l.task).sort(), slot).toEqual(TASKS);
      // One insert won per task and slot, across both processes.
      const queued = logs.flat().filter((l) => l.msg === 'scheduled slot queued' && l.slot === slot);
      expect(queued.map((l) => l.task).sort(), slot).toEqual(TASKS);
    }
    // Both processes did look at the slots and tried to queue them: without the shared key each task
    // would have run twice per slot. In every slot both tried, the loser was told so for every task.
    // (Not every slot needs both: a process a loaded full run starves past a whole slot skips it, and
    // the other one queues it alone, which the checks above already cover.)
    const tried = (w: LogLine[]) =>
      new Set(w.filter((l) => l.msg.startsWith('scheduled slot') && slots.includes(l.slot!)).map((l) => l.slot));
    const [tried0, tried1] = [tried(logs[0]), tried(logs[1])];
    const both = slots.filter((slot) => tried0.has(slot) && tried1.has(slot));
    expect(both.length, `slots tried by both: ${both.length} of ${slots.length}`).toBeGreaterThanOrEqual(1);
    for (const slot of both) {
      const lost = logs.flat().filter((l) => l.msg === 'scheduled slot already queued' && l.slot === slot);
      expect(lost.map((l) => l.task).sort(), slot).toEqual(TASKS);
    }
    // Nothing ran twice anywhere, in any slot.
    const runs = logs.flat().filter((l) => l.msg === 'scheduled task ran');
    expect(new Set(runs.map((l) => `${l.task}:${l.slot}`)).size).toBe(runs.length);
  } finally {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
}

// The two stores run at the same time (describe.concurrent): each test mostly sleeps through its slots while
// its idle workers poll, so running them one after the other only doubled the file's wall time.
describe.concurrent('scheduled tasks run once per slot across two worker processes', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });

  it.concurrent(
    'on a shared SQLite file',
    async ({ expect }) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-schedule-'));
      cleanup.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const handle = openDatabase({ dataDir });
      cleanup.push(() => handle.close());
      await migrateToLatest(handle.db); // before the workers, so they do not race to create the file's tables
      await twoWorkersOnOneDatabase(expect, { DATA_DIR: dataDir }, handle.db);
    },
    90_000,
  );

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'on a PostgreSQL database of the test’s own',
    async ({ expect }) => {
      const own = await createOwnDatabase(process.env.TEST_DATABASE_URL!);
      cleanup.push(() => own.drop());
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-schedule-'));
      cleanup.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const handle = openDatabase({ databaseUrl: own.url, dataDir });
      cleanup.push(() => handle.close());
      await migrateToLatest(handle.db);
      await twoWorkersOnOneDatabase(expect, { DATA_DIR: dataDir, DATABASE_URL: own.url }, handle.db);
    },
    90_000,
  );
});

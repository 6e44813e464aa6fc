import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { runCli } from '../../src/cli/cli.js';
import { AppError } from '../../src/errors.js';
import { registry } from '../../src/lib/metrics.js';
import { OWNER_ALERT_JOB } from '../../src/modules/mail/mail-owner-alerts.js';
import { enqueueOutbox } from '../../src/outbox/outbox-repo.js';
import { defineOutboxJob } from '../../src/outbox/outbox-registry.js';
import type { OutboxJob, OutboxKind } from '../../src/outbox/outbox-types.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { createHarness, DB_KINDS, type DbKind, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { outboxRow } from '../helpers/records.js';

/** A kind of this test only, with a payload schema like the modules' own. */
const PayloadJob = Type.Object({ orderId: Type.String({ minLength: 1 }), amountSatang: Type.Integer({ minimum: 0 }) });
defineOutboxJob('t.payload', PayloadJob);
declare module '../../src/outbox/outbox-types.js' {
  interface OutboxJobs {
    't.payload': { orderId: string; amountSatang: number };
  }
}

/** Each job's payload is checked against its kind's TypeBox schema when enqueued and when run (issue 25). */
for (const kind of DB_KINDS)
  describe.skipIf(pgMissing(kind))(`outbox payloads are validated (${kind})${skipNote(kind)}`, () => suite(kind));

/** The suite of one database kind (declared per kind above; hoisted). */
function suite(kind: DbKind) {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(kind);
  });
  afterAll(async () => {
    await h?.close();
  });

  const count = async () =>
    Number(
      (
        await h.c.db
          .selectFrom('outbox')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  // The type system already refuses these; the casts stand for a caller whose data is not what its types say.
  const enqueueUntyped = (job: { kind: string; payload: unknown }) =>
    h.c.db.transaction().execute((trx) => enqueueOutbox(trx, job as unknown as OutboxJob<OutboxKind>, new Date()));

  it('refuses a payload that does not match its schema at the caller, with the one error type, and writes nothing', async () => {
    const before = await count();
    const wrong = await enqueueUntyped({ kind: 't.payload', payload: { orderId: 'A1', amountSatang: 12.5 } }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(AppError);
    expect(wrong).toMatchObject({ code: 'INTERNAL_ERROR', statusCode: 500 });
    expect((wrong as Error).message).toMatch(/t\.payload refused: invalid payload: \/amountSatang must be integer/);
    // A module's kind: an alert type that does not exist.
    const alert = await enqueueUntyped({ kind: OWNER_ALERT_JOB, payload: { type: 'QUOTA_50', shopId: 'shop_x' } }).catch((e: unknown) => e);
    expect((alert as Error).message).toMatch(/owner\.alert refused: invalid payload: \/type/);
    // A kind nobody declared.
    const unknown = await enqueueUntyped({ kind: 't.nobody', payload: {} }).catch((e: unknown) => e);
    expect((unknown as Error).message).toMatch(/no payload schema is declared for kind t\.nobody/);
    expect(await count()).toBe(before);
    // The same call with a good payload goes through.
    await enqueueUntyped({ kind: 't.payload', payload: { orderId: 'A1', amountSatang: 1250 } });
    expect(await count()).toBe(before + 1);
    await h.c.db.deleteFrom('outbox').where('kind', '=', 't.payload').execute();
  });

  it('parks a stored payload that does not match after one attempt, with its reason, never retried; good jobs run', async () => {
    const now = new Date();
    const row = (payload: string) => outboxRow('t.payload', payload, now);
    // An older version's payload (amount as a decimal string), a hand-edited row that is not JSON, and a good one.
    const old = row(JSON.stringify({ orderId: 'B1', amount: '12.50' }));
    const edited = row('{"orderId": "B2", amountSatang: 100');
    const good = row(JSON.stringify({ orderId: 'B3', amountSatang: 100 }));
    await h.c.db.insertInto('outbox').values([old, edited, good]).execute();

    const ran: unknown[] = [];
    const finalFailures: string[] = [];
    const w = createOutboxWorker({
      db: h.c.db,
      caps: h.c.caps,
      clock: h.c.clock,
      maxAttempts: 5,
      retryDelayMs: () => 0,
      handlers: {
        't.payload': async (j) => {
          ran.push(j.payload);
        },
      },
      onFinalFailure: { 't.payload': async (j) => void finalFailures.push(j.id) },
    });
    expect(await w.runOnce()).toBe(3);
    expect(ran).toEqual([{ orderId: 'B3', amountSatang: 100 }]);
    const get = (id: string) => h.c.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(await get(good.id)).toMatchObject({ status: 'done', attempts: 1 });
    const parkedOld = await get(old.id);
    expect(parkedOld).toMatchObject({ status: 'failed', attempts: 1, locked_by: null });
    expect(parkedOld.last_error).toMatch(/^invalid payload: .*amountSatang/);
    expect(await get(edited.id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'invalid payload: not JSON' });
    // Parked, not retried: the next rounds claim nothing, and no handler ever saw them.
    expect(await w.runOnce()).toBe(0);
    expect(await w.runOnce()).toBe(0);
    expect(ran).toHaveLength(1);
    // The owner's final-failure hook gets typed payloads only: a parked payload never reaches it.
    expect(finalFailures).toEqual([]);
    expect(w.stats).toMatchObject({ done: 1, failed: 2, retried: 0 });

    // Where the operator looks: `slipcheck outbox failed` and the metrics.
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ['outbox', 'failed', '--kind', 't.payload'],
      { stdout: (s) => out.push(s), stderr: (s) => err.push(s) },
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        SANDBOX_AUTOSTART: 'false',
        WORKER_MODE: 'off',
        DATA_DIR: h.dataDir,
        ...(kind === 'postgres' ? { DATABASE_URL: h.config.DATABASE_URL } : {}),
      },
    );
    expect(err.join('\n')).toBe('');
    expect(code).toBe(0);
    const listed = JSON.parse(out.join('\n')) as Array<{ id: string; cause: string; reason: string; attempts: number }>;
    expect(listed.map((j) => j.id).sort()).toEqual([old.id, edited.id].sort());
    expect(listed.every((j) => j.cause === 'invalid_payload' && j.attempts === 1 && j.reason.startsWith('invalid payload: '))).toBe(true);
    expect(JSON.stringify(listed)).not.toContain('B1'); // reasons and ids, never the payload
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/^slipcheck_outbox_parked\{cause="invalid_payload"\} 2$/m);
    await h.c.db.deleteFrom('outbox').where('kind', '=', 't.payload').execute();
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { defineOutboxJob } from '../../src/outbox/outbox-registry.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { enqueueOutbox } from '../../src/outbox/outbox-repo.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';

/** Kinds of this test only (the outbox's kind map is filled by the modules that own kinds). */
declare module '../../src/outbox/outbox-types.js' {
  interface OutboxJobs {
    'drain.quick': Record<string, never>;
    'drain.slow': Record<string, never>;
  }
}

defineOutboxJob('drain.quick', Type.Object({}));
defineOutboxJob('drain.slow', Type.Object({}));

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`outbox worker drain on SIGTERM (${kind})${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness(kind);
    });
    afterAll(async () => {
      await h.close();
    });

    const row = (id: string) => h.c.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const enqueue = (k: 'drain.quick' | 'drain.slow') =>
      h.c.db.transaction().execute((trx) => enqueueOutbox(trx, { kind: k, payload: {} }, new Date()));

    it('stops claiming, finishes what ends in time, and hands back what it had to cut off at once (not after the lease)', async () => {
      let release!: () => void;
      const quickDone = new Promise<void>((r) => {
        release = r;
      });
      const w = createOutboxWorker({
        db: h.c.db,
        caps: h.c.caps,
        clock: h.c.clock,
        leaseMs: 600_000,
        handlers: {
          // Finishes shortly after the stop begins: must be completed, not cut.
          'drain.quick': async () => {
            await quickDone;
          },
          // Runs until told to stop (a slow webhook): must be aborted and released.
          'drain.slow': (_job, ctx) => new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve())),
        },
      });
      const quick = await enqueue('drain.quick');
      const slow = await enqueue('drain.slow');
      w.start();
      for (let i = 0; i < 100 && w.stats.claimed < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(w.stats.claimed).toBe(2);
      expect((await row(slow)).locked_by).not.toBeNull();

      // The slow job ends only when aborted, so it is cut at this limit whatever it is; the quick one
      // has this long to finish after the enqueue below (300 ms was too short for a loaded full run).
      const stopping = w.stop({ timeoutMs: 3_000 });
      const late = await enqueue('drain.quick'); // arrives during the stop: not claimed by this worker
      release();
      await stopping;

      expect(await row(quick)).toMatchObject({ status: 'done' });
      // Cut off: pending, no lease (another worker takes it now), its attempt still counted.
      expect(await row(slow)).toMatchObject({ status: 'pending', locked_by: null, locked_until: null, attempts: 1 });
      expect(await row(late)).toMatchObject({ status: 'pending', attempts: 0, locked_by: null });

      let ran = 0;
      const next = createOutboxWorker({
        db: h.c.db,
        caps: h.c.caps,
        clock: h.c.clock,
        handlers: {
          'drain.slow': async () => {
            ran++;
          },
          'drain.quick': async () => undefined,
        },
      });
      expect(await next.runOnce()).toBe(2);
      expect(ran).toBe(1);
      expect(await row(slow)).toMatchObject({ status: 'done', attempts: 2 });
    });
  });
}

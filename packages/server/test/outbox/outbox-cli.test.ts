import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { OWNER_ALERT_JOB } from '../../src/modules/mail/mail-owner-alerts.js';
import { runWorkerUntil } from '../../src/outbox/outbox-cli.js';
import { enqueueOutbox } from '../../src/outbox/outbox-repo.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { until } from '../webhooks/helpers/receiver.js';

/** `slipcheck worker`: the outbox worker as its own process (the service has no worker-only flag). */
describe('slipcheck worker', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(async () => {
    await h.close();
  });

  it('is an operator command of its own, listed in the usage; extra arguments are a usage error', async () => {
    const said: string[] = [];
    const out = { stdout: (s: string) => said.push(s), stderr: (s: string) => said.push(s) };
    expect(await runCli(['worker', '--now'], out, { NODE_ENV: 'test', DATA_DIR: h.dataDir })).toBe(2);
    expect(said.join('\n')).toMatch(/worker +\(run the outbox worker until SIGTERM/);
    said.length = 0;
    expect(await runCli(['help'], out, { NODE_ENV: 'test', DATA_DIR: h.dataDir })).toBe(0);
    expect(said.join('\n')).toMatch(/^ {2}worker +\(run the outbox worker/m);
  });

  it('runs every registered kind until told to stop, then stops gracefully', async () => {
    // An alert for a shop that does not exist: every owner.alert handler runs and has nothing to send.
    const id = await h.c.db
      .transaction()
      .execute((trx) => enqueueOutbox(trx, { kind: OWNER_ALERT_JOB, payload: { type: 'QUOTA_80', shopId: 'shop_gone' } }, new Date()));
    const log: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const running = runWorkerUntil(h.c, stopped, (s) => log.push(s));
    await until(
      async () => (await h.c.db.selectFrom('outbox').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'done',
    );
    stop();
    await running;
    expect(log[0]).toMatch(/^worker .+ started \(kinds: .*owner\.alert/);
    expect(log[0]).toMatch(/webhook\.deliver/);
    expect(log.at(-1)).toMatch(/^stopped \{"claimed":1,"done":1/);
    // Stopped: a new job stays pending.
    const later = await h.c.db
      .transaction()
      .execute((trx) => enqueueOutbox(trx, { kind: OWNER_ALERT_JOB, payload: { type: 'QUOTA_80', shopId: 'shop_gone' } }, new Date()));
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.c.db.selectFrom('outbox').select('status').where('id', '=', later).executeTakeFirstOrThrow()).status).toBe('pending');
  });
});

import { randomInt } from 'node:crypto';
import { EDITS } from '@slipcheck/sandbox-bank';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/db.js';
import {
  createFaultStepper,
  createLineLedger,
  createSampler,
  dashboardSession,
  operatorView,
  printFigures,
  requestFigures,
  warningsOf,
  type Invariant,
} from './soak-kit.js';
import { signup } from '../dashboard/dash-helpers.js';
import { createHarness, type Harness, skipReason } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { imageMessage, lineEvent, startFakeLinePlatform, type FakeChannel, type FakeLinePlatform } from '../line/fake-line-platform.js';
import { startReceiver } from '../webhooks/helpers/receiver.js';
import { createOwnDatabase, eventually, freePort, sleep, startService } from '../faults/fault-kit.js';

const BASE = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
/** `npm run soak` sets SOAK_SECONDS=600; the short version (CI) runs 20 s. */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 20);
const SECRET_KEY = 'soak-test-secret-key-0123456789abcdef';
/** No request may wait longer than this (checker deadline + claim takeover + slack). */
const BOUND_MS = 45_000;
/** LINE gives up on a webhook after a few seconds and redelivers; the sandbox platform waits 10 s. */
const LINE_TRIES = 20;
const AMOUNT = '?amount=1250.50';

type Service = Awaited<ReturnType<typeof startService>> & { metricsUrl: string };

// Two API nodes and a worker on PostgreSQL and Redis (through a relay the soak cuts), real HTTP, a
// steady mix of API verifies (fresh, replays, duplicates, mismatches, edited slips), API and dashboard
// reads and LINE image events (with LINE's redeliveries), while a chaos loop SIGKILLs and restarts a
// node or the worker, terminates the database's backends, cuts Redis and stalls the sandbox bank.
// Afterwards the invariants are checked and the figures printed (docs/operations.md, "Chaos soak").
describe.skipIf(!BASE || !REDIS)(`chaos soak (${SECONDS} s)${skipReason('TEST_DATABASE_URL')}${skipReason('TEST_REDIS_URL')}`, () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let relay: Awaited<ReturnType<typeof startTcpRelay>>;
  let line: FakeLinePlatform;
  let seed: Harness;
  let seedHandle: ReturnType<typeof openDatabase>;
  let shopId: string;
  let apiAuth: { authorization: string };
  let dashAuth: ReturnType<typeof dashboardSession>;
  let channel: FakeChannel;
  let webhookPath: string;
  const nodes: Service[] = [];
  let worker: Service;
  let env: Record<string, string>;
  /** Every process the soak started, killed ones too: their logs are what an operator would have read. */
  const started: Service[] = [];
  const startNode = async (role: 'api' | 'worker'): Promise<Service> => {
    const metricsPort = await freePort();
    const s = await startService({
      ...env,
      DATA_DIR: seed.dataDir,
      METRICS_PORT: String(metricsPort),
      ...(role === 'api' ? { WORKER_MODE: 'off' } : { WORKER_MODE: 'inline', WORKER_POLL_MS: '100' }),
    });
    const node = Object.assign(s, { metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
    started.push(node);
    return node;
  };

  beforeAll(async () => {
    own = await createOwnDatabase(BASE!);
    bank = await startSandbox();
    rx = await startReceiver();
    relay = await startTcpRelay(REDIS!);
    line = await startFakeLinePlatform();
    env = {
      DATABASE_URL: own.url,
      REDIS_URL: relay.url,
      SECRET_KEY,
      CHECKER_URL: bank.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SHUTDOWN_GRACE_MS: '0',
      CLAIM_LEASE_MS: '3000',
      RATE_LIMIT_PER_KEY: '100000',
      RATE_LIMIT_VERIFY_PER_SHOP: '100000',
      RATE_LIMIT_DASHBOARD: '100000',
      RATE_LIMIT_NODES: '2',
      DECODE_THREADS: '1',
      // The production default, said out loud: the test harness turns edited-slip reading off.
      SLIP_EDIT_MODE: 'reject',
      LINE_API_BASE_URL: line.url,
      LINE_DATA_API_BASE_URL: line.url,
    };
    seedHandle = openDatabase({ databaseUrl: own.url, dataDir: '/tmp', onConnectionError: () => undefined });
    // The seeding container checks no slip: it need not load the amount reader.
    seed = await createHarness('postgres', { ...env, SLIP_EDIT_MODE: 'off' }, { dbHandle: seedHandle });
    // An owner who signs up, on the Business plan (its pool holds a 10-minute soak), with the payee the
    // sandbox bank's transfers pay, a live API key, a webhook endpoint and a linked LINE official account.
    const owner = await signup(seed, { shopName: 'ร้านกาแฟ Soak', planCode: 'BUSINESS' });
    shopId = owner.shopId;
    await seed.c.shops.setPlan(shopId, 'BUSINESS', 'test');
    await seed.c.payees.add(shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
    const key = await seed.c.apiKeys.create(shopId, { environment: 'live', scopes: 'verify,read' }, 'test');
    apiAuth = { authorization: `Bearer ${key.key}` };
    await seed.c.webhooks.addEndpoint(shopId, { url: rx.url('/hook') });
    channel = line.addChannel();
    webhookPath = (
      await seed.c.line.channels.link(
        shopId,
        { channelId: channel.channelId, channelSecret: channel.secret, accessToken: channel.token },
        'test',
      )
    ).webhookPath;
    const [a, b, w] = await Promise.all([startNode('api'), startNode('api'), startNode('worker')]);
    nodes.push(a!, b!);
    worker = w!;
    dashAuth = dashboardSession(owner.email, owner.password);
    await dashAuth(nodes[0]!.url);
    // Warm-up, outside the figures: each process loads its decoder and amount reader on its first slip
    // (seconds on a loaded machine), which the short run would otherwise mostly measure.
    const warm = async (url: string) => {
      const t = await bank.register();
      const r = await fetch(`${url}/api/v1/verify${AMOUNT}`, {
        method: 'POST',
        headers: { ...apiAuth, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(await bank.slip(t.transRef)),
      });
      if (r.status !== 200) throw new Error(`warm-up verify answered ${r.status}`);
    };
    const t = await bank.register();
    line.setContent('soak-warm-up', await bank.slip(t.transRef), 'image/png');
    const e = lineEvent('message', { type: 'user', userId: line.lineUserId() }, imageMessage('soak-warm-up'));
    await Promise.all([
      ...nodes.map((n) => warm(n.url)),
      line.deliver(`${a!.url}${webhookPath}`, channel.secret, { destination: channel.botUserId, events: [e] }),
    ]);
    await line.waitFor(() => line.replies.length > 0, 60_000);
  }, 240_000);
  afterAll(async () => {
    relay?.restore();
    for (const n of nodes) await n.stop().catch(() => undefined);
    await worker?.stop().catch(() => undefined);
    await seed?.close();
    await seedHandle?.close();
    await rx?.close();
    await bank?.close();
    await line?.close();
    await relay?.close();
    await own?.drop();
  });

  it('holds every invariant through the chaos loop, and prints the figures', { timeout: (SECONDS + 360) * 1000 }, async () => {
    const sampler = createSampler(BOUND_MS);
    const ledger = createLineLedger(line);
    const faults: Record<string, number> = {};
    const sent: Buffer[] = [];
    const refs: string[] = [];
    /** Transfers whose slip was rendered edited (printed amount differs from the transfer), and genuine ones. */
    const editedRefs = new Set<string>();
    const genuineRefs = new Set<string>();
    const stopAt = Date.now() + SECONDS * 1000;

    // A balancer sends to live nodes: a node being restarted is out of rotation (a request already on
    // a node that is killed shows as status 0, a cut connection).
    const pick = async () => {
      for (;;) {
        const live = nodes.filter((n) => n.alive());
        if (live.length) return live[randomInt(live.length)]!;
        await sleep(100);
      }
    };
    const freshSlip = async (edited = false) => {
      const t = await bank.register();
      const img = await bank.slip(t.transRef, 'clean', 'png', edited ? { edit: EDITS[randomInt(EDITS.length)]! } : {});
      (edited ? editedRefs : genuineRefs).add(t.transRef);
      if (!edited) {
        sent.push(img);
        refs.push(t.transRef);
      }
      return img;
    };
    const verify = async (kind: string, image: Buffer, query = AMOUNT) => {
      const n = await pick();
      await sampler.timed(kind, async (signal) => {
        const r = await fetch(`${n.url}/api/v1/verify${query}`, {
          method: 'POST',
          headers: { ...apiAuth, 'content-type': 'application/octet-stream' },
          body: new Uint8Array(image),
          signal,
        });
        await r.arrayBuffer();
        return { status: r.status };
      });
    };
    const read = async (kind: string, path: string, auth: () => Promise<{ authorization: string }>) => {
      const n = await pick();
      const headers = await auth().catch(() => null);
      if (!headers) return;
      await sampler.timed(kind, async (signal) => {
        const r = await fetch(`${n.url}${path}`, { headers, signal });
        await r.arrayBuffer();
        return { status: r.status };
      });
    };
    const dash = () => pick().then((n) => dashAuth(n.url));
    const api = async () => apiAuth;

    const apiClient = async () => {
      while (Date.now() < stopAt) {
        const roll = randomInt(100);
        if (roll < 34 || !sent.length) await verify('verify fresh', await freshSlip());
        else if (roll < 43) await verify('verify replay', sent[randomInt(sent.length)]!);
        else if (roll < 51) await verify('verify duplicate', await bank.slip(refs[randomInt(refs.length)]!, 'w540'));
        else if (roll < 58) {
          const t = await bank.register();
          await verify('verify mismatch', await bank.slip(t.transRef), '?amount=99.00');
        } else if (roll < 65)
          await verify('verify edited', await freshSlip(true)); // about 1 verify in 10: OCR costs CPU
        else if (roll < 70) await read('api transactions', '/api/v1/transactions?limit=20', api);
        else if (roll < 75) await read('api quota', '/api/v1/quota', api);
        else if (roll < 84) await read('dash overview', '/api/dashboard/overview', dash);
        else if (roll < 93) await read('dash transactions', '/api/dashboard/transactions?limit=20', dash);
        else await read('dash me', '/api/dashboard/me', dash);
      }
    };

    // LINE's side: signed image events, each from a LINE user of its own, to a live node. A delivery
    // that is not answered 200 (node killed, 503) is delivered again, marked isRedelivery, as LINE
    // does; one accepted delivery in ten is redelivered anyway (LINE missed the 200).
    let messageSeq = 0;
    const deliver = async (e: ReturnType<typeof lineEvent>, redelivery: boolean, s: ReturnType<typeof ledger.sent>) => {
      const n = await pick();
      const body = { destination: channel.botUserId, events: [redelivery ? { ...e, deliveryContext: { isRedelivery: true } } : e] };
      const r = await sampler.timed(redelivery ? 'line redelivery' : 'line event', () =>
        line.deliver(`${n.url}${webhookPath}`, channel.secret, body),
      );
      const received = 'body' in r ? (r.body as { data?: { received?: number } } | null)?.data?.received : undefined;
      ledger.delivery(s, { redelivery, status: r.status, received });
      return r.status === 200;
    };
    const lineClient = async () => {
      while (Date.now() < stopAt) {
        const roll = randomInt(100);
        const img = roll < 15 && sent.length ? sent[randomInt(sent.length)]! : await freshSlip(roll >= 90);
        const id = `soak-${++messageSeq}`;
        line.setContent(id, img, 'image/png');
        const e = lineEvent('message', { type: 'user', userId: line.lineUserId() }, imageMessage(id));
        const s = ledger.sent(e);
        let ok = await deliver(e, false, s);
        for (let i = 1; !ok && i < LINE_TRIES; i++) {
          await sleep(500 * Math.min(i, 4));
          ok = await deliver(e, true, s);
        }
        if (ok && randomInt(10) === 0) await deliver(e, true, s);
        await sleep(1000 + randomInt(1000)); // open loop, as LINE delivers: about one slip every 1.5 s
      }
    };

    /** What a live node's /health and Redis gauges said during each kind of fault, counted. */
    const views: Record<string, Record<string, number>> = {};
    const look = async (fault: string) => {
      const n = nodes.find((x) => x.alive());
      if (!n) return;
      const v = await operatorView(n);
      (views[fault] ??= {})[v] = (views[fault]?.[v] ?? 0) + 1;
    };
    const chaos = createFaultStepper({
      restart: async (which: 'node' | 'worker') => {
        if (which === 'worker') {
          worker.child.kill('SIGKILL');
          await worker.exited;
          await look('kill -9 the worker');
          worker = await startNode('worker');
          return;
        }
        const i = randomInt(nodes.length);
        const victim = nodes[i]!;
        victim.child.kill('SIGKILL');
        await victim.exited;
        await look('kill -9 an API node');
        nodes[i] = await startNode('api');
      },
      terminateBackends: async () => {
        await own.terminateBackends();
        await look('terminate database backends');
      },
      cutRedis: async (ms: number) => {
        relay.cut();
        await sleep(ms / 2);
        await look('cut Redis 3 s');
        await sleep(ms / 2);
        relay.restore();
      },
      stallBank: async (ms: number) => {
        const faultsAt = (body: unknown) =>
          fetch(`${bank.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        await faultsAt({ latencyMs: ms });
        await sleep(ms / 2);
        await look('stall the bank 4 s');
        await sleep(ms / 2);
        await faultsAt({ reset: true });
      },
    });
    const chaosLoop = async () => {
      while (Date.now() < stopAt - 2000) {
        await sleep(500 + randomInt(2000));
        const name = await chaos.next(sampler.faultBegins, sampler.faultEnds);
        faults[name] = (faults[name] ?? 0) + 1;
      }
    };

    await Promise.all([apiClient(), apiClient(), apiClient(), lineClient(), chaosLoop()]);

    // Settle: every LINE event answered (the worker may be catching up after a kill), every record's
    // webhook delivered or still retrying, orphaned claims swept (two leases).
    await eventually(async () => ledger.allAnswered(), 600, 200);
    await sleep(8000);
    const db = seed.c.db;
    const records = await db
      .selectFrom('transactions')
      .select([
        'id',
        'status',
        'charged',
        'environment',
        'source',
        'trans_ref',
        'amount_satang',
        'printed_amount_satang',
        'edited',
        'error_code',
      ])
      .where('shop_id', '=', shopId)
      .execute();
    await eventually(
      async () => {
        const d = await db.selectFrom('webhook_deliveries').select('transaction_id').where('shop_id', '=', shopId).execute();
        return d.length >= records.length;
      },
      300,
      200,
    );

    const invariants: Invariant[] = [];
    const hold = (name: string, ok: boolean, detail: string) => invariants.push({ name, ok, detail });

    // Money: `used` equals the charged records (API and LINE draw on one pool).
    const period = seed.c.quota.period().periodMonth;
    const usage = await db
      .selectFrom('quota_usage')
      .select('used')
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .executeTakeFirst();
    const charged = records.filter((r) => r.charged === 1 && r.environment === 'live').length;
    hold('used equals charged records', (usage?.used ?? 0) === charged, `used ${usage?.used ?? 0}, charged records ${charged}`);

    // Webhooks: every record has exactly one event of its kind (SUCCESS slip.verified, DUPLICATE
    // slip.duplicate, anything else slip.failed), delivered or still retrying.
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['transaction_id', 'status', 'event_kind'])
      .where('shop_id', '=', shopId)
      .where('is_test', '=', 0)
      .execute();
    const perRecord = new Map<string, string[]>();
    for (const d of deliveries)
      if (d.transaction_id) perRecord.set(d.transaction_id, [...(perRecord.get(d.transaction_id) ?? []), d.event_kind]);
    const kindOf = (s: string) => (s === 'SUCCESS' ? 'slip.verified' : s === 'DUPLICATE' ? 'slip.duplicate' : 'slip.failed');
    const wrongEvents = records.filter((r) => perRecord.get(r.id)?.length !== 1 || perRecord.get(r.id)![0] !== kindOf(r.status)).length;
    hold(
      'one webhook event per record',
      wrongEvents === 0,
      `${records.length} records, ${wrongEvents} without exactly one event of their kind`,
    );
    const badDeliveries = deliveries.filter((d) => !['delivered', 'pending', 'retrying'].includes(d.status)).length;
    hold('no webhook delivery failed or lost', badDeliveries === 0, `${deliveries.length} deliveries, ${badDeliveries} failed`);

    // Edited slips (API and LINE): a printed amount that was read and differs from the bank's makes the
    // record FRAUD EDITED_SLIP; one that could not be read (or a check the bank never answered) concludes
    // nothing, so never "SUCCESS but edited". No genuine slip is called edited.
    const editedRecords = records.filter((r) => r.trans_ref && editedRefs.has(r.trans_ref));
    const readDiffers = (r: (typeof records)[number]) => r.printed_amount_satang != null && r.printed_amount_satang !== r.amount_satang;
    const misjudged = editedRecords.filter(
      (r) => (readDiffers(r) && r.status !== 'FRAUD') || (r.status === 'SUCCESS' && r.edited === 1),
    ).length;
    const editedFraud = editedRecords.filter((r) => r.status === 'FRAUD' && r.error_code === 'EDITED_SLIP').length;
    const editedUnread = editedRecords.filter((r) => r.printed_amount_satang == null).length;
    const falseEdited = records.filter(
      (r) => r.trans_ref && genuineRefs.has(r.trans_ref) && (r.edited === 1 || r.error_code === 'EDITED_SLIP'),
    ).length;
    hold(
      'edited slips read are FRAUD EDITED_SLIP',
      misjudged === 0 && (editedRecords.length < 5 || editedFraud > 0),
      `${editedRecords.length} records of edited slips: ${editedFraud} FRAUD EDITED_SLIP, ${editedUnread} amount not read (or bank unanswered), ${misjudged} misjudged`,
    );
    hold('no genuine slip called edited', falseEdited === 0, `${falseEdited} genuine slips marked edited`);

    // LINE: every event the service took got exactly one reply or push, across kills and redeliveries.
    const lineFigures = ledger.summary();
    hold(
      'every LINE event got exactly one reply or push',
      lineFigures.events > 0 && lineFigures.neverAccepted === 0 && lineFigures.unanswered === 0 && lineFigures.answeredMoreThanOnce === 0,
      `${lineFigures.accepted}/${lineFigures.events} accepted, ${lineFigures.answeredByReply} by reply, ${lineFigures.answeredByPush} by push, ` +
        `${lineFigures.unanswered} unanswered, ${lineFigures.answeredMoreThanOnce} answered twice or more`,
    );
    hold('LINE took no message it would refuse', lineFigures.refusedByLine === 0, `${lineFigures.refusedByLine} refused bodies`);

    // HTTP: no 5xx but the documented 503s; nothing waited past the bound (a LINE delivery: 10 s).
    const samples = sampler.samples;
    const bad5xx = samples.filter((s) => s.status >= 500 && s.status !== 503);
    const pastBound = samples.filter((s) => s.status === -1 || s.ms > BOUND_MS);
    hold(
      'no 5xx but 503',
      bad5xx.length === 0,
      `${bad5xx.length} (${[...new Set(bad5xx.map((s) => `${s.kind} ${s.status}`))].join(', ') || 'none'})`,
    );
    hold(
      'no request past its bound',
      pastBound.length === 0,
      `${pastBound.length} (${[...new Set(pastBound.map((s) => s.kind))].join(', ') || 'none'})`,
    );
    const faultCount = Object.values(faults).reduce((a, b) => a + b, 0);
    hold('faults were injected', faultCount > 0, `${faultCount}`);

    // Outbox jobs not done at the end (a LINE event whose job failed for good has no answer): kind, status, last error.
    const unfinished: Record<string, number> = {};
    for (const j of await db
      .selectFrom('outbox')
      .select(['kind', 'status', 'attempts', 'last_error'])
      .where('status', '!=', 'done')
      .execute()) {
      const k = `${j.kind} ${j.status} attempts ${j.attempts}: ${(j.last_error ?? '').slice(0, 80)}`;
      unfinished[k] = (unfinished[k] ?? 0) + 1;
    }
    const bySource: Record<string, number> = {};
    for (const r of records) bySource[`${r.source} ${r.status}`] = (bySource[`${r.source} ${r.status}`] ?? 0) + 1;
    printFigures(`${SECONDS} s, two API nodes and a worker on PostgreSQL and Redis (relay)`, requestFigures(samples), faults, invariants, {
      records: records.length,
      recordsBySourceAndStatus: bySource,
      line: lineFigures,
      outboxJobsNotDone: unfinished,
      operatorViewDuringFaults: views,
      warnAndErrorLogLines: warningsOf(started.map((n) => n.log())),
    });

    expect(invariants.filter((i) => !i.ok)).toEqual([]);
  });
});

import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type DbKind, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { createDashHarness, signup, type Owner } from '../dashboard/dash-helpers.js';
import { startFakeLinePlatform, type FakeLinePlatform } from '../line/fake-line-platform.js';
import { newId } from '../../src/lib/ids.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { summaryText } from '../../src/modules/reports/reports-summary.js';
import { bkk, insertTx } from './reports-helpers.js';
import { REUSE_BUILD, SERVICE_LOADER } from '../helpers/reuse-build.js';

const SERVER_DIR = path.resolve(import.meta.dirname, '../..');
const NOW = bkk('2026-11-11T21:05:00');

/** Runs one worker child process (summary-worker-child.mjs) against the harness's database. */
function runChild(h: Harness, workerId: string, goAt: number): Promise<{ queued: number; ran: number }> {
  const schema = h.kind === 'postgres' ? (/search_path=([a-z0-9_]+)/.exec(decodeURIComponent(h.config.DATABASE_URL))?.[1] ?? '') : '';
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    WORKER_MODE: 'off',
    SANDBOX_AUTOSTART: 'false',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    DATA_DIR: h.dataDir,
    DATABASE_URL: h.config.DATABASE_URL ?? '',
    PUBLIC_URL: h.config.PUBLIC_URL,
    LINE_API_BASE_URL: h.config.LINE_API_BASE_URL,
    LINE_DATA_API_BASE_URL: h.config.LINE_DATA_API_BASE_URL,
    MIGRATION_SCHEMA: schema,
    SUMMARY_NOW: NOW,
    GO_AT: String(goAt),
    WORKER_ID: workerId,
    REDIS_URL: '',
    SERVICE_ROOT: REUSE_BUILD ? 'dist' : 'src',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SERVICE_LOADER, 'test/reports/summary-worker-child.mjs'], {
      cwd: SERVER_DIR,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`worker ${workerId} exited ${code}: ${err.slice(-2000)}`));
        return;
      }
      resolve(JSON.parse(out.trim().split('\n').pop()!));
    });
  });
}

for (const kind of DB_KINDS) describe.skipIf(pgMissing(kind))(`daily summary (${kind})${skipNote(kind)}`, () => suite(kind));

/** The suite of one database kind (declared per kind above; hoisted). */
function suite(kind: DbKind) {
  let h: Harness;
  let fake: FakeLinePlatform;
  const shops: Record<string, Owner> = {};
  const lineUser: Record<string, string> = {};
  let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];

  beforeAll(async () => {
    fake = await startFakeLinePlatform();
    ({ h, clock } = await createDashHarness(kind, { LINE_API_BASE_URL: fake.url, LINE_DATA_API_BASE_URL: fake.url }));
    clock.set(NOW);
    for (const name of ['busy', 'quiet', 'quietAsked', 'late']) {
      const o = await signup(h, { shopName: `ร้าน ${name}` });
      shops[name] = o;
      const ch = fake.addChannel();
      const view = await h.c.line.channels.link(
        o.shopId,
        { channelId: String(1_600_000_000 + Math.floor(Math.random() * 99_999_999)), channelSecret: ch.secret, accessToken: ch.token },
        'test',
      );
      lineUser[name] = `U${newId('x')
        .replace(/[^a-z0-9]/gi, '')
        .padEnd(32, '0')
        .slice(0, 32)}`;
      await h.c.db
        .insertInto('line_owners')
        .values({ id: newId('lown'), shop_id: o.shopId, line_channel_id: view.id, line_user_id: lineUser[name], created_at: NOW })
        .execute();
    }
    await h.c.shops.update(shops.quietAsked.shopId, { language: 'en', settings: { dailySummary: { sendEmpty: true } } }, 'test');
    await h.c.shops.update(shops.late.shopId, { settings: { dailySummary: { time: '22:00' } } }, 'test');
    await insertTx(h, shops.busy.shopId, [
      { createdAt: bkk('2026-11-11T00:01:00'), amountSatang: 1_000_00 },
      { createdAt: bkk('2026-11-11T12:00:00'), amountSatang: 234_50, source: 'LINE' },
      { createdAt: bkk('2026-11-10T23:59:00'), amountSatang: 55_55 }, // yesterday: not in today's summary
      { createdAt: bkk('2026-11-11T13:00:00'), amountSatang: 300_00, status: 'DUPLICATE' },
      { createdAt: bkk('2026-11-11T13:01:00'), amountSatang: 20_00, status: 'AMOUNT_MISMATCH' },
    ]);
    await insertTx(h, shops.late.shopId, [{ createdAt: bkk('2026-11-11T12:00:00'), amountSatang: 1_00 }]);
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  it("two worker processes on one database send each shop's summary exactly once", async () => {
    // Both children are up (process start, migrations checked) before either starts.
    const goAt = Date.now() + (REUSE_BUILD ? 2500 : 4000);
    const results = await Promise.all([runChild(h, 'proc-a', goAt), runChild(h, 'proc-b', goAt)]);
    expect(results.reduce((s, r) => s + r.queued, 0)).toBe(3);
    expect(results.reduce((s, r) => s + r.ran, 0)).toBe(3);

    const rows = await h.c.db.selectFrom('daily_summaries').selectAll().execute();
    const byShop = Object.fromEntries(rows.map((r) => [r.shop_id, r]));
    expect(rows).toHaveLength(3);
    expect(byShop[shops.busy.shopId]).toMatchObject({ day: '2026-11-11', status: 'sent', sent_line: 1, sent_email: 1 });
    expect(byShop[shops.quiet.shopId]).toMatchObject({ status: 'skipped', sent_line: 0, sent_email: 0 });
    expect(byShop[shops.quietAsked.shopId]).toMatchObject({ status: 'sent', sent_line: 1, sent_email: 1 });
    expect(byShop[shops.late.shopId]).toBeUndefined(); // its time (22:00) has not come

    const jobs = await h.c.db.selectFrom('outbox').select(['shop_id', 'status']).where('kind', '=', 'report.daily_summary').execute();
    expect(jobs).toHaveLength(3);
    expect(jobs.every((j) => j.status === 'done')).toBe(true);

    // Every push the fake LINE platform saw (a second copy would be here, or refused by its retry key).
    const busyPushes = fake.pushes.filter((p) => p.body.to === lineUser.busy);
    expect(busyPushes).toHaveLength(1);
    expect(fake.pushes).toHaveLength(2);
    const text = busyPushes[0].body.messages[0].text as string;
    expect(text).toContain('สรุปยอดประจำวันของ ร้าน busy วันที่ 11 พ.ย. 2569');
    // The amount mismatch reached the shop: received, and "needs a look", never a loss (issue 21).
    expect(text).toContain('รับเงินเข้าบัญชี 1,254.50 บาท จาก 3 สลิป (ตรวจทั้งหมด 4 ครั้ง)');
    expect(text).toContain('ถูกต้อง 1,234.50 บาท จาก 2 สลิป');
    expect(text).toContain('ควรตรวจดู: โอนขาด 1 โอนเกิน 0 สลิปเก่า 0');
    expect(text).toContain('กันไว้ได้: สลิปซ้ำ 1 สลิปปลอม 0 บัญชีผู้รับไม่ตรง 0 (รวม 300.00 บาท)');
    // These shops are on their trial: what is left is the trial's slips, never "this month".
    expect(text).toMatch(/สิทธิ์ตรวจสลิปของช่วงทดลองใช้คงเหลือ \d+ จาก 50 ครั้ง/);
    expect(text).toContain(`${h.config.PUBLIC_URL}/transactions?from=2026-11-11&to=2026-11-11`);
    expect(fake.pushes.find((p) => p.body.to === lineUser.quietAsked)!.body.messages[0].text).toContain('Received: 0.00 THB from 0 slips');

    const mails = await h.c.db
      .selectFrom('mail_messages')
      .select(['to_addr', 'subject', 'shop_id'])
      .where('template', '=', 'daily-summary')
      .execute();
    expect(mails.map((m) => m.to_addr).sort()).toEqual([shops.busy.email, shops.quietAsked.email].sort());
    expect(mails.find((m) => m.shop_id === shops.busy.shopId)!.subject).toBe('สรุปยอดประจำวัน 11 พ.ย. 2569: รับเงินเข้าบัญชี 1,254.50 บาท');

    // A third worker (this process) later the same day finds nothing to do.
    expect(await h.c.reports.summary.scheduleDue()).toBe(0);
    const third = createOutboxWorker({
      db: h.c.db,
      caps: h.c.caps,
      clock: h.c.clock,
      handlers: { 'report.daily_summary': h.c.outboxHandlers['report.daily_summary'] },
    });
    expect(await third.runOnce()).toBe(0);
    expect(fake.pushes).toHaveLength(2);
  }, 480_000);

  it("LINE's monthly message limit does not hold back the summary: the e-mail goes, the limit is marked once, the job ends", async () => {
    const o = await signup(h, { shopName: 'ร้าน limit' });
    // LINE refuses every push of this official account: its monthly message allowance is used up.
    const ch = fake.addChannel({ monthlyLimit: 0 });
    const view = await h.c.line.channels.link(
      o.shopId,
      { channelId: String(1_600_000_000 + Math.floor(Math.random() * 99_999_999)), channelSecret: ch.secret, accessToken: ch.token },
      'test',
    );
    await h.c.db
      .insertInto('line_owners')
      .values({ id: newId('lown'), shop_id: o.shopId, line_channel_id: view.id, line_user_id: 'U'.padEnd(33, 'f'), created_at: NOW })
      .execute();
    await insertTx(h, o.shopId, [{ createdAt: bkk('2026-11-11T12:00:00'), amountSatang: 50_00 }]);
    await h.c.reports.summary.scheduleDue();
    const worker = createOutboxWorker({
      db: h.c.db,
      caps: h.c.caps,
      clock: h.c.clock,
      handlers: { 'report.daily_summary': h.c.outboxHandlers['report.daily_summary'] },
    });
    for (let i = 0; i < 5 && (await worker.runOnce()); i++);

    const row = await h.c.db.selectFrom('daily_summaries').selectAll().where('shop_id', '=', o.shopId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'sent', sent_line: 0, sent_email: 1 });
    const mails = await h.c.db
      .selectFrom('mail_messages')
      .select('to_addr')
      .where('template', '=', 'daily-summary')
      .where('shop_id', '=', o.shopId)
      .execute();
    expect(mails.map((m) => m.to_addr)).toEqual([o.email]);
    const job = await h.c.db
      .selectFrom('outbox')
      .select('status')
      .where('kind', '=', 'report.daily_summary')
      .where('shop_id', '=', o.shopId)
      .executeTakeFirstOrThrow();
    expect(job.status).toBe('done');
    // Marked as for chat answers: the dashboard's LINE page shows it and the owner is e-mailed once.
    const usage = (await h.c.line.channels.pushUsage(o.shopId, [view.id]))[0]!;
    expect(usage.monthlyLimitReachedAt).toEqual(expect.any(String));
  });

  it("a LINE push that fails (a revoked token, LINE down) does not hold back the owner's e-mail; the retry sends only the push", async () => {
    const o = await signup(h, { shopName: 'ร้าน token' });
    const ch = fake.addChannel();
    const view = await h.c.line.channels.link(
      o.shopId,
      { channelId: String(1_600_000_000 + Math.floor(Math.random() * 99_999_999)), channelSecret: ch.secret, accessToken: ch.token },
      'test',
    );
    const to = 'U'.padEnd(33, 'e');
    await h.c.db
      .insertInto('line_owners')
      .values({ id: newId('lown'), shop_id: o.shopId, line_channel_id: view.id, line_user_id: to, created_at: NOW })
      .execute();
    await insertTx(h, o.shopId, [{ createdAt: bkk('2026-11-11T12:00:00'), amountSatang: 70_00 }]);
    const queued = await h.c.reports.summary.scheduleDue();
    // LINE refuses the token (reissued in the LINE console, not yet in the dashboard): every push this run.
    for (let i = 0; i < queued; i++)
      fake.fail('push', {
        status: 401,
        body: { message: 'Authentication failed. Confirm that the access token in the authorization header is valid.' },
      });
    const worker = createOutboxWorker({
      db: h.c.db,
      caps: h.c.caps,
      clock: h.c.clock,
      handlers: { 'report.daily_summary': h.c.outboxHandlers['report.daily_summary'] },
    });
    const mails = () =>
      h.c.db
        .selectFrom('mail_messages')
        .select('to_addr')
        .where('template', '=', 'daily-summary')
        .where('shop_id', '=', o.shopId)
        .execute();
    await worker.runOnce();
    expect((await mails()).map((m) => m.to_addr)).toEqual([o.email]);
    expect(fake.pushes.filter((p) => p.body.to === to)).toHaveLength(0);

    // The job is retried (LINE may answer again): the push goes, the e-mail is not sent twice.
    clock.advance(3_600_000);
    for (let i = 0; i < 5 && (await worker.runOnce()); i++);
    expect(fake.pushes.filter((p) => p.body.to === to)).toHaveLength(1);
    expect(await mails()).toHaveLength(1);
    const row = await h.c.db.selectFrom('daily_summaries').selectAll().where('shop_id', '=', o.shopId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'sent', sent_line: 1, sent_email: 1 });
    clock.set(NOW);
  });

  it('settings: owners choose the time and channels; bad values are refused in the envelope', async () => {
    const o = await signup(h);
    const get = await h.app.inject({ method: 'GET', url: '/api/dashboard/reports/summary-settings', headers: o.auth });
    expect(get.json().data).toEqual({ enabled: true, time: '21:00', line: true, email: true, sendEmpty: false });
    const put = await h.app.inject({
      method: 'PUT',
      url: '/api/dashboard/reports/summary-settings',
      headers: o.auth,
      payload: { time: '18:30', email: false },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toEqual({ enabled: true, time: '18:30', line: true, email: false, sendEmpty: false });
    for (const payload of [{ time: '24:00' }, { time: '9:00' }, { email: 'yes' }, { other: true }]) {
      const bad = await h.app.inject({ method: 'PUT', url: '/api/dashboard/reports/summary-settings', headers: o.auth, payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
    expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/reports/summary-settings', headers: o.auth })).json().data.time).toBe(
      '18:30',
    );
  });
}

describe('summary text', () => {
  it('Thai and English from integer satang', () => {
    const f = {
      shopName: 'ร้าน',
      day: '2026-11-11',
      receivedSatang: 123_456_789,
      receivedCount: 3,
      verifiedSatang: 123_456_789,
      verifiedCount: 3,
      results: 5,
      under: 1,
      over: 0,
      stale: 0,
      edited: 2,
      duplicates: 1,
      forged: 0,
      elsewhere: 0,
      stoppedSatang: 1,
      quotaLeft: 9,
      link: 'https://x/t',
    };
    expect(summaryText(f, 'th').text).toContain('รับเงินเข้าบัญชี 1,234,567.89 บาท');
    // Thai readers read the day in the Buddhist era, as the dashboard prints it; the link keeps the ISO day.
    expect(summaryText(f, 'th').subject).toBe('สรุปยอดประจำวัน 11 พ.ย. 2569: รับเงินเข้าบัญชี 1,234,567.89 บาท');
    expect(summaryText(f, 'th').text.replace('https://x/t', '')).not.toContain('2026');
    expect(summaryText({ ...f, day: '2027-01-01' }, 'th').text).toContain('วันที่ 1 ม.ค. 2570');
    expect(summaryText(f, 'en').text).toContain('Daily summary for ร้าน, 11 Nov 2026');
    // Sent at the owner's time (21:00 by default), the day is not over: the message says until when it counts.
    expect(summaryText({ ...f, asOf: '21:00' }, 'th').text).toContain('วันที่ 11 พ.ย. 2569 (ถึง 21:00 น.)');
    expect(summaryText({ ...f, asOf: '21:00' }, 'en').text).toContain('Daily summary for ร้าน, 11 Nov 2026 (until 21:00)');
    // Part of the day's received was moved by the bank the day before (checked after midnight): said so,
    // as on the card; nothing said on a day without such a transfer.
    expect(summaryText(f, 'th').text).not.toContain('ธนาคารโอนก่อนวันนี้');
    const late = { ...f, earlierSatang: 55_50, earlierCount: 1 };
    expect(summaryText(late, 'th').text).toContain('ในจำนวนนี้ 55.50 บาท จาก 1 สลิป ธนาคารโอนก่อนวันนี้ จึงอยู่ในรายการเดินบัญชีของวันก่อนหน้า');
    expect(summaryText(late, 'en').text).toContain(
      "Of this, 55.50 THB from 1 slips was transferred before this day: it is on an earlier day's statement",
    );
    expect(summaryText(f, 'en').text).toContain('Received: 1,234,567.89 THB from 3 slips (5 checks in all)');
    expect(summaryText(f, 'en').text).toContain('(0.01 THB)');
    expect(summaryText(f, 'en').text).toContain('2 edited slip (the bank amount arrived)');
    expect(summaryText(f, 'th').text).toContain('สลิปถูกแก้ยอด (เงินเข้าจริงตามธนาคาร) 2');
  });
});

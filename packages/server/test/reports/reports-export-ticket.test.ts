/**
 * The dashboard's download button: a one-time ticket (POST with the bearer token), then the file by a GET
 * the browser makes itself (docs/dashboard-api.md "Exports"). The ticket rules on both stores: the file is
 * exactly the export the ticket was issued for, single use, dead after 60 s, shop-scoped (another shop's
 * ticket answers like an unknown one), tied to the person's live session, open to staff as the export is,
 * stored as its SHA-256 only, and the export audit names the person who asked.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { DB_KINDS, type DbKind, pgMissing, skipNote } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { createDashHarness, cookieFrom, signup, UA, type Owner } from '../dashboard/dash-helpers.js';
import { bkk, insertTx } from './reports-helpers.js';

for (const kind of DB_KINDS) describe.skipIf(pgMissing(kind))(`export download tickets (${kind})${skipNote(kind)}`, () => suite(kind));

let seq = 0;
const addr = () => `ticket-staff${++seq}-${Math.random().toString(36).slice(2, 8)}@example.com`;

function suite(kind: DbKind) {
  let h: Harness;
  let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];
  let owner: Owner;
  let other: Owner;
  beforeAll(async () => {
    ({ h, clock } = await createDashHarness(kind));
    clock.set(bkk('2026-11-11T10:00:00'));
    owner = await signup(h, { shopName: 'ร้านตั๋วดาวน์โหลด' });
    other = await signup(h);
    await insertTx(h, owner.shopId, [
      { createdAt: bkk('2026-11-11T09:00:00'), amountSatang: 1_234_50, clientRef: 'ORD-1' },
      { createdAt: bkk('2026-11-11T09:01:00'), amountSatang: 99_00, clientRef: 'ORD-2' },
      { createdAt: bkk('2026-11-10T09:00:00'), amountSatang: 5_00, clientRef: 'ORD-OLD' },
    ]);
    await insertTx(h, other.shopId, [{ createdAt: bkk('2026-11-11T09:00:00'), amountSatang: 1_00, clientRef: 'OTHER-1' }]);
  });
  afterAll(async () => {
    await h?.close();
  });

  const ticket = (who: { auth: Record<string, string> }, payload: Record<string, unknown>) =>
    h.app.inject({ method: 'POST', url: '/api/dashboard/transactions/export/ticket', headers: who.auth, payload });
  /** The browser's GET: no Authorization header, no cookie. */
  const fetchFile = (url: string) => h.app.inject({ method: 'GET', url });
  const issue = async (who: { auth: Record<string, string> }, payload: Record<string, unknown>) => {
    const res = await ticket(who, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { url: string; expiresAt: string };
  };
  const csvRows = (raw: Buffer) => parse(raw, { bom: true, columns: true }) as Array<Record<string, string>>;
  const exportAudits = async (shopId: string) => (await h.c.audit.list(shopId, 200)).filter((a) => a.action === 'transactions.export');
  const expectRefused = (res: Awaited<ReturnType<typeof fetchFile>>) => {
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.json()).toMatchObject({ success: false, statusCode: 404, code: 'NOT_FOUND' });
  };

  it('the ticket opens exactly the filtered export once, as an attachment, and is audited as an export of the person', async () => {
    const before = (await exportAudits(owner.shopId)).length;
    const from = bkk('2026-11-11T00:00:00');
    const t = await issue(owner, { format: 'csv', lang: 'en', from, amountMin: '50' });
    expect(t.url).toMatch(/^\/api\/dashboard\/transactions\/export\/download\?shop=[^&]+&ticket=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(t.expiresAt) - clock.now().getTime()).toBe(60_000);
    // Asking is not exporting: the audit event comes with the file.
    expect((await exportAudits(owner.shopId)).length).toBe(before);

    const res = await fetchFile(t.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="slipcheck-2026-11-11.csv"');
    expect(res.headers['cache-control']).toBe('no-store');
    const rows = csvRows(res.rawPayload);
    expect(rows.map((r) => [r['Order ref (clientRef)'], r['Amount (THB)']])).toEqual([
      ['ORD-2', '99.00'],
      ['ORD-1', '1234.50'],
    ]);
    const audits = await exportAudits(owner.shopId);
    expect(audits.length).toBe(before + 1);
    expect(audits[0]).toMatchObject({
      actor: `user:${owner.userId}`,
      detail: { format: 'csv', lang: 'en', filters: { from, amountMinSatang: 50_00 } },
    });

    // Single use: the same link again is refused, and nothing more is audited.
    expectRefused(await fetchFile(t.url));
    expect((await exportAudits(owner.shopId)).length).toBe(before + 1);
  });

  it('XLSX in the shop language when the page sends none', async () => {
    const t = await issue(owner, { format: 'xlsx', clientRef: 'ORD-1' });
    const res = await fetchFile(t.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const ws = wb.worksheets[0]!;
    expect(ws.getRow(1).getCell(4).value).toBe('จำนวนเงิน (บาท)');
    expect(ws.rowCount).toBe(2);
    expect(ws.getRow(2).getCell(5).value).toBe('ORD-1');
  });

  it('a ticket is dead after 60 s', async () => {
    const t = await issue(owner, { format: 'csv' });
    clock.advance(60_000);
    expectRefused(await fetchFile(t.url));
    const fresh = await issue(owner, { format: 'csv' });
    clock.advance(59_000);
    expect((await fetchFile(fresh.url)).statusCode).toBe(200);
  });

  it("another shop's ticket answers like an unknown one, and opens nothing of either shop", async () => {
    const t = await issue(owner, { format: 'csv' });
    const ticketOf = new URL(t.url, 'http://x').searchParams.get('ticket')!;
    const asOther = `/api/dashboard/transactions/export/download?${new URLSearchParams({ shop: other.shopId, ticket: ticketOf })}`;
    expectRefused(await fetchFile(asOther));
    const unknown = `/api/dashboard/transactions/export/download?${new URLSearchParams({ shop: owner.shopId, ticket: 'x'.repeat(43) })}`;
    const a = await fetchFile(asOther);
    const b = await fetchFile(unknown);
    expect([a.statusCode, a.json().message]).toEqual([b.statusCode, b.json().message]);
    // The failed tries did not spend it: its own shop's link still works once.
    expect((await fetchFile(t.url)).statusCode).toBe(200);
    // And the other shop's own tickets open only its rows.
    const mine = csvRows((await fetchFile((await issue(other, { format: 'csv', lang: 'en' })).url)).rawPayload);
    expect(mine.map((r) => r['Order ref (clientRef)'])).toEqual(['OTHER-1']);
  });

  it('only the hash is stored; the table never holds the ticket', async () => {
    const t = await issue(owner, { format: 'csv', clientRef: 'ORD-2' });
    const raw = new URL(t.url, 'http://x').searchParams.get('ticket')!;
    const rows = await h.c.db.selectFrom('export_tickets').selectAll().where('shop_id', '=', owner.shopId).execute();
    const row = rows.find((r) => r.token_hash === createHash('sha256').update(raw).digest('hex'));
    expect(row).toMatchObject({ user_id: owner.userId, format: 'csv', lang: null, used_at: null });
    expect(JSON.parse(row!.filters)).toMatchObject({ clientRef: 'ORD-2' });
    for (const r of rows) expect(JSON.stringify(r)).not.toContain(raw);
  });

  it('the refusals of the export come when the ticket is asked for, in the error envelope; no bearer, no ticket', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ format: 'pdf' }, 400, 'VALIDATION_ERROR'],
      [{}, 400, 'VALIDATION_ERROR'],
      [{ format: 'csv', from: '2026-11-11T00:00:00Z', to: '2026-11-10T00:00:00Z' }, 400, 'INVALID_RANGE'],
      [{ format: 'csv', amountMin: '10', amountMax: '5' }, 400, 'INVALID_RANGE'],
      [{ format: 'csv', cursor: 'abc' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [payload, status, code] of cases) {
      const res = await ticket(owner, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json(), JSON.stringify(payload)).toMatchObject({ success: false, statusCode: status, code });
    }
    const anon = await ticket({ auth: {} }, { format: 'csv' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    // A malformed download URL is a refusal in the envelope too, not a file.
    const bad = await fetchFile('/api/dashboard/transactions/export/download?shop=x');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  });

  it('staff may download as the export allows them; a sign-out or removal ends their unused tickets', async () => {
    const o = await signup(h);
    await h.c.shops.setPlan(o.shopId, 'GROWTH', 'test');
    await insertTx(h, o.shopId, [{ createdAt: bkk('2026-11-11T09:30:00'), clientRef: 'STAFF-SEES' }]);
    const joinStaff = async () => {
      const email = addr();
      const inv = await h.app.inject({ method: 'POST', url: '/api/dashboard/team/invites', headers: o.auth, payload: { email } });
      expect(inv.statusCode).toBe(201);
      const [m] = await h.c.mail.list({ to: email, limit: 1 });
      const token = /accept-invite\?token=(inv_[A-Za-z0-9_-]+)/.exec(m?.text ?? '')![1];
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/accept-invite',
        headers: { 'user-agent': UA },
        remoteAddress: `10.8.${seq % 250}.${(seq * 3) % 250}`,
        payload: { token, password: 'staff password 1' },
      });
      expect(res.statusCode, res.body).toBe(201);
      const d = res.json().data;
      return { userId: d.user.id as string, auth: { authorization: `Bearer ${d.accessToken}` }, refresh: cookieFrom(res)! };
    };
    const staff = await joinStaff();
    // The existing export is open to staff; so is the ticket, and the audit names the staff member.
    expect(
      (await h.app.inject({ method: 'GET', url: '/api/dashboard/transactions/export?format=csv', headers: staff.auth })).statusCode,
    ).toBe(200);
    const t = await issue(staff, { format: 'csv', lang: 'en' });
    const res = await fetchFile(t.url);
    expect(res.statusCode).toBe(200);
    expect(csvRows(res.rawPayload).map((r) => r['Order ref (clientRef)'])).toEqual(['STAFF-SEES']);
    expect((await exportAudits(o.shopId))[0]).toMatchObject({ actor: `user:${staff.userId}` });

    // Signed out after asking: the ticket dies with the session.
    const afterLogout = await issue(staff, { format: 'csv' });
    const out = await h.app.inject({ method: 'POST', url: '/api/dashboard/auth/logout', headers: staff.auth });
    expect(out.statusCode).toBe(200);
    expectRefused(await fetchFile(afterLogout.url));

    // Removed by the owner after asking: the same.
    const other = await joinStaff();
    const afterRemoval = await issue(other, { format: 'csv' });
    const rm = await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/members/${other.userId}`, headers: o.auth });
    expect(rm.statusCode, rm.body).toBeLessThan(300);
    expectRefused(await fetchFile(afterRemoval.url));

    // The owner's ticket works throughout.
    expect((await fetchFile((await issue(o, { format: 'csv' })).url)).statusCode).toBe(200);
  });

  it('the old export endpoint still answers with the bearer token', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/dashboard/transactions/export?format=csv&lang=en', headers: owner.auth });
    expect(res.statusCode).toBe(200);
    expect(csvRows(res.rawPayload).map((r) => r['Order ref (clientRef)'])).toEqual(['ORD-2', 'ORD-1', 'ORD-OLD']);
  });
}

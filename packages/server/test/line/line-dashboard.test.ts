import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { signup } from '../dashboard/dash-helpers.js';
import { lineEvent, textMessage } from './fake-line-platform.js';
import { startLineKit, type LineKit } from './line-test-kit.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`LINE dashboard routes [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    beforeAll(async () => {
      k = await startLineKit(kind);
    });
    afterAll(async () => k.close());

    it('link, show (no secrets), verify webhook, link a group by code, silence setting, unlink; scoped to the session shop', async () => {
      const owner = await signup(k.h);
      const other = await signup(k.h);
      const inject = (method: string, url: string, auth: Record<string, string>, payload?: unknown) =>
        k.h.app.inject({ method: method as 'GET', url, headers: auth, payload: payload as Record<string, unknown> });

      expect((await inject('GET', '/api/dashboard/line', {})).statusCode).toBe(401);
      const empty = await inject('GET', '/api/dashboard/line', owner.auth);
      expect(empty.statusCode).toBe(200);
      expect(empty.json().data).toMatchObject({ channels: [], groups: [], owners: [], limits: { groups: 1, messagingAccounts: 1 } });

      /** Links a fresh official account of the fake platform through the dashboard. */
      const linkThroughDashboard = async (channelId: string) => {
        const account = k.fake.addChannel();
        const res = await inject('POST', '/api/dashboard/line/channels', owner.auth, {
          channelId,
          channelSecret: account.secret,
          accessToken: account.token,
        });
        return { res, account };
      };
      const { res: linked, account: fc } = await linkThroughDashboard('1655000001');
      expect(linked.statusCode).toBe(201);
      expect(linked.body).not.toContain(fc.secret);
      expect(linked.body).not.toContain(fc.token);
      const ch = linked.json().data;
      expect(ch.webhookUrl).toBe(`${k.base}${ch.webhookPath}`);
      const { res: second } = await linkThroughDashboard('1655000002');
      expect(second.statusCode).toBe(403);
      expect(second.json().code).toBe('PLAN_LIMIT_MESSAGING_ACCOUNTS');

      const check = await inject('POST', `/api/dashboard/line/channels/${ch.id}/verify-webhook`, owner.auth);
      expect(check.json().data).toMatchObject({ success: true, statusCode: 200 });

      const code = await inject('POST', '/api/dashboard/line/link-codes', owner.auth);
      expect(code.statusCode).toBe(201);
      const e = lineEvent(
        'message',
        { type: 'group', groupId: 'Cdash', userId: 'Uown' },
        textMessage(code.json().data.code),
        k.clock.now().getTime(),
      );
      expect((await k.fake.deliver(`${k.base}${ch.webhookPath}`, fc.secret, { events: [e] })).status).toBe(200);
      await k.drain();
      const page = (await inject('GET', '/api/dashboard/line', owner.auth)).json().data;
      expect(page.groups).toEqual([expect.objectContaining({ groupId: 'Cdash', silentNonSlip: true })]);
      const gid = page.groups[0].id;

      expect((await inject('PATCH', `/api/dashboard/line/groups/${gid}`, other.auth, { silentNonSlip: false })).statusCode).toBe(404);
      const patched = await inject('PATCH', `/api/dashboard/line/groups/${gid}`, owner.auth, { silentNonSlip: false });
      expect(patched.json().data.silentNonSlip).toBe(false);
      expect((await inject('DELETE', `/api/dashboard/line/groups/${gid}`, other.auth)).statusCode).toBe(404);
      expect((await inject('DELETE', `/api/dashboard/line/groups/${gid}`, owner.auth)).json().data).toEqual({ unlinked: true });

      expect((await inject('DELETE', `/api/dashboard/line/channels/${ch.id}`, other.auth)).statusCode).toBe(404);
      const unlinked = await inject('DELETE', `/api/dashboard/line/channels/${ch.id}`, owner.auth);
      expect(unlinked.json().data.status).toBe('unlinked');
      const audit = await k.h.c.audit.list(owner.shopId);
      const actions = audit.map((a) => a.action);
      expect(actions).toEqual(expect.arrayContaining(['line.channel.link', 'line.channel.unlink', 'line.group.link', 'line.group.unlink']));
      expect(audit.find((a) => a.action === 'line.channel.link')!.actor).toBe(`user:${owner.userId}`);
    });
  });
}

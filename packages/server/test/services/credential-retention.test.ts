import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import { createServiceHarness, DB_KINDS, type ServiceHarness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { PRUNE_BATCH } from '../../src/db/batched-delete.js';
import { expectBatched, insertMany, runCounting, runHourlyTasks } from '../helpers/retention.js';

const NOW = '2026-11-21T06:00:00.000Z';
const daysAgo = (d: number) => new Date(Date.parse(NOW) - d * 86_400_000).toISOString();

// Expired credentials (sessions and refresh tokens, password-reset links, LINE link and login codes,
// spent LINE ID tokens) were only deleted with an erased shop: the hourly retention deletes them.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`credential retention [${kind}]${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    const clock = fixedClock(NOW);
    beforeAll(async () => {
      h = await createServiceHarness(kind, {}, { clock });
    });
    afterAll(async () => h.close());

    async function seedUser() {
      const s = await seedShop(h, { payee: false });
      const id = newId('usr');
      await h.c.db
        .insertInto('users')
        .values({
          id,
          shop_id: s.shop.id,
          email: `${id}@example.test`,
          password_hash: 'x',
          role: 'owner',
          language: 'th',
          created_at: daysAgo(400),
          password_changed_at: null,
          disabled_at: null,
          deleted_at: null,
        })
        .execute();
      return { shopId: s.shop.id, userId: id };
    }

    const session = (
      u: { shopId: string; userId: string },
      expiresAt: string,
      revokedAt: string | null = null,
      createdAt = daysAgo(400),
    ) => ({
      id: newId('ses'),
      user_id: u.userId,
      shop_id: u.shopId,
      user_agent: 'Mozilla/5.0',
      ip: '203.0.113.9',
      fingerprint: 'f',
      created_at: createdAt,
      last_used_at: expiresAt,
      expires_at: expiresAt,
      revoked_at: revokedAt,
      revoke_reason: revokedAt ? 'logout' : null,
      kind: 'miniapp',
      line_user_id: 'U0123456789abcdef0123456789abcdef',
    });
    const token = (sessionId: string, expiresAt: string, rotated = true) => ({
      token_hash: newId('rth'),
      session_id: sessionId,
      created_at: expiresAt,
      expires_at: expiresAt,
      rotated_at: rotated ? expiresAt : null,
    });

    it('deletes sessions 30 days after they expired or were revoked, with their refresh tokens; recent and live ones stay', async () => {
      const u = await seedUser();
      const expiredLong = session(u, daysAgo(31));
      const revokedLong = session(u, daysAgo(25), daysAgo(31)); // revoked 31 days ago, its expiry only 25 days back
      const expiredRecent = session(u, daysAgo(29));
      const revokedRecent = session(u, daysAgo(-5), daysAgo(2));
      const live = session(u, daysAgo(-6), null, daysAgo(1));
      const all = [expiredLong, revokedLong, expiredRecent, revokedRecent, live];
      await h.c.db.insertInto('user_sessions').values(all).execute();
      const tokens = [
        token(expiredLong.id, daysAgo(31)),
        token(revokedLong.id, daysAgo(25), false),
        token(expiredRecent.id, daysAgo(29)),
        token(revokedRecent.id, daysAgo(-5)),
        token(live.id, daysAgo(40)), // a rotated token of a long-lived session, expired long ago
        token(live.id, daysAgo(-6), false),
      ];
      await h.c.db.insertInto('refresh_tokens').values(tokens).execute();

      await runHourlyTasks(h);

      const ids = all.map((s) => s.id);
      const left = (await h.c.db.selectFrom('user_sessions').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort();
      expect(left).toEqual([expiredRecent.id, revokedRecent.id, live.id].sort());
      const hashes = tokens.map((t) => t.token_hash);
      const tokLeft = (await h.c.db.selectFrom('refresh_tokens').select('token_hash').where('token_hash', 'in', hashes).execute())
        .map((r) => r.token_hash)
        .sort();
      expect(tokLeft).toEqual([tokens[2]!.token_hash, tokens[3]!.token_hash, tokens[5]!.token_hash].sort());
    });

    it("keeps each person's latest session however old, so the team page still says when they last signed in", async () => {
      const away = await seedUser(); // signed in twice, the last time 100 days ago
      const older = session(away, daysAgo(150), null, daysAgo(157));
      const latest = session(away, daysAgo(93), null, daysAgo(100));
      await h.c.db.insertInto('user_sessions').values([older, latest]).execute();
      await runHourlyTasks(h);
      const left = await h.c.db.selectFrom('user_sessions').select('id').where('user_id', '=', away.userId).execute();
      expect(left.map((r) => r.id)).toEqual([latest.id]);
      const last = await h.c.sessions.lastStartsOfShop(away.shopId);
      expect(last.get(away.userId)).toBe(daysAgo(100));
    });

    it('deletes a backlog of ended sessions and tokens in bounded batches, renewing the lease between them', async () => {
      const u = await seedUser();
      const sessions = Array.from({ length: PRUNE_BATCH + 120 }, () => session(u, daysAgo(60)));
      await insertMany(
        sessions.length,
        (i) => sessions[i]!,
        (rows) => h.c.db.insertInto('user_sessions').values(rows).execute(),
      );
      await insertMany(
        sessions.length,
        (i) => token(sessions[i]!.id, daysAgo(60)),
        (rows) => h.c.db.insertInto('refresh_tokens').values(rows).execute(),
      );
      const live = session(u, daysAgo(-6), null, daysAgo(1));
      await h.c.db.insertInto('user_sessions').values(live).execute();
      const ended = async () =>
        (
          await h.c.db
            .selectFrom('user_sessions')
            .select('id')
            .where('user_id', '=', u.userId)
            .where('expires_at', '<', daysAgo(30))
            .execute()
        ).length;
      const renewals = await runCounting(h, 'sessions.prune', async () => ended());
      // Expired tokens (two batches), tokens of revoked sessions (none), then the sessions (two batches).
      const n = sessions.length;
      expect(renewals).toEqual([n, n, n, n, n - PRUNE_BATCH]);
      expect(await ended()).toBe(0);
      expect((await h.c.db.selectFrom('refresh_tokens').select('token_hash').where('expires_at', '<', daysAgo(30)).execute()).length).toBe(
        0,
      );
      expect(await h.c.db.selectFrom('user_sessions').select('id').where('id', '=', live.id).executeTakeFirst()).toBeDefined();
    });

    it('deletes password-reset links a day after they expired, used or not, in bounded batches', async () => {
      const u = await seedUser();
      const reset = (expiresAt: string, used = false) => ({
        token_hash: newId('prh'),
        user_id: u.userId,
        created_at: expiresAt,
        expires_at: expiresAt,
        used_at: used ? expiresAt : null,
      });
      const old = reset(daysAgo(1.1), true);
      const recent = reset(daysAgo(0.9));
      const live = reset(daysAgo(-1 / 48));
      await h.c.db.insertInto('password_resets').values([old, recent, live]).execute();
      await insertMany(
        PRUNE_BATCH + 30,
        () => reset(daysAgo(3)),
        (rows) => h.c.db.insertInto('password_resets').values(rows).execute(),
      );
      const oldLeft = async () =>
        (await h.c.db.selectFrom('password_resets').select('token_hash').where('expires_at', '<', daysAgo(1)).execute()).length;
      const before = await oldLeft();
      expectBatched(await runCounting(h, 'accounts.prune-resets', oldLeft), before, { more: true });
      const left = (await h.c.db.selectFrom('password_resets').select('token_hash').where('user_id', '=', u.userId).execute()).map(
        (r) => r.token_hash,
      );
      expect(left.sort()).toEqual([recent.token_hash, live.token_hash].sort());
    });

    it('deletes LINE link codes a day after they expired, in bounded batches; a code that linked a still-linked owner recipient stays', async () => {
      const u = await seedUser();
      const code = (expiresAt: string, usedFor: string | null = null) => ({
        code_hash: newId('lch'),
        shop_id: u.shopId,
        created_by: `user:${u.userId}`,
        expires_at: expiresAt,
        used_at: usedFor ? expiresAt : null,
        used_for: usedFor,
        created_at: expiresAt,
      });
      const channelId = newId('lch');
      await h.c.db
        .insertInto('line_channels')
        .values({
          id: channelId,
          shop_id: u.shopId,
          channel_id: channelId,
          webhook_key: channelId,
          secret_sealed: 'x',
          token_sealed: 'x',
          bot_user_id: null,
          bot_name: null,
          status: 'active',
          created_at: NOW,
          updated_at: NOW,
        })
        .execute();
      await h.c.db
        .insertInto('line_owners')
        .values({ id: newId('lo'), shop_id: u.shopId, line_channel_id: channelId, line_user_id: 'Ulinked', created_at: NOW })
        .execute();
      const old = code(daysAgo(2));
      const oldGroup = code(daysAgo(2), 'group:Cabc');
      const oldOwnerGone = code(daysAgo(2), 'owner:Ugone');
      const oldOwnerLinked = code(daysAgo(2), 'owner:Ulinked');
      const recent = code(daysAgo(0.5));
      const live = code(daysAgo(-0.01));
      await h.c.db.insertInto('line_link_codes').values([old, oldGroup, oldOwnerGone, oldOwnerLinked, recent, live]).execute();
      await insertMany(
        PRUNE_BATCH + 10,
        () => code(daysAgo(5)),
        (rows) => h.c.db.insertInto('line_link_codes').values(rows).execute(),
      );
      const oldLeft = async () =>
        (
          await h.c.db
            .selectFrom('line_link_codes')
            .select('code_hash')
            .where('shop_id', '=', u.shopId)
            .where('expires_at', '<', daysAgo(1))
            .where('code_hash', '!=', oldOwnerLinked.code_hash)
            .execute()
        ).length;
      const before = await oldLeft();
      expectBatched(await runCounting(h, 'line.prune-link-codes', oldLeft), before, { more: true });
      const left = (await h.c.db.selectFrom('line_link_codes').select('code_hash').where('shop_id', '=', u.shopId).execute()).map(
        (r) => r.code_hash,
      );
      expect(left.sort()).toEqual([oldOwnerLinked.code_hash, recent.code_hash, live.code_hash].sort());
    });

    it('deletes LINE login codes a day after they expired and spent ID tokens once expired, in bounded batches', async () => {
      const u = await seedUser();
      const code = (expiresAt: string) => ({
        code_hash: newId('llc'),
        user_id: u.userId,
        shop_id: u.shopId,
        created_at: expiresAt,
        expires_at: expiresAt,
        used_at: null,
      });
      const old = code(daysAgo(1.5));
      const recent = code(daysAgo(0.5));
      const live = code(daysAgo(-0.005));
      await h.c.db.insertInto('line_login_codes').values([old, recent, live]).execute();
      await insertMany(
        PRUNE_BATCH + 40,
        () => code(daysAgo(4)),
        (rows) => h.c.db.insertInto('line_login_codes').values(rows).execute(),
      );
      const idToken = (expiresAt: string) => ({ token_hash: newId('idt'), expires_at: expiresAt });
      const expiredToken = idToken(daysAgo(1 / 24));
      const liveToken = idToken(daysAgo(-1 / 48));
      await h.c.db.insertInto('line_id_tokens').values([expiredToken, liveToken]).execute();
      await insertMany(
        PRUNE_BATCH + 20,
        () => idToken(daysAgo(2)),
        (rows) => h.c.db.insertInto('line_id_tokens').values(rows).execute(),
      );

      const codesLeft = async () =>
        (await h.c.db.selectFrom('line_login_codes').select('code_hash').where('expires_at', '<', daysAgo(1)).execute()).length;
      const tokensLeft = async () =>
        (await h.c.db.selectFrom('line_id_tokens').select('token_hash').where('expires_at', '<=', NOW).execute()).length;
      const beforeTokens = await tokensLeft();
      const beforeCodes = await codesLeft();
      const renewals = await runCounting(h, 'line-login.prune', async () => (await tokensLeft()) + (await codesLeft()));
      // Spent tokens first, then the codes: each a backlog of more than one batch, renewed before each batch.
      expect(beforeTokens).toBeGreaterThan(PRUNE_BATCH);
      expect(beforeCodes).toBeGreaterThan(PRUNE_BATCH);
      expect(renewals).toEqual([
        beforeTokens + beforeCodes,
        beforeTokens + beforeCodes - PRUNE_BATCH,
        beforeCodes,
        beforeCodes - PRUNE_BATCH,
      ]);
      expect(await codesLeft()).toBe(0);
      expect(await tokensLeft()).toBe(0);
      const codes = (await h.c.db.selectFrom('line_login_codes').select('code_hash').where('user_id', '=', u.userId).execute()).map(
        (r) => r.code_hash,
      );
      expect(codes.sort()).toEqual([recent.code_hash, live.code_hash].sort());
      expect(
        await h.c.db.selectFrom('line_id_tokens').select('token_hash').where('token_hash', '=', liveToken.token_hash).executeTakeFirst(),
      ).toBeDefined();
    });
  });
}

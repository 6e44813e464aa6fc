import { sql } from 'kysely';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Container } from '../../container.js';
import { AppError } from '../../errors.js';
import { errorResponses, success } from '../../http/common-schemas.js';
import { enforceRate, requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import { recordFromRow } from '../transactions/transaction-record.js';
import { ERASE_GRACE_MS } from '../housekeeping/housekeeping-service.js';
import { mailTemplates } from '../mail/mail-templates.js';

const tags = ['dashboard'];

/**
 * Personal-data rights (spec Authentication 11): export of the shop's own data as JSON without
 * secrets (no password hash, key hashes, token hashes, webhook secrets, full account numbers), and
 * erasure: soft delete now (shop and owner hidden, sessions and keys revoked, the e-mail freed), real
 * deletion after 24 hours by `purgeAt`.
 */
export const privacyRoutes: FastifyPluginAsyncTypebox<{ c: Container; auth: DashboardAuthDeps }> = async (app, { c, auth }) => {
  // Export and erase are the owner's (PDPA data controller for the shop).
  const session = [requireSession(auth), requireOwner(c.db)];

  app.get(
    '/api/dashboard/privacy/export',
    {
      onRequest: session,
      schema: {
        tags,
        summary: "Download the shop's data as JSON (no secrets)",
        response: { 200: success(Type.Record(Type.String(), Type.Unknown())), ...errorResponses(401, 429) },
      },
    },
    async (req, reply) => {
      const { shopId, userId } = req.dashboard!;
      const [shop, user, payees, keys, sessions, audit, txRows, webhooks] = await Promise.all([
        c.shops.get(shopId),
        c.accounts.getUser(userId),
        c.payees.list(shopId),
        c.apiKeys.list(shopId),
        c.sessions.list(userId),
        c.audit.list(shopId, 100_000),
        c.db.selectFrom('transactions').selectAll().where('shop_id', '=', shopId).orderBy('created_at').execute(),
        c.webhooks.list(shopId),
      ]);
      await c.audit.record({ shopId, actor: `user:${userId}`, action: 'privacy.export', target: shopId, ip: req.ip });
      reply.header('Content-Disposition', `attachment; filename="slipcheck-export-${shopId}.json"`);
      return {
        success: true as const,
        data: {
          // secretHint is a fragment of the signing secret: not part of the owner's data.
          exportedAt: c.clock.now().toISOString(),
          shop,
          user,
          payeeAccounts: payees,
          apiKeys: keys,
          webhookEndpoints: webhooks.map(({ secretHint: _hint, ...w }) => w),
          sessions,
          transactions: txRows.map((r) => recordFromRow(r)),
          auditLog: audit,
        },
      };
    },
  );

  app.post(
    '/api/dashboard/privacy/erase',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Erase the account and shop (soft delete now, real deletion after 24 h)',
        body: Type.Object(
          { password: Type.String({ minLength: 1, maxLength: 200 }), confirm: Type.Literal('DELETE') },
          { additionalProperties: false },
        ),
        response: { 200: success(Type.Object({ erased: Type.Boolean(), purgeAfter: Type.String() })), ...errorResponses(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const { shopId, userId } = req.dashboard!;
      // Shares the password-check budget with password change: a stolen access token must not buy 120 guesses a minute.
      await enforceRate(auth.rateLimiter, reply, `pwcheck:usr:${userId}`, c.config.RATE_LIMIT_LOGIN);
      if (!(await c.accounts.verifyPassword(userId, req.body.password))) {
        await c.audit.record({
          shopId,
          actor: `user:${userId}`,
          action: 'privacy.erase_failed',
          target: shopId,
          ip: req.ip,
          detail: { reason: 'wrong_password' },
        });
        throw new AppError('WRONG_PASSWORD', 400, 'The password is wrong');
      }
      const now = c.clock.now();
      const iso = now.toISOString();
      const actor = `user:${userId}`;
      const purgeAfter = new Date(now.getTime() + ERASE_GRACE_MS);
      // Read before the erase frees the address: the confirmation goes to the address the account had.
      const [owner, shop] = await Promise.all([c.accounts.getUser(userId), c.shops.get(shopId)]);
      await c.db.transaction().execute(async (trx) => {
        await trx.updateTable('shops').set({ deleted_at: iso }).where('id', '=', shopId).execute();
        // The address is freed at once (a new sign-up with it is allowed); the row itself goes at the purge.
        // Each person's own id in the freed address: e-mail is unique, and a shop with staff has several rows.
        await trx
          .updateTable('users')
          .set({ deleted_at: iso, email: sql<string>`'erased+' || id || '@invalid'` })
          .where('shop_id', '=', shopId)
          .execute();
        await trx.updateTable('api_keys').set({ revoked_at: iso }).where('shop_id', '=', shopId).where('revoked_at', 'is', null).execute();
        await trx
          .updateTable('user_sessions')
          .set({ revoked_at: iso, revoke_reason: 'erasure' })
          .where('shop_id', '=', shopId)
          .where('revoked_at', 'is', null)
          .execute();
        await c.audit.record(
          {
            shopId,
            actor,
            action: 'privacy.erase',
            target: shopId,
            ip: req.ip,
            detail: { purgeAfter: new Date(now.getTime() + ERASE_GRACE_MS).toISOString() },
          },
          trx,
        );
      });
      // After the commit: a mail failure must not undo the erasure (mail.send logs and keeps the row).
      await c.mail
        .send(owner.email, mailTemplates.accountErased({ shopName: shop.name, at: now, purgeAfter, timeZone: c.config.TIME_ZONE }), shopId)
        .catch((err: unknown) => req.log.warn({ code: (err as { code?: string }).code }, 'erasure confirmation mail failed'));
      return { success: true as const, data: { erased: true, purgeAfter: purgeAfter.toISOString() } };
    },
  );
};

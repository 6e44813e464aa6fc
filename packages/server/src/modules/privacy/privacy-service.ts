import type { Db } from '../../db/db.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { AccountService } from '../accounts/account-service.js';
import type { SessionService } from '../accounts/session-service.js';
import type { ApiKeyService } from '../api-keys/api-key-service.js';
import type { AuditService } from '../audit/audit-service.js';
import { ERASE_GRACE_MS } from '../housekeeping/housekeeping-service.js';
import type { MailService } from '../mail/mail-service.js';
import { mailTemplates } from '../mail/mail-templates.js';
import type { PayeeService } from '../payees/payee-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { LineModule } from '../line/line-module.js';
import type { LineLoginService } from '../line-login/line-login-service.js';
import type { TeamService } from '../team/team-service.js';
import type { PrivacyExport } from './privacy-schemas.js';

export interface PrivacyServiceDeps {
  /** Only to open the erasure's transaction: every write goes through the owning module. */
  db: Db;
  clock: Clock;
  timeZone: string;
  shops: Pick<ShopService, 'get' | 'softDelete'>;
  accounts: Pick<AccountService, 'getUser' | 'verifyPassword' | 'eraseShopUsers'>;
  sessions: Pick<SessionService, 'list' | 'revokeAllOfShop'>;
  payees: Pick<PayeeService, 'list'>;
  apiKeys: Pick<ApiKeyService, 'list' | 'revokeAllOfShop'>;
  webhooks: Pick<WebhookService, 'list'>;
  transactions: Pick<TransactionService, 'iterate'>;
  audit: Pick<AuditService, 'list' | 'listByActor' | 'record'>;
  mail: Pick<MailService, 'send' | 'listForExport'>;
  line: { channels: Pick<LineModule['channels'], 'list'> };
  lineLogin: Pick<LineLoginService, 'linkOf'>;
  team: Pick<TeamService, 'list'>;
  /** A failed confirmation mail is logged, never thrown: the erasure is already committed. */
  onMailError?: (err: unknown) => void;
}

/**
 * Personal-data rights (spec Authentication 11): export of the shop's own data without secrets (no
 * password hash, key hashes, token hashes, webhook secrets, full account numbers), and erasure: soft
 * delete now (shop and people hidden, sessions and keys revoked, addresses freed), real deletion after
 * 24 hours by the housekeeping purge. Each module's data is read and written through that module.
 */
export function createPrivacyService(deps: PrivacyServiceDeps) {
  const { db, clock, shops, accounts, sessions, payees, apiKeys, webhooks, transactions, audit, mail, line, lineLogin, team } = deps;

  async function allTransactions(shopId: string): Promise<TransactionRecord[]> {
    const newestFirst: TransactionRecord[] = [];
    for await (const page of transactions.iterate(shopId, {})) newestFirst.push(...page);
    return newestFirst.reverse();
  }

  return {
    /**
     * The signed-in person's export. The owner (the shop's data controller under the PDPA) gets the
     * shop's data: `scope: "shop"`. A staff member gets their own personal data only, `scope: "person"`:
     * their account, sessions, LINE sign-in link, their own audit entries and the mail sent to them;
     * not the shop's results (its customers' data), accounts, keys, LINE setup or anyone else's data,
     * even what the screens show them for their work. privacy/README.md has the table.
     */
    async exportShop(shopId: string, userId: string, ip: string | null): Promise<PrivacyExport> {
      const user = await accounts.getUser(userId);
      const actor = `user:${userId}`;
      const owner = user.role === 'owner';
      const [ownSessions, lineLink, mails] = await Promise.all([
        sessions.list(userId),
        lineLogin.linkOf(userId),
        mail.listForExport({ shopId, address: user.email, since: user.createdAt, invitesOfShop: owner }),
      ]);
      const person = { user, lineLogin: lineLink, sessions: ownSessions, mails };
      if (!owner) {
        const ownActions = await audit.listByActor(shopId, actor, 100_000);
        await audit.record({ shopId, actor, action: 'privacy.export', target: userId, ip });
        return { exportedAt: clock.now().toISOString(), scope: 'person', ...person, auditLog: ownActions };
      }
      const [shop, payeeAccounts, keys, auditLog, records, endpoints, linePage, teamView] = await Promise.all([
        shops.get(shopId),
        payees.list(shopId),
        apiKeys.list(shopId),
        audit.list(shopId, 100_000),
        allTransactions(shopId),
        webhooks.list(shopId),
        line.channels.list(shopId),
        team.list(shopId),
      ]);
      await audit.record({ shopId, actor, action: 'privacy.export', target: shopId, ip });
      return {
        exportedAt: clock.now().toISOString(),
        scope: 'shop',
        shop,
        ...person,
        payeeAccounts,
        apiKeys: keys,
        // secretHint is a fragment of the signing secret: not part of the owner's data.
        webhookEndpoints: endpoints.map(({ secretHint: _hint, ...endpoint }) => endpoint),
        // The webhook path is a routing key of the service, not the shop's data; secrets never leave the line module.
        line: {
          channels: linePage.channels.map(({ webhookPath: _path, webhookUrl: _url, shopId: _shop, ...channel }) => channel),
          groups: linePage.groups,
          owners: linePage.owners,
        },
        invites: teamView.invites.map(({ id, email, createdAt, expiresAt }) => ({ id, email, createdAt, expiresAt })),
        transactions: records,
        auditLog,
      };
    },

    /** Throws WRONG_PASSWORD (audited); otherwise erases at once and answers when the purge may run. */
    async erase(shopId: string, userId: string, password: string, ip: string | null): Promise<{ purgeAfter: Date }> {
      const actor = `user:${userId}`;
      if (!(await accounts.verifyPassword(userId, password))) {
        await audit.record({ shopId, actor, action: 'privacy.erase_failed', target: shopId, ip, detail: { reason: 'wrong_password' } });
        throw new AppError('WRONG_PASSWORD', 400, 'The password is wrong');
      }
      const now = clock.now();
      const at = now.toISOString();
      const purgeAfter = new Date(now.getTime() + ERASE_GRACE_MS);
      // Read before the erase frees the address: the confirmation goes to the address the account had.
      const [owner, shop] = await Promise.all([accounts.getUser(userId), shops.get(shopId)]);
      await db.transaction().execute(async (trx) => {
        await shops.softDelete(shopId, at, trx);
        await accounts.eraseShopUsers(shopId, at, trx);
        await apiKeys.revokeAllOfShop(shopId, at, trx);
        await sessions.revokeAllOfShop(shopId, at, 'erasure', trx);
        await audit.record(
          { shopId, actor, action: 'privacy.erase', target: shopId, ip, detail: { purgeAfter: purgeAfter.toISOString() } },
          trx,
        );
      });
      // After the commit: a mail failure must not undo the erasure (mail.send logs and keeps the row).
      await mail
        .send(owner.email, mailTemplates.accountErased({ shopName: shop.name, at: now, purgeAfter, timeZone: deps.timeZone }), shopId)
        .catch((err: unknown) => deps.onMailError?.(err));
      return { purgeAfter };
    },
  };
}
export type PrivacyService = ReturnType<typeof createPrivacyService>;

import type { Db } from '../../db/db.js';
import type { PayeeAccountsTable } from '../../db/db-schema.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { createPayeeRepo } from './payee-repo.js';
import type { AuditService } from '../audit/audit-service.js';
import { BANKS } from '../slip-qr/slip-qr-banks.js';

const BANK_CODES = new Set(Object.keys(BANKS));

export const PAYEE_KINDS = ['BANK', 'PROMPTPAY'] as const;
export const PROXY_TYPES = ['PHONE', 'NATID', 'EWALLET'] as const;
export const PAYEE_STATUSES = ['ACTIVE', 'DISABLED'] as const;

import type { PayeeAccount } from './payee-types.js';
export type { PayeeAccount } from './payee-types.js';

export const payeeFromRow = (r: PayeeAccountsTable): PayeeAccount => ({
  id: r.id,
  bankCode: r.bank_code,
  kind: r.kind,
  proxyType: r.proxy_type,
  holder: r.holder,
  accountLast4: r.account_number.slice(-4),
  isPrimary: !!r.is_primary,
  status: r.status,
  createdAt: r.created_at,
});

export interface PayeeInput {
  bankCode: string;
  kind?: string;
  proxyType?: string | null;
  accountNumber: string;
  holder: string;
  isPrimary?: boolean;
}

function normalise(input: PayeeInput) {
  const kind = (input.kind ?? 'BANK').toUpperCase();
  if (!PAYEE_KINDS.includes(kind as never)) throw new AppError('VALIDATION_ERROR', 400, `kind must be one of ${PAYEE_KINDS.join(', ')}`);
  const digits = String(input.accountNumber ?? '').replace(/[\s-]/g, '');
  const holder = String(input.holder ?? '').trim();
  if (!holder || holder.length > 120) throw new AppError('VALIDATION_ERROR', 400, 'holder must be 1 to 120 characters');
  if (kind === 'BANK') {
    if (!BANK_CODES.has(input.bankCode))
      throw new AppError('VALIDATION_ERROR', 400, `Unknown bank code ${String(input.bankCode).slice(0, 10)}`);
    if (!/^\d{10,15}$/.test(digits)) throw new AppError('VALIDATION_ERROR', 400, 'accountNumber must be 10 to 15 digits');
    return { kind, bankCode: input.bankCode, proxyType: null, accountNumber: digits, holder };
  }
  const proxyType = (input.proxyType ?? 'PHONE').toUpperCase();
  if (!PROXY_TYPES.includes(proxyType as never))
    throw new AppError('VALIDATION_ERROR', 400, `proxyType must be one of ${PROXY_TYPES.join(', ')}`);
  const ok = proxyType === 'PHONE' ? /^0\d{9}$/.test(digits) : proxyType === 'NATID' ? /^\d{13}$/.test(digits) : /^\d{15}$/.test(digits);
  if (!ok)
    throw new AppError(
      'VALIDATION_ERROR',
      400,
      'PromptPay id must be a 10-digit phone (0...), a 13-digit national id or a 15-digit e-wallet id',
    );
  return {
    kind,
    bankCode: input.bankCode && BANK_CODES.has(input.bankCode) ? input.bankCode : 'PROMPTPAY',
    proxyType,
    accountNumber: digits,
    holder,
  };
}

export function createPayeeService(deps: { db: Db; clock: Clock; audit: AuditService }) {
  const { db, clock, audit } = deps;
  const repo = createPayeeRepo(db);

  async function getRow(shopId: string, id: string) {
    const row = await repo.get(shopId, id);
    if (!row) throw notFound('Payee account');
    return row;
  }

  return {
    async add(shopId: string, input: PayeeInput, actor: string): Promise<PayeeAccount> {
      const n = normalise(input);
      return db.transaction().execute(async (trx) => {
        // A second copy of an account listed it twice on the screen and the money card (one row at 0.00
        // beside the one slips were matched to), and removing the "extra" one moved the money it had
        // received under a removed account. A disabled copy is still the shop's: it is enabled, not re-added.
        if (await repo.findSame(shopId, n, trx))
          throw new AppError(
            'PAYEE_EXISTS',
            409,
            `This account (ending ${n.accountNumber.slice(-4)}) is already one of the shop's payee accounts`,
          );
        const primary = input.isPrimary || (await repo.count(shopId, trx)) === 0;
        if (primary) await repo.clearPrimary(shopId, trx);
        const row: PayeeAccountsTable = {
          id: newId('payee'),
          shop_id: shopId,
          bank_code: n.bankCode,
          kind: n.kind,
          account_number: n.accountNumber,
          proxy_type: n.proxyType,
          holder: n.holder,
          is_primary: primary ? 1 : 0,
          status: 'ACTIVE',
          created_at: clock.now().toISOString(),
        };
        await repo.insert(row, trx);
        await audit.record(
          { shopId, actor, action: 'payee.add', target: row.id, detail: { bankCode: n.bankCode, last4: n.accountNumber.slice(-4) } },
          trx,
        );
        return payeeFromRow(row);
      });
    },
    async list(shopId: string): Promise<PayeeAccount[]> {
      return (await repo.list(shopId)).map(payeeFromRow);
    },
    /** Full rows for receiver matching inside the pipeline; never serialised to a client. */
    async activeForMatching(shopId: string): Promise<PayeeAccountsTable[]> {
      return repo.listActive(shopId);
    },
    /**
     * Whether two payee accounts (of two shops, each read with its own shop id) are the same account: a
     * bank account with the same bank and number, a PromptPay id of the same type and value (its bank
     * code does not make it another account, as for a shop's own copies: repo findSame). Null when either is gone. The pipeline asks it of a
     * transfer two shops matched (a slip shows only part of the receiving number); nothing of the other
     * shop's account leaves this call but the answer.
     */
    async sameAccount(a: { shopId: string; id: string }, b: { shopId: string; id: string }): Promise<boolean | null> {
      const [x, y] = await Promise.all([repo.get(a.shopId, a.id), repo.get(b.shopId, b.id)]);
      if (!x || !y) return null;
      if (x.kind !== y.kind || x.account_number !== y.account_number) return false;
      return x.kind === 'BANK' ? x.bank_code === y.bank_code : x.proxy_type === y.proxy_type;
    },
    async update(
      shopId: string,
      id: string,
      patch: { holder?: string; isPrimary?: boolean; status?: string },
      actor: string,
    ): Promise<PayeeAccount> {
      const row = await getRow(shopId, id);
      const set: Partial<PayeeAccountsTable> = {};
      if (patch.holder !== undefined) {
        const h = String(patch.holder).trim();
        if (!h || h.length > 120) throw new AppError('VALIDATION_ERROR', 400, 'holder must be 1 to 120 characters');
        set.holder = h;
      }
      if (patch.status !== undefined) {
        if (!PAYEE_STATUSES.includes(patch.status as never))
          throw new AppError('VALIDATION_ERROR', 400, `status must be one of ${PAYEE_STATUSES.join(', ')}`);
        set.status = patch.status;
      }
      await db.transaction().execute(async (trx) => {
        if (patch.isPrimary) {
          await repo.clearPrimary(shopId, trx);
          set.is_primary = 1;
        }
        if (Object.keys(set).length) await repo.update(shopId, id, set, trx);
        await audit.record({ shopId, actor, action: 'payee.update', target: id, detail: { fields: Object.keys(set) } }, trx);
      });
      return payeeFromRow({ ...row, ...set });
    },
    async remove(shopId: string, id: string, actor: string): Promise<void> {
      await getRow(shopId, id);
      await repo.delete(shopId, id);
      await audit.record({ shopId, actor, action: 'payee.remove', target: id });
    },
  };
}
export type PayeeService = ReturnType<typeof createPayeeService>;

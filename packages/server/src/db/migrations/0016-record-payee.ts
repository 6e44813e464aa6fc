import type { Kysely } from 'kysely';
import { matchReceiver, type PayeeForMatch } from '../../modules/verification/receiver-match.js';

// The money view groups received money on the shop's payee account the receiver check matched
// (issue 21): the masked receiver on a slip differs per sending bank (`XXX-X-56660-X`, `xxxxxx6609`),
// so grouping on it showed one account seven times. `payee_id` is written by the verify pipeline from
// now on; old rows whose money reached the shop (SUCCESS, AMOUNT_MISMATCH, stale INVALID) are matched
// again here against every payee the shop has (a payee disabled since was active when it was checked).
// Rows that still cannot be placed (a shop with several payees and an anonymised or too-short receiver)
// keep NULL: the totals show them as "account not recorded", never under a guessed account.
// The matcher is imported rather than copied: a backfill must judge old rows the way the check did.
const RECEIVED = ['SUCCESS', 'AMOUNT_MISMATCH', 'INVALID'];
const PAGE = 1000;

/** The tables as this migration reads and writes them (the schema it runs against, not today's). */
export type At0016 = {
  payee_accounts: {
    id: string;
    shop_id: string;
    bank_code: string;
    kind: string;
    account_number: string;
    proxy_type: string | null;
    holder: string;
    status: string;
    created_at: string;
  };
  transactions: {
    id: string;
    shop_id: string;
    status: string;
    error_code: string | null;
    receiver_name: string | null;
    receiver_account: string | null;
    payee_id: string | null;
  };
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('payee_id', 'text').execute();
  await backfillRecordPayees(db.withTables<At0016>());
}

/** Places rows without `payee_id` whose money reached the shop; idempotent (only NULL rows are looked at). */
export async function backfillRecordPayees(db: Pick<Kysely<At0016>, 'selectFrom' | 'updateTable'>): Promise<void> {
  const shops = await db.selectFrom('payee_accounts').select('shop_id').distinct().execute();
  for (const { shop_id: shopId } of shops as Array<{ shop_id: string }>) {
    const payees = (await db
      .selectFrom('payee_accounts')
      .select(['id', 'bank_code', 'kind', 'account_number', 'proxy_type', 'holder'])
      .where('shop_id', '=', shopId)
      .orderBy('created_at')
      .execute()) as Array<{
      id: string;
      bank_code: string;
      kind: string;
      account_number: string;
      proxy_type: string | null;
      holder: string;
    }>;
    const forMatch: PayeeForMatch[] = payees.map((p) => ({
      bankCode: p.bank_code,
      kind: p.kind === 'PROMPTPAY' ? 'PROMPTPAY' : 'BANK',
      accountNumber: p.account_number,
      proxyType: p.proxy_type,
      holder: p.holder,
      status: 'ACTIVE',
    }));
    let after = '';
    for (;;) {
      const rows = (await db
        .selectFrom('transactions')
        .select(['id', 'status', 'error_code', 'receiver_name', 'receiver_account'])
        .where('shop_id', '=', shopId)
        .where('id', '>', after)
        .where('status', 'in', RECEIVED)
        .where('payee_id', 'is', null)
        .orderBy('id')
        .limit(PAGE)
        .execute()) as Array<{
        id: string;
        status: string;
        error_code: string | null;
        receiver_name: string | null;
        receiver_account: string | null;
      }>;
      if (!rows.length) break;
      after = rows[rows.length - 1]!.id;
      for (const r of rows) {
        if (r.status === 'INVALID' && r.error_code !== 'STALE_SLIP') continue;
        const m = matchReceiver({ name: r.receiver_name ?? '', account: r.receiver_account }, forMatch);
        // These statuses passed the receiver check when they were made: with one payee there is no choice.
        const index = m.result === 'MATCH' ? m.payeeIndex : payees.length === 1 ? 0 : undefined;
        if (index === undefined) continue;
        await db.updateTable('transactions').set({ payee_id: payees[index]!.id }).where('id', '=', r.id).execute();
      }
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('payee_id').execute();
}

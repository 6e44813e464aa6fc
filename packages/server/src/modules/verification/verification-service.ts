import { createHash, randomUUID } from 'node:crypto';
import type { Db, DbCapabilities } from '../../db/db.js';
import type { PayeeAccountsTable, TransactionsTable } from '../../db/db-schema.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { ResultsBus } from '../../lib/results-bus.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import { OWNER_ALERT_JOB } from '../mail/mail-owner-alerts.js';
import type { Checker, CheckerResult } from '../checker/checker-port.js';
import type { PayeeService } from '../payees/payee-service.js';
import { TRIAL_PLAN, type Plan, type PlanService } from '../plans/plan-service.js';
import type { QuotaService, Reservation } from '../quota/quota-service.js';
import type { FirstSuccess, SuccessHolder, TransactionService } from '../transactions/transaction-service.js';
import type { Shop, ShopService } from '../shops/shop-service.js';
import { settingsOf } from '../shops/shop-settings.js';
import { BANKS } from '../slip-qr/slip-qr-banks.js';
import type { DecodeResult } from '../slip-qr/slip-qr-decoder.js';
import type { PrintedRead } from '../slip-qr/slip-qr-amount.js';
import { recordFromRow, type TransactionRecord, type TxSource } from '../transactions/transaction-record.js';
import { satangFromAmount } from '../../lib/money.js';
import { readableLocalTime } from '../../lib/period.js';
import type { ClaimKey, ImageClaims } from './image-claims.js';
import { faultPoint } from './fault-injection.js';
import { createReplayMemory } from './replay-memory.js';
import { createPayeeRefusals } from './payee-refusals.js';
import { imageFingerprint, imageSha256 } from './image-hash.js';
import { judgeFoundSlip, normalizeTransRef, slipQrLatestDate } from './slip-outcome.js';
import { judgePrinted, type EditMode } from './printed-amount.js';
import { RESULT_CREATED_JOB } from './verification-jobs.js';
import type { PayeeForMatch } from './receiver-match.js';
import { metrics, secondsSince } from '../../lib/metrics.js';

export interface VerifyInput {
  shopId: string;
  source: TxSource;
  image: Buffer;
  environment?: 'live' | 'test';
  apiKeyId?: string | null;
  /** The expected amount in integer satang, read from the request's decimal string at the route. */
  expectedAmountSatang?: number;
  clientRef?: string | null;
  /** A channel that already decoded this image (LINE groups decide whether to stay silent) passes the result, so it is not decoded twice. */
  decoded?: DecodeResult;
  /** The API has already loaded these with the key; other channels let the service load them. */
  shop?: Shop;
  plan?: Plan;
}

export interface VerifyOutcome {
  record: TransactionRecord;
  quota: { used: number; limit: number; remaining: number };
  daysUntilReset: number;
  isNew: boolean;
}

export interface VerificationDeps {
  db: Db;
  /** Unique-key conflicts of either database (a second SUCCESS of one transfer). */
  caps: Pick<DbCapabilities, 'isUniqueViolation'>;
  clock: Clock;
  shops: ShopService;
  plans: PlanService;
  payees: Pick<PayeeService, 'activeForMatching' | 'sameAccount'>;
  quota: QuotaService;
  /** Where records are written and read (the transactions module owns the table). */
  transactions: Pick<TransactionService, 'insertIn' | 'firstSuccess' | 'knownTransfer' | 'successHolder' | 'get' | 'firstSeen'>;
  claims: ImageClaims;
  /** `shopId` keys the decoder pool's fair share between shops. */
  decode: (image: Buffer, shopId?: string) => Promise<DecodeResult>;
  /**
   * Decode that also reads the printed amount in the same decoder job (issue 20): the decode answers
   * first, the amount arrives while the checker is asked. Absent = amounts are never read.
   */
  decodeAndRead?: (image: Buffer, shopId?: string) => Promise<{ decoded: DecodeResult; printed: Promise<PrintedRead | null> }>;
  /** SLIP_EDIT_MODE: what a printed amount that differs from the bank's does. Default off. */
  editMode?: EditMode;
  checker: Checker;
  bus: ResultsBus;
  maxImageBytes: number;
  /** TIME_ZONE: the zone of times people read in messages (the DUPLICATE's first check). Default Asia/Bangkok. */
  timeZone?: string;
  staleMode: 'off' | 'alert' | 'reject';
  staleMaxAgeHours: number;
  onError?: (err: unknown, where: string) => void;
  /** REPLAY_MEMORY_MS: how long a node answers a replay from memory (replay-memory.ts, at most a second); 0 = off. */
  replayMemoryMs?: number;
  /** operator log (a provider answer that contradicts the slip QR is logged with both values) */
  log?: { warn(obj: unknown, msg?: string): void };
}

/**
 * How long after a shop first saw a slip's reference a "not found" for a bank that publishes late
 * (checker LATE_PUBLISHING_BANKS, from a provider with no "not yet" answer) still means "not published
 * yet": SlipOK documents waits of a few minutes for those banks. A forged slip of such a bank answers
 * SLIP_PENDING (uncharged, nothing to hand over for) until then, and FRAUD after.
 */
export const LATE_PUBLISHING_GRACE_MS = 10 * 60_000;

const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const isJpegOrPng = (b: Buffer) => b.subarray(0, 3).equals(JPEG) || b.subarray(0, 8).equals(PNG);

const DECODE_MESSAGES: Record<string, string> = {
  NO_QR_FOUND: 'No slip QR code was found in the image. Send the original e-slip image (not a cropped or edited one).',
  NOT_SLIP_QR: 'The image holds a QR code, but it is not a bank slip QR (a payment QR or another code).',
  BAD_CHECKSUM: 'The slip QR code is damaged or altered (checksum mismatch).',
  UNREADABLE_IMAGE: 'The image could not be read.',
  MULTIPLE_SLIPS: 'The image shows slips of more than one transfer. Nothing was charged; send each slip as its own image.',
};

type Draft = Omit<
  TransactionsTable,
  | 'id'
  | 'shop_id'
  | 'source'
  | 'environment'
  | 'latency_ms'
  | 'client_ref'
  | 'image_hash'
  | 'api_key_id'
  | 'created_at'
  | 'anonymized_at'
  | 'expected_amount_satang'
>;

const emptyDraft = (): Draft => ({
  status: 'INVALID',
  trans_ref: null,
  amount_satang: null,
  bank_code: null,
  bank_name: null,
  sender_name: null,
  sender_account: null,
  receiver_name: null,
  receiver_account: null,
  trans_date: null,
  error_code: null,
  error_message: null,
  duplicate: 0,
  stale: 0,
  charged: 0,
  success_ref: null,
  payee_id: null,
  printed_amount_satang: null,
  edited: 0,
});

/**
 * What makes a request a replay (the image claim's key): the same image, `amount` and `clientRef`, so a
 * retry after a timeout gets its own answer again while the same picture sent for another order is a
 * new verification of a transfer already verified, a DUPLICATE (issue 19: a cached SUCCESS there let an
 * integration credit a second order). Absent counts as a value. The dashboard and LINE have no client
 * reference: their key is the image alone (with the dashboard's expected amount when one is given), so a
 * resend there stays a replay (shown to people as one).
 * An API request always carries its fields in the key, even when both are absent: keyed by the image
 * alone, it met the counter's claim and answered a slip already accepted in LINE or on the dashboard
 * as that record's SUCCESS (verified, not duplicate), which a bot whose own database had never seen the
 * transRef credited again. The record keeps the plain image hash. `imageKey` is the image's SHA-256 for
 * the claim, its fast fingerprint for the replay memory (image-hash.ts).
 */
export function replayKey(imageKey: string, input: ReplayParts): string {
  const parts = requestParts(imageKey, input);
  return parts === imageKey ? imageKey : createHash('sha256').update(parts).digest('hex');
}

/**
 * The image's key alone (LINE; the dashboard without an expected amount), with the dashboard's expected
 * amount (a pair: staff who correct a mistyped amount get a new check, not the mismatch replayed), or
 * with the API key and the request's amount and clientRef (the API, absent ones included: never equal
 * to another channel's key, nor to another integration's, the POS's and the shop's bot each holding a
 * key: keyed without it, the bot got the POS's SUCCESS as its replay and credited a second order): the
 * replay memory's key as it is (a map key need not be short), the claim's once hashed (`replayKey`).
 */
type ReplayParts = Pick<VerifyInput, 'source' | 'apiKeyId' | 'expectedAmountSatang' | 'clientRef'>;

function requestParts(imageKey: string, input: ReplayParts): string {
  if (input.source === 'API')
    return JSON.stringify([imageKey, input.apiKeyId ?? null, input.expectedAmountSatang ?? null, input.clientRef ?? null]);
  if (input.source === 'DASHBOARD' && input.expectedAmountSatang !== undefined)
    return JSON.stringify([imageKey, input.expectedAmountSatang]);
  return imageKey;
}

/** Whose SUCCESS a DUPLICATE names: this shop's (false), or another shop's on the same account or on another (duplicateOf). */
type Elsewhere = false | 'same' | 'other';

/** A new image's claim was written by another check between our read and our insert (its unit is rolled back with it). */
class ClaimedMeanwhile extends Error {}

/**
 * The one pipeline every channel calls (API, LINE, dashboard). The image lives only in this call's
 * memory: its SHA-256 is kept for replay detection, the bytes go to a decoder process and are dropped.
 */
export function createVerificationService(deps: VerificationDeps) {
  const { db, clock, quota, claims } = deps;
  const replays = createReplayMemory({ ms: deps.replayMemoryMs, now: () => clock.now().getTime() });
  // A write of a shop row on this node drops its kept replays at once (as key authentication's copies).
  deps.shops.onChange?.(replays.forgetShop);
  const payeeRefusals = createPayeeRefusals({ db, clock, timeZone: deps.timeZone ?? 'Asia/Bangkok', payees: deps.payees });

  async function loadShop(input: VerifyInput): Promise<{ shop: Shop; plan: Plan }> {
    const shop = input.shop ?? (await deps.shops.get(input.shopId));
    const plan = input.plan ?? (await deps.plans.get(shop.planCode));
    if (shop.state === 'suspended') throw new AppError('SHOP_SUSPENDED', 403, 'This shop is suspended; contact support');
    return { shop, plan };
  }

  function checkImage(image: Buffer) {
    if (!image || image.length === 0)
      throw new AppError(
        'INVALID_IMAGE',
        400,
        'Send the slip image as the raw request body (JPEG or PNG bytes, Content-Type: application/octet-stream); the body was empty',
      );
    if (image.length > deps.maxImageBytes)
      throw new AppError('PAYLOAD_TOO_LARGE', 413, `The image is larger than ${deps.maxImageBytes} bytes`);
    if (!isJpegOrPng(image))
      throw new AppError(
        'INVALID_IMAGE',
        400,
        'The body is not a JPEG or PNG image. Send the raw image bytes (not JSON, multipart or base64) with Content-Type: application/octet-stream',
      );
  }

  /**
   * The quota an answer reports. `usedAfter`: the live counter this call's own charge produced, when
   * known (no read needed); `fromMemory`: a replay answered from memory reports this node's copy of the
   * counter, at most as old as the memory (quota's recent-usage.ts); everything else reads it live.
   */
  async function quotaAfter(
    shop: Shop,
    plan: Plan,
    environment: 'live' | 'test',
    { usedAfter, fromMemory = false }: { usedAfter?: number; fromMemory?: boolean } = {},
  ) {
    if (environment === 'test') {
      const t = await quota.testSnapshot(shop.id);
      if (t.used !== null)
        return { quota: { used: t.used, limit: t.limit, remaining: t.remaining }, daysUntilReset: quota.period().daysUntilReset };
    }
    const q =
      environment === 'live' && usedAfter !== undefined
        ? quota.shapeOf(plan, usedAfter)
        : await (fromMemory ? quota.recentSnapshot(shop, plan) : quota.snapshot(shop, plan));
    return { quota: quota.quotaBody(q), daysUntilReset: q.daysUntilReset };
  }

  /** Asks the checker and turns its answer into a draft record; `charged` follows the charging rule. */
  async function judge(
    shopId: string,
    decoded: Extract<DecodeResult, { ok: true }>,
    image: Buffer | undefined,
    payees: Array<PayeeForMatch & { id: string }>,
    expectedSatang: number | undefined,
  ): Promise<Draft> {
    const draft = emptyDraft();
    draft.trans_ref = decoded.transRef;
    draft.bank_code = decoded.bankCode;
    draft.bank_name = decoded.bankName;
    let answer: CheckerResult;
    try {
      const t = process.hrtime.bigint();
      // The image goes along only for a kind some provider verifies from the picture (TrueMoney);
      // it stays in this call's memory either way.
      answer = await deps.checker
        .check({
          payload: decoded.payload,
          bankCode: decoded.bankCode,
          transRef: decoded.transRef,
          kind: decoded.kind,
          image: decoded.kind === 'TRUEMONEY' ? image : undefined,
        })
        .finally(() => metrics.stageDuration.observe({ stage: 'checker' }, secondsSince(t)));
    } catch (err) {
      deps.onError?.(err, 'checker');
      answer = { kind: 'UNAVAILABLE', reason: 'checker threw' };
    }
    if (answer.kind === 'UNAVAILABLE') {
      if (answer.account) {
        // The provider account (quota, key, allow-list...) is the problem: resending soon will not help.
        return {
          ...draft,
          status: 'PROVIDER_ERROR',
          error_code: 'CHECK_UNAVAILABLE',
          error_message:
            'The service is temporarily unable to check slips; the operator has been alerted. Nothing was charged. Confirm this payment in your banking app, or send the slip again later.',
        };
      }
      const wait = answer.retryAfterSeconds ? Math.max(1, Math.ceil(answer.retryAfterSeconds / 60)) : 0;
      return {
        ...draft,
        status: 'PROVIDER_ERROR',
        error_code: 'PROVIDER_UNAVAILABLE',
        // Say what happened: a timeout is not a refusal that came back at once.
        error_message: wait
          ? `The bank data service is temporarily down. Nothing was charged; send the same slip again in about ${wait} minutes.`
          : answer.timeout
            ? 'The bank data service did not answer in time. Nothing was charged; send the same slip again in a minute.'
            : 'The bank data service could not check this slip just now. Nothing was charged; send the same slip again in a minute.',
      };
    }
    if (answer.kind === 'UNSUPPORTED') {
      return {
        ...draft,
        status: 'INVALID',
        error_code: 'CHECK_NOT_SUPPORTED',
        error_message:
          'This kind of slip cannot be checked by this service yet. Nothing was charged; confirm the payment in the receiving account or wallet app.',
      };
    }
    // "Not found" for a slip of a bank that publishes late, from a provider that cannot say "not yet":
    // while the reference is new to the shop the bank may simply not have published it (a customer
    // sends the slip the moment the app shows it). Pending, uncharged; once the reference was first
    // seen LATE_PUBLISHING_GRACE_MS ago, not found is the bank's answer.
    if (answer.kind === 'NOT_FOUND' && answer.mayBeUnpublished) {
      const first = await deps.transactions.firstSeen(shopId, decoded.transRef);
      const seenMs = first ? clock.now().getTime() - Date.parse(first) : 0;
      if (seenMs < LATE_PUBLISHING_GRACE_MS)
        answer = { kind: 'PENDING', retryAfterSeconds: Math.ceil((LATE_PUBLISHING_GRACE_MS - seenMs) / 1000) };
    }
    if (answer.kind === 'PENDING') {
      const mins = Math.max(1, Math.ceil(answer.retryAfterSeconds / 60));
      return {
        ...draft,
        status: 'PROVIDER_ERROR',
        error_code: 'SLIP_PENDING',
        error_message: `The bank has not published this transfer yet (some banks take a few minutes). Nothing was charged; try again in about ${mins} minute(s).`,
      };
    }
    draft.charged = 1;
    if (answer.kind === 'NOT_FOUND') {
      // "Expired or no such transaction": when the slip's own QR shows it is older than the stale
      // threshold, the bank may simply no longer confirm it. That is the stale rule's answer, not fraud.
      const qrDate = slipQrLatestDate(decoded);
      if (qrDate && clock.now().getTime() - qrDate.getTime() > deps.staleMaxAgeHours * 3_600_000) {
        return {
          ...draft,
          status: 'INVALID',
          error_code: 'STALE_SLIP',
          stale: 1,
          error_message: `The slip is older than ${deps.staleMaxAgeHours} hours and the bank no longer confirms it; an old slip may be re-used from an earlier payment. Ask for a recent slip or confirm the payment in your banking app.`,
        };
      }
      return {
        ...draft,
        status: 'FRAUD',
        error_code: 'SLIP_NOT_FOUND',
        error_message: 'The bank has no transfer matching this slip: it may be forged or edited.',
      };
    }
    const slip = answer.slip;
    if (slip.transRef && normalizeTransRef(slip.transRef) !== normalizeTransRef(decoded.transRef)) {
      // Asked about one reference, answered about another: the provider's data is wrong, not the slip.
      deps.log?.warn({ qrTransRef: decoded.transRef, providerTransRef: slip.transRef }, 'checker answered for another reference');
      return {
        ...draft,
        status: 'PROVIDER_ERROR',
        error_code: 'PROVIDER_UNAVAILABLE',
        error_message: 'The bank data service answered with inconsistent data. Nothing was charged; send the same slip again later.',
        charged: 0,
      };
    }
    // The bank's amount through its decimal text, never `x * 100`; one that is not whole satang cannot be compared.
    const slipSatang = satangFromAmount(slip.amount);
    if (slipSatang === null) {
      deps.onError?.(new Error('checker answered an amount that is not whole satang'), 'checker');
      return {
        ...draft,
        charged: 0,
        status: 'PROVIDER_ERROR',
        error_code: 'PROVIDER_UNAVAILABLE',
        error_message: 'The bank data service answered an unreadable amount. Nothing was charged; send the same slip again in a minute.',
      };
    }
    const verdict = judgeFoundSlip(slip, slipSatang, payees, expectedSatang, {
      staleMode: deps.staleMode,
      staleMaxAgeHours: deps.staleMaxAgeHours,
      now: clock.now(),
    });
    const bank = BANKS[slip.sendingBankCode] ?? BANKS[decoded.bankCode];
    return {
      ...draft,
      status: verdict.status,
      error_code: verdict.errorCode,
      error_message: verdict.errorMessage,
      stale: verdict.stale ? 1 : 0,
      amount_satang: slipSatang,
      bank_code: slip.sendingBankCode || decoded.bankCode,
      bank_name: bank?.nameEn ?? decoded.bankName,
      sender_name: slip.sender.name || slip.sender.nameEn || null,
      sender_account: slip.sender.account ?? slip.sender.proxy?.value ?? null,
      receiver_name: slip.receiver.name || slip.receiver.nameEn || null,
      receiver_account: slip.receiver.account ?? slip.receiver.proxy?.value ?? null,
      trans_date: new Date(slip.transDate).toISOString(),
      success_ref: verdict.status === 'SUCCESS' ? decoded.transRef : null,
      // The money view groups received money on this (the masked receiver differs per sending bank).
      payee_id: verdict.payeeIndex === undefined ? null : (payees[verdict.payeeIndex]?.id ?? null),
    };
  }

  /**
   * Owner alerts when the pool crosses 80 % and 100 %. Units are taken one at a time by a conditional
   * update, so exactly one charged check lands on each threshold; the channels also send once per period.
   * `trial`: the pool is the trial's (its slips, not this month's), which the alert's words say.
   */
  async function quotaAlert(shopId: string, q: { used: number; limit: number }, trial: boolean) {
    const type = q.used === q.limit ? 'QUOTA_100' : q.used === Math.ceil(q.limit * 0.8) ? 'QUOTA_80' : null;
    if (!type || q.limit <= 0) return;
    await enqueueOutbox(
      db,
      { kind: OWNER_ALERT_JOB, shopId, payload: { type, shopId, detail: { used: q.used, limit: q.limit, ...(trial && { trial }) } } },
      clock.now(),
    );
  }

  /**
   * A duplicate found from the slip's reference alone repeats the bank's data of the transfer from its
   * SUCCESS (same reference, same transfer), so the answer, the webhook, the LINE reply and the money
   * view say which payment the slip re-uses: the amount, sender, receiver and bank time. Not the
   * matched payee account: the money arrived once, on the first record.
   */
  const fromFirst = (first: FirstSuccess, decoded: Extract<DecodeResult, { ok: true }>): Partial<Draft> => ({
    trans_ref: decoded.transRef,
    amount_satang: first.amount_satang,
    bank_code: first.bank_code ?? decoded.bankCode,
    bank_name: first.bank_name ?? decoded.bankName,
    sender_name: first.sender_name,
    sender_account: first.sender_account,
    receiver_name: first.receiver_name,
    receiver_account: first.receiver_account,
    trans_date: first.trans_date,
  });

  /**
   * `firstAt`: when the transfer's SUCCESS was recorded (ISO), when known. The message names it in the
   * service's zone with its offset ("2026-11-27 17:03 (UTC+07:00)"): people read it, and UTC ISO read as
   * seven hours early at a Thai counter. The record's own fields stay ISO. `elsewhere`: that SUCCESS is
   * another shop's (never named), on the same account as this shop's matched one (`same`; also when
   * either account is unknown), or on another account whose visible digits the slip's masked receiver
   * matched too (`other`, see sharedAccount).
   */
  const duplicateOf = (d: Draft, firstAt?: string | null, elsewhere: Elsewhere = false): Draft => {
    const at = firstAt ? ` at ${readableLocalTime(new Date(firstAt), deps.timeZone ?? 'Asia/Bangkok')}` : '';
    return {
      ...d,
      status: 'DUPLICATE',
      duplicate: 1,
      success_ref: null,
      error_code: 'DUPLICATE',
      error_message:
        elsewhere === 'other'
          ? `This transfer was already verified successfully${at} by another shop. The slip shows only part of the receiving account number, and it matches that shop's account as well as yours: this payment may not have reached your account. Do not hand over goods for it; check the payment in your banking app.`
          : elsewhere
            ? `This transfer was already verified successfully${at} by another shop that receives into the same account: the slip is being re-used.`
            : `This transfer was already verified successfully for this shop${at}: the slip is being re-used.`,
    };
  };

  /**
   * Whether the shop holding a transfer's SUCCESS receives into this shop's matched account. The bank's
   * receiver is masked (`xxx-x-x6660-x`), so two shops' different accounts with the same visible digits
   * both match it: saying "the same account" then told the second shop something false (and that it
   * shares its account with a stranger). Compared by the payees module; nothing of the other account is
   * read here.
   */
  async function sharedAccount(shopId: string, payeeId: string | null, holder: SuccessHolder | null): Promise<Elsewhere> {
    if (!holder || holder.sameShop) return false;
    if (!payeeId || !holder.payeeId) return 'same';
    const same = await deps.payees.sameAccount({ shopId, id: payeeId }, { shopId: holder.shopId, id: holder.payeeId });
    return same === false ? 'other' : 'same';
  }

  /**
   * Writes the record, completes or releases the image claim, settles the quota unit and enqueues
   * follow-ups in one transaction: a unit is kept exactly when a charged record commits with it.
   * The claim answers whether it is still ours: if a sweep or a takeover took it (our lease ran out),
   * its unit went with it, so a charged record takes a unit of its own and an uncharged one returns nothing.
   */
  async function persist(
    row: TransactionsTable,
    cacheable: boolean,
    key: ClaimKey,
    held: Reservation | null,
    alertStale: boolean,
  ): Promise<TransactionsTable> {
    const after: Array<() => Promise<void>> = [];
    const write = async (r: TransactionsTable) =>
      db.transaction().execute(async (trx) => {
        after.length = 0;
        await deps.transactions.insertIn(trx, r);
        let ours: boolean;
        if (cacheable) ours = await claims.complete(trx, key, r.id);
        else ours = (await claims.release(trx, key)) !== false;
        const unit: Reservation = held ?? {
          shopId: r.shop_id,
          period: quota.period().periodMonth,
          pool: r.environment === 'test' ? 'test' : 'live',
        };
        if (ours && held && !r.charged) {
          const x = await quota.releaseIn(trx, held);
          if (x.after) after.push(x.after);
        }
        if (!ours && r.charged) await quota.chargeIn(trx, unit);
        const now = clock.now();
        await enqueueOutbox(
          trx,
          { kind: RESULT_CREATED_JOB, shopId: r.shop_id, payload: { transactionId: r.id, shopId: r.shop_id, source: r.source } },
          now,
        );
        if (r.edited && r.status === 'SUCCESS' && deps.editMode === 'alert') {
          await enqueueOutbox(
            trx,
            { kind: OWNER_ALERT_JOB, shopId: r.shop_id, payload: { type: 'EDITED_SLIP', shopId: r.shop_id, transactionId: r.id } },
            now,
          );
        }
        if (alertStale && r.stale && r.status === 'SUCCESS' && deps.staleMode === 'alert') {
          await enqueueOutbox(
            trx,
            { kind: OWNER_ALERT_JOB, shopId: r.shop_id, payload: { type: 'STALE_SLIP', shopId: r.shop_id, transactionId: r.id } },
            now,
          );
        }
        return r;
      });
    let saved: TransactionsTable;
    try {
      saved = await write(row);
    } catch (err) {
      // Another image of the same transfer committed SUCCESS first, in this shop or in another shop
      // receiving into the same account: the database keeps one per transfer (migration 0020).
      if (row.success_ref && deps.caps.isUniqueViolation(err)) {
        // Named like a locally found DUPLICATE: the winner has committed, so its time can be read.
        const first = await deps.transactions.successHolder(row.shop_id, row.environment, row.success_ref);
        saved = await write({ ...row, ...duplicateOf(row, first?.createdAt, await sharedAccount(row.shop_id, row.payee_id, first)) });
      } else throw err;
    }
    for (const fn of after) await fn().catch((e) => deps.onError?.(e, 'quota release'));
    return saved;
  }

  /** Gives the claim back and, in the same transaction, the unit it held (a failed or refused check). */
  async function abandon(key: ClaimKey): Promise<void> {
    const after = await db.transaction().execute(async (trx) => {
      const held = await claims.release(trx, key);
      if (!held) return undefined;
      return (await quota.releaseIn(trx, { shopId: key.shopId, period: held.period, pool: held.pool })).after;
    });
    if (after) await after();
  }

  /**
   * The worker's sweep: claims whose owner died (lease run out, nobody retried) are deleted and their
   * unit returned, each in one transaction conditional on the dead owner, so a live takeover wins races.
   */
  async function sweepOrphans(): Promise<number> {
    let n = 0;
    for (const key of await claims.orphans()) {
      await abandon(key).then(
        () => {
          n++;
        },
        (e) => deps.onError?.(e, 'orphan sweep'),
      );
    }
    return n;
  }

  async function activePayees(shopId: string): Promise<PayeeAccountsTable[]> {
    const payees = await deps.payees.activeForMatching(shopId);
    if (!payees.length) {
      // Every channel's refusal passes here: the owner hears of them once a day (payee-refusals.ts).
      // Counting must not turn the refusal into a 500: the customer's answer matters more.
      await payeeRefusals.record(shopId).catch((e) => deps.onError?.(e, 'payee refusal alert'));
      throw new AppError(
        'NO_PAYEE_CONFIGURED',
        422,
        'This shop has no active payee account, so the receiver on a slip cannot be checked. Add the bank account or PromptPay id customers pay into, then send the slip again.',
      );
    }
    return payees;
  }

  type Owned =
    | { kind: 'cached'; transactionId: string; replayableUntil: number }
    | { kind: 'owner'; key: ClaimKey; reservation: Reservation | null; payees?: PayeeAccountsTable[] };

  /**
   * The request's claim. A new image's claim is written in the transaction that takes its quota unit,
   * after the payee check (a shop without payees writes nothing): one write transaction instead of an
   * insert that commits alone and a second transaction that marks it (on PostgreSQL, one commit and two
   * round trips fewer per verify). A claim taken over from a dead check comes with that check's unit,
   * if it had taken one; the caller takes one otherwise.
   */
  async function own(shop: Shop, plan: Plan, environment: 'live' | 'test', requestKey: string): Promise<Owned> {
    for (;;) {
      const claim = await claims.claim(shop.id, environment, requestKey);
      if (claim.kind === 'cached') return claim;
      if (claim.kind === 'owner') {
        const key: ClaimKey = { shopId: shop.id, scope: environment, hash: requestKey, token: claim.token };
        return { kind: 'owner', key, reservation: claim.inherited ? { shopId: shop.id, ...claim.inherited } : null };
      }
      const payees = await activePayees(shop.id);
      const key: ClaimKey = { shopId: shop.id, scope: environment, hash: requestKey, token: randomUUID() };
      try {
        // The claim goes in before the unit is taken: a twin upload of this image then meets it and
        // waits for its record, instead of meeting a pool this upload just emptied (a 402).
        const reservation = await quota.reserve(shop, plan, environment, undefined, async (trx, unit) => {
          if (!(await claims.insert(trx, key, unit))) throw new ClaimedMeanwhile();
        });
        return { kind: 'owner', key, reservation, payees };
      } catch (err) {
        if (!(err instanceof ClaimedMeanwhile)) throw err;
        // Read the other check's claim: wait for its record, or take it over if it dies.
      }
    }
  }

  /**
   * The transfer a picture refused at the quota wall (402) re-uses: this shop's SUCCESS for the slip's
   * transfer in `environment`, or null. The wall stands before the decoder, so without this a re-used
   * slip is told only "quota used up", and staff who then find the first payment's money in the bank
   * app deliver twice. Every channel asks it here (one rule, not one copy per channel): it decodes the
   * picture (`decoded` when the channel already did) and reads the record through the transactions
   * module, so it asks no checker, takes no unit and writes nothing. Any doubt (a busy or failed
   * decoder, no slip QR) is null: the caller keeps its quota answer.
   */
  async function reusedTransfer(
    shopId: string,
    image: Buffer,
    opts: { decoded?: DecodeResult | null; environment?: 'live' | 'test' } = {},
  ): Promise<TransactionRecord | null> {
    const d = opts.decoded ?? (await deps.decode(image, shopId).catch(() => null));
    if (!d?.ok) return null;
    const first = await deps.transactions.firstSuccess(shopId, opts.environment ?? 'live', d.transRef);
    if (!first) return null;
    // Gone between the two reads only if the shop was just erased: then there is nothing to name.
    return deps.transactions.get(shopId, first.id).catch((e: unknown) => {
      if (e instanceof AppError && e.statusCode === 404) return null;
      throw e;
    });
  }

  /**
   * What a channel throws for an error of `verifySlip`: a 402 told more when the refused picture re-uses a
   * transfer this shop credited in `environment` (reusedTransfer): the same code, quota and reason, the
   * message saying so for people (a POS shows it), and `firstUse` naming that record for programs and
   * the screens. Every other error, and a 402 of a picture that re-uses nothing, as it was.
   */
  async function atQuotaWall(err: unknown, shopId: string, image: Buffer, opts: { environment?: 'live' | 'test' } = {}): Promise<unknown> {
    if (!(err instanceof AppError) || err.statusCode !== 402) return err;
    const first = await reusedTransfer(shopId, image, opts);
    if (!first) return err;
    const at = readableLocalTime(new Date(first.createdAt), deps.timeZone ?? 'Asia/Bangkok');
    return new AppError(
      err.code,
      err.statusCode,
      `${err.message}. This slip's transfer was already verified successfully for this shop at ${at} (${first.id}): the slip is being re-used; do not hand over goods for it.`,
      { ...err.extra, firstUse: { transactionId: first.id, amount: first.amount, createdAt: first.createdAt } },
    );
  }

  return {
    sweepOrphans,
    reusedTransfer,
    atQuotaWall,
    /** Scheduled every minute (container.ts): tells owners that slips go unchecked for want of a payee account (payee-refusals.ts). */
    alertPayeeRefusals: payeeRefusals.alertDue,
    async verifySlip(input: VerifyInput): Promise<VerifyOutcome> {
      const started = performance.now();
      const environment = input.environment ?? 'live';
      checkImage(input.image);
      const { shop, plan } = await loadShop(input);
      // An identical request answered less than a second ago is answered from memory, found by the
      // image's fast fingerprint (image-hash.ts): such a replay costs no SHA-256.
      const memoryKey = requestParts(imageFingerprint(input.image), input);
      const remembered = replays.get(shop.id, environment, memoryKey);
      // Its quota too comes from this node's copy, at most as old as the memory (recent-usage.ts).
      if (remembered) return { record: remembered, ...(await quotaAfter(shop, plan, environment, { fromMemory: true })), isNew: false };
      const load = replays.begin();
      // The SHA-256 keys what lasts: the claim and the record's image_hash (off the main thread, image-hash.ts).
      const hash = await imageSha256(input.image);
      const requestKey = replayKey(hash, input);
      const claim = await own(shop, plan, environment, requestKey);
      if (claim.kind === 'cached') {
        // One primary-key read through the transactions module (it owns the table).
        const record = await deps.transactions.get(shop.id, claim.transactionId, { cached: true });
        replays.keep(load, { shopId: shop.id, scope: environment, requestKey: memoryKey, until: claim.replayableUntil }, record);
        return { record, ...(await quotaAfter(shop, plan, environment)), isNew: false };
      }
      const { key } = claim;
      const stopLease = claims.keepAlive(key);
      // The unit taken with a new claim, or the one a dead check's claim held; a takeover without one takes it below.
      let reservation: Reservation | null = claim.reservation;
      try {
        const payees = claim.payees ?? (await activePayees(shop.id));
        reservation ??= await quota.reserve(shop, plan, environment, (trx, res) =>
          claims.markReserved(trx, key, { pool: res.pool, period: res.period }),
        );
        await faultPoint('after-reserve');
        const decodeStart = process.hrtime.bigint();
        const observeDecode = () => metrics.stageDuration.observe({ stage: 'decode' }, secondsSince(decodeStart));
        // The printed amount is read only from an image whose slip QR decoded (never a refused one),
        // in the same decoder job, while the checker is asked below. The decoder reads this call's
        // buffer in place (no copy: it is not changed until the answer), which stays for the checker
        // call (a provider that checks from the image).
        let printed: Promise<PrintedRead | null> = Promise.resolve(null);
        let decoded: DecodeResult;
        const reader = (deps.editMode ?? 'off') !== 'off' ? deps.decodeAndRead : undefined;
        if (reader && (!input.decoded || input.decoded.ok)) {
          const both = await reader(input.image, shop.id).finally(observeDecode);
          decoded = input.decoded ?? both.decoded;
          printed = both.printed;
        } else {
          decoded = input.decoded ?? (await deps.decode(input.image, shop.id).finally(observeDecode));
        }
        let draft: Draft;
        const known = decoded.ok ? await deps.transactions.knownTransfer(shop.id, environment, decoded.transRef) : null;
        // Another shop's SUCCESS this shop's account was confirmed to receive: answered from that record,
        // not charged again. Only while that SUCCESS stands (an erased shop's is gone: then the bank is asked).
        const holder =
          decoded.ok && known?.elsewhere ? await deps.transactions.successHolder(shop.id, environment, decoded.transRef) : null;
        const first = known && (!known.elsewhere || (holder && !holder.sameShop)) ? known : null;
        if (!decoded.ok) {
          draft = {
            ...emptyDraft(),
            status: 'INVALID',
            error_code: decoded.errorCode,
            error_message: DECODE_MESSAGES[decoded.errorCode] ?? decoded.message,
          };
        } else if (first) {
          draft = duplicateOf(
            { ...emptyDraft(), ...fromFirst(first, decoded) },
            holder?.createdAt ?? first.created_at,
            first.elsewhere ? await sharedAccount(shop.id, first.payeeId, holder) : false,
          );
        } else {
          draft = await judge(
            shop.id,
            decoded,
            input.image,
            payees.map((p) => ({
              id: p.id,
              bankCode: p.bank_code,
              kind: p.kind as 'BANK' | 'PROMPTPAY',
              accountNumber: p.account_number,
              proxyType: p.proxy_type,
              holder: p.holder,
              status: p.status,
            })),
            input.expectedAmountSatang,
          );
          // Waits for the slower of checker and reader, not their sum: both ran at the same time.
          if (draft.amount_satang !== null) draft = { ...draft, ...judgePrinted(draft, await printed, deps.editMode ?? 'off') };
          await faultPoint('after-check');
        }
        const usedAfter = draft.charged ? reservation.used : undefined;
        const now = clock.now();
        const row: TransactionsTable = {
          ...draft,
          id: newId('txn', now.getTime()),
          shop_id: shop.id,
          source: input.source,
          environment,
          expected_amount_satang: input.expectedAmountSatang ?? null,
          latency_ms: Math.round(performance.now() - started),
          client_ref: input.clientRef ?? null,
          image_hash: hash,
          api_key_id: input.apiKeyId ?? null,
          anonymized_at: null,
          created_at: now.toISOString(),
        };
        // A provider failure must really be retried next time, so it is never replayed from the cache.
        const alertStale = settingsOf(shop).notifications.staleSlipAlerts;
        const persistStart = process.hrtime.bigint();
        // Nor is "cannot be checked here" (the operator may configure a provider that can), nor a stopped
        // decode (killed past its time limit on a busy node): neither is a verdict on the image.
        const stopped = !decoded.ok && decoded.stopped === true;
        const cacheable = draft.status !== 'PROVIDER_ERROR' && draft.error_code !== 'CHECK_NOT_SUPPORTED' && !stopped;
        const saved = await persist(row, cacheable, key, reservation, alertStale);
        metrics.stageDuration.observe({ stage: 'database' }, secondsSince(persistStart));
        reservation = null; // charged and recorded together, or returned in the record's transaction
        metrics.verifyOutcomes.inc({ status: saved.status, source: saved.source, environment: saved.environment });
        const record = recordFromRow(saved);
        void deps.bus.publish({ shopId: shop.id, type: 'transaction.created', data: record }).catch((e) => deps.onError?.(e, 'bus'));
        // A charge that became a DUPLICATE at persist (unique key) is still charged: usedAfter stands.
        const after = await quotaAfter(shop, plan, environment, { usedAfter: saved.charged ? usedAfter : undefined });
        if (saved.charged && environment === 'live')
          await quotaAlert(shop.id, after.quota, plan.code === TRIAL_PLAN).catch((e) => deps.onError?.(e, 'quota alert'));
        return { record, ...after, isNew: true };
      } catch (err) {
        // Nothing was recorded: the claim and the unit it holds go back together. If this fails too,
        // the lease runs out and a retry or the sweep does it.
        await abandon(key).catch((e) => deps.onError?.(e, 'claim release'));
        throw err;
      } finally {
        stopLease();
      }
    },
  };
}
export type VerificationService = ReturnType<typeof createVerificationService>;

import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { QuotaReason } from '../../lib/error-codes.js';
import type { ShopService } from '../shops/shop-service.js';
import type { DecodeResult } from '../slip-qr/slip-qr-decoder.js';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import {
  LineApiError,
  LineContentGoneError,
  LineContentTooLargeError,
  LineReplyUncertainError,
  messageDigest,
  retryKeyFor,
  type LineClient,
  type LineMessage,
} from './line-client.js';
import type { LineChannelService } from './line-channel-service.js';
import type { LineDeliveryRepo } from './line-delivery-repo.js';
import type { LineEventJobPayload } from './line-event-log.js';
import { chatIdOf, isGroupChat, sanitizeLineEvent, type LineEvent } from './line-event-types.js';
import type { LineGroupService } from './line-group-service.js';
import { LINK_CODE_PATTERN, looksLikeLinkCode, type LineLinkCodeService } from './line-link-code-service.js';
import { msg, noSlipMessage, resultMessage, type Audience, type Lang } from './line-messages.js';
import type { LineOwnerService } from './line-owner-service.js';
import type { LineChannelsTable } from './line-tables.js';
import type { MonthlyLimitGate } from './line-monthly-limit.js';

/** Decoder answers meaning "this picture holds no slip QR": a group chat hears nothing about it. */
const NOT_A_SLIP = new Set(['NO_QR_FOUND', 'NOT_SLIP_QR', 'UNREADABLE_IMAGE']);
/**
 * Any 8-letter word ("THANKYOU") matches the code shape. An unknown code gets the "invalid code"
 * answer only when written as shown in the dashboard (with the dash, from the code alphabet);
 * otherwise it was just a word or an order number.
 */
const looksTyped = looksLikeLinkCode;
/** How long a LINE job waits for a place in a full decoder queue before failing into the outbox's retry. */
const DECODER_WAIT_MS = 20_000;
// Not "ยกเลิก" alone: that is how a Thai shop chat cancels an order, and it unlinked the group (or drew
// "only the linker can unlink" into a customer's chat).
const UNLINK_COMMAND = /^\s*(unlink|ยกเลิกการเชื่อมต่อ)\s*$/i;

export interface LineEventHandlerDeps {
  clock: Clock;
  channels: Pick<LineChannelService, 'credentials'>;
  groups: Pick<LineGroupService, 'active' | 'unlinkByCommand' | 'left' | 'joined'>;
  owners: Pick<LineOwnerService, 'unlinkByCommand'>;
  linkCodes: Pick<LineLinkCodeService, 'redeem'>;
  delivery: LineDeliveryRepo;
  /** Whether LINE's monthly limit holds this OA's pushes back (asked again every few minutes: line-monthly-limit.ts). */
  pushGate: MonthlyLimitGate;
  client: LineClient;
  shops: Pick<ShopService, 'get'>;
  /** The records the events' images produced (read back on a re-run). */
  transactions: Pick<TransactionService, 'get' | 'list'>;
  /** The shared pipeline: the verification service's verifySlip. */
  verifySlip: (input: {
    shopId: string;
    source: 'LINE';
    image: Buffer;
    decoded?: DecodeResult;
  }) => Promise<{ record: TransactionRecord; isNew: boolean }>;
  /**
   * The verification service's reusedTransfer: the SUCCESS in this shop of the transfer a picture
   * refused at the quota wall re-uses (decoding it unless `decoded` is given), or null.
   */
  reusedTransfer: (shopId: string, image: Buffer, opts: { decoded?: DecodeResult | null }) => Promise<TransactionRecord | null>;
  /** Optional pre-check in groups: a non-slip picture then costs no record and no quota interaction. */
  /** `shopId` keys the decoder pool's fair share between shops. */
  decode?: (image: Buffer, shopId?: string) => Promise<DecodeResult>;
  timeZone: string;
  replyTokenTtlSeconds: number;
  /** https://liff.line.me/<LIFF_ID> when the mini-app is set up: offered to staff once a group is linked. */
  miniAppUrl?: string | null;
  log?: { warn(obj: unknown, msg?: string): void };
}

/**
 * Processes one LINE webhook event (an outbox job of kind `line.event`). Safe to run again after a
 * failure or a crash: the event remembers its record (and whether it created it) and how far its
 * answer got (line-delivery-repo), and pushes carry a retry key per event and message.
 */
export function createLineEventHandler(deps: LineEventHandlerDeps) {
  const { client, shops, clock, delivery: repo } = deps;
  /** The lease signal of the job handling each event (one sanitised event object per run). */
  const leaseLost = new WeakMap<LineEvent, AbortSignal>();

  /** The shop's record by id (shop-scoped), as the event that created it (or not) saw it. */
  async function recordOf(shopId: string, transactionId: string, created: boolean): Promise<TransactionRecord | null> {
    const record = await deps.transactions.get(shopId, transactionId).catch((e: unknown) => {
      if (e instanceof AppError && e.statusCode === 404) return null;
      throw e;
    });
    return record ? { ...record, cached: !created } : null;
  }

  /** A DUPLICATE's first use: the earliest SUCCESS of the same transfer in the same shop and environment. */
  async function firstUse(shopId: string, r: TransactionRecord): Promise<{ amount: number | null; createdAt: string } | null> {
    if (!r.transRef) return null;
    // Newest first; one SUCCESS per transfer and environment (unique success_ref), so one page holds them all.
    const { items } = await deps.transactions.list(shopId, {
      transRef: r.transRef,
      environment: r.environment,
      status: 'SUCCESS',
      limit: 100,
    });
    const first = items.filter((t) => t.id !== r.id).at(-1);
    return first ? { amount: first.amount, createdAt: first.createdAt } : null;
  }

  /**
   * Reply while the token is fresh (replies are free; pushes draw on the OA's monthly allowance).
   * A used/expired token (400) falls back to push, except after a reply attempt that timed out: LINE
   * may have posted it, so a push would post it twice. What got through is stored with the event, so a
   * re-run of the job does not answer again. A push's retry key names the event, the purpose and the
   * exact messages: a re-run with the same answer is dropped by LINE, a different answer is not.
   */
  async function answer(
    token: string,
    ch: LineChannelsTable,
    event: LineEvent,
    messages: LineMessage[],
    purpose = 'answer',
  ): Promise<'reply' | 'push' | 'none'> {
    if (!messages.length) return 'none';
    // A job that ran past its lease may already run again on another claim: only that run answers
    // (two runs racing here both saw "not answered yet": a reply, then a push, in the chat).
    if (leaseLost.get(event)?.aborted) throw new Error('LINE event job ran past its lease: its new run answers');
    const state = (await repo.outcome(event.webhookEventId)).answerState;
    if (state === 'replied' || state === 'pushed') return 'none';
    const age = clock.now().getTime() - Number(event.timestamp || 0);
    if (event.replyToken && age < deps.replyTokenTtlSeconds * 1000) {
      try {
        await client.reply(token, event.replyToken, messages, { uncertainBefore: state === 'uncertain' });
        await repo.setAnswerState(event.webhookEventId, 'replied');
        return 'reply';
      } catch (e) {
        if (e instanceof LineReplyUncertainError) {
          await repo.setAnswerState(event.webhookEventId, 'uncertain');
          throw e;
        }
        if (!(e instanceof LineApiError && e.status === 400)) throw e;
      }
    } else if (state === 'uncertain') {
      deps.log?.warn({ lineChannelId: ch.id }, 'LINE reply timed out and its token has expired: not pushing blindly');
      return 'none';
    }
    const to = chatIdOf(event.source);
    if (!to) return 'none';
    if (await deps.pushGate.blocked(ch.shop_id, ch.id, token)) return 'none'; // LINE would refuse it (monthly limit)
    try {
      const r = await client.push(token, to, messages, retryKeyFor(`${event.webhookEventId}:${purpose}:${messageDigest(messages)}`));
      if (r === 'sent') await repo.countPush(ch.id);
    } catch (e) {
      if (e instanceof LineApiError && e.monthlyLimit) {
        // Not retried (the job ends); the owner hears it once by e-mail and in the dashboard. The mark lifts
        // when LINE lets the account push again (line-monthly-limit.ts).
        await repo.markMonthlyLimit(ch.shop_id, ch.id);
        return 'none';
      }
      throw e;
    }
    await repo.setAnswerState(event.webhookEventId, 'pushed');
    return 'push';
  }

  async function onText(ch: LineChannelsTable, token: string, lang: Lang, event: LineEvent): Promise<void> {
    const textIn = (event.message?.text ?? '').trim();
    const src = event.source;
    if (!src) return;
    if (isGroupChat(src)) {
      const groupId = chatIdOf(src)!;
      if (LINK_CODE_PATTERN.test(textIn)) {
        const r = await deps.linkCodes.redeem(ch, textIn, { kind: 'group', groupId, userId: src.userId ?? null, at: event.timestamp });
        if (!r.ok && r.reason === 'INVALID' && !looksTyped(textIn)) return;
        await answer(
          token,
          ch,
          event,
          r.ok ? msg.groupLinked(lang, r.shopName, deps.miniAppUrl ?? null) : codeFailure(lang, r.reason, r.limit),
        );
        return;
      }
      if (UNLINK_COMMAND.test(textIn)) {
        const r = await deps.groups.unlinkByCommand(ch.id, groupId, src.userId ?? null);
        if (r === 'UNLINKED') await answer(token, ch, event, msg.groupUnlinked(lang));
        else if (r === 'NOT_LINKER') await answer(token, ch, event, msg.notLinker(lang));
      }
      return; // ordinary chatter in a group: never answered
    }
    if (!src.userId) return;
    if (LINK_CODE_PATTERN.test(textIn)) {
      const r = await deps.linkCodes.redeem(ch, textIn, { kind: 'owner', userId: src.userId });
      if (!r.ok && r.reason === 'INVALID' && !looksTyped(textIn)) return;
      await answer(
        token,
        ch,
        event,
        r.ok
          ? msg.ownerLinked(lang, r.shopName)
          : r.reason === 'ALREADY_LINKED'
            ? msg.ownerAlreadyLinked(lang)
            : codeFailure(lang, r.reason, r.limit),
      );
      return;
    }
    if (UNLINK_COMMAND.test(textIn) && (await deps.owners.unlinkByCommand(ch.id, src.userId))) {
      await answer(token, ch, event, msg.ownerUnlinked(lang));
    }
    // Other 1:1 text belongs to the official account's own chat (auto-replies, staff): not ours.
  }

  function codeFailure(lang: Lang, reason: string, limit?: number): LineMessage[] {
    switch (reason) {
      case 'EXPIRED':
        return msg.codeExpired(lang);
      case 'USED':
        return msg.codeUsed(lang);
      case 'GROUP_LIMIT':
        return msg.groupLimit(lang, limit ?? 0);
      case 'ALREADY_LINKED':
        return msg.groupAlreadyLinked(lang);
      case 'NOT_OWNER_CODE':
        return msg.codeNotOwner(lang);
      default:
        return msg.codeInvalid(lang);
    }
  }

  async function onImage(ch: LineChannelsTable, token: string, lang: Lang, event: LineEvent): Promise<void> {
    const src = event.source;
    const messageId = event.message?.id;
    if (!src || !messageId) return;
    const external = event.message?.contentProvider?.type === 'external';
    let silentNonSlip = false;
    if (isGroupChat(src)) {
      if (external) return; // a shared link in a group chat is not a slip sent to the shop
      const group = await deps.groups.active(ch.id, chatIdOf(src)!);
      if (!group) return; // not linked: the join prompt already said how to link
      silentNonSlip = group.silentNonSlip;
    }
    const audience: Audience = isGroupChat(src) ? 'staff' : 'customer';

    // A re-run of this job answers what the first run would have: the record this event produced,
    // shown as fresh when this event created it (not "already sent"), without downloading again.
    const done = await repo.outcome(event.webhookEventId);
    if (done.answerState === 'replied' || done.answerState === 'pushed') return;
    if (done.transactionId) {
      const rec = await recordOf(ch.shop_id, done.transactionId, done.createdRecord);
      if (rec) {
        await answerRecord(token, ch, event, rec, !done.createdRecord, lang, audience);
        return;
      }
    }
    // No reply token left and the OA's monthly allowance is used up: nothing could be said, so do not
    // download or check (a check would be charged for an answer nobody sees).
    const age = clock.now().getTime() - Number(event.timestamp || 0);
    if (!(event.replyToken && age < deps.replyTokenTtlSeconds * 1000) && (await deps.pushGate.blocked(ch.shop_id, ch.id, token))) return;

    let image: Buffer;
    try {
      const url = event.message?.contentProvider?.originalContentUrl;
      if (external && !url) throw new LineContentGoneError('external image without a URL');
      image = external ? await client.getExternalContent(url!) : await client.getContent(token, messageId);
    } catch (e) {
      if (e instanceof LineContentGoneError) {
        await answer(token, ch, event, msg.contentGone(lang));
        return;
      }
      if (e instanceof LineContentTooLargeError) {
        if (!silentNonSlip) await answer(token, ch, event, msg.tooLarge(lang));
        return;
      }
      deps.log?.warn({ err: (e as Error).message, lineChannelId: ch.id }, 'LINE content download failed');
      await answer(token, ch, event, msg.contentFailed(lang));
      return;
    }

    let preDecoded: DecodeResult | null = null;
    let preStopped = false;
    if (silentNonSlip && deps.decode) {
      // The decoder reads the buffer in place and leaves it as it was: the pipeline uses the same one.
      preDecoded = await deps.decode(image, ch.shop_id).catch(() => null);
      if (preDecoded && !preDecoded.ok && preDecoded.stopped) {
        // Stopped past the decoder's time limit (a busy machine) or its decoder died: no verdict on the
        // picture. Taken for "no slip", a genuine slip got no answer and no record; the pipeline decodes
        // it again, and if that is stopped too, staff hear that it could not be read (they can send it again).
        preDecoded = null;
        preStopped = true;
      } else if (preDecoded && !preDecoded.ok && NOT_A_SLIP.has(preDecoded.errorCode)) return;
    }

    let record: TransactionRecord;
    let isNew: boolean;
    try {
      ({ record, isNew } = await verifyWhenDecoderFree({ shopId: ch.shop_id, source: 'LINE', image, decoded: preDecoded ?? undefined }));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      if (e.statusCode === 402) {
        // The wall stands before the decoder: a re-used slip would be told "the shop will confirm
        // manually", and staff, finding the first payment's money in the bank app, would deliver twice.
        // The pipeline refused before decoding; the picture is decoded here once (for the re-use lookup
        // too). No slip QR: say so, as below the wall, not "the shop will confirm your payment manually".
        const decoded = preDecoded ?? (deps.decode ? await deps.decode(image, ch.shop_id).catch(() => null) : null);
        // (A decode stopped past its time limit says nothing about the picture: the quota answer stands.)
        if (decoded && !decoded.ok && !decoded.stopped && NOT_A_SLIP.has(decoded.errorCode)) {
          if (!silentNonSlip) await answer(token, ch, event, [noSlipMessage(lang, audience)]);
          return;
        }
        const reused = await reusedTransfer(ch.shop_id, image, decoded);
        if (reused) {
          const original = { amount: reused.amount, createdAt: reused.createdAt };
          await answer(token, ch, event, [resultMessage(reused, lang, deps.timeZone, { audience, replay: false, original })]);
          return;
        }
        // The quota service decided why (trial ended, the trial's or the month's slips used up); its
        // answer says so, not a second copy of the rule.
        const reason = e.extra.reason as QuotaReason | undefined;
        if (reason === 'TRIAL_ENDED') {
          await answer(token, ch, event, msg.trialEnded(lang, audience));
          return;
        }
        const trial = reason === 'TRIAL_QUOTA';
        await answer(token, ch, event, trial ? msg.trialQuota(lang, audience) : msg.quotaExhausted(lang, audience));
        await alertQuotaExhausted(ch.shop_id, trial);
        return;
      }
      if (e.code === 'NO_PAYEE_CONFIGURED') {
        await answer(token, ch, event, msg.noPayee(lang, audience));
        return;
      }
      if (e.code === 'INVALID_IMAGE') {
        if (!silentNonSlip) await answer(token, ch, event, msg.badImage(lang));
        return;
      }
      if (e.code === 'PAYLOAD_TOO_LARGE') {
        if (!silentNonSlip) await answer(token, ch, event, msg.tooLarge(lang));
        return;
      }
      if (e.statusCode < 500) return; // e.g. a suspended shop: nothing useful to say in a chat
      throw e;
    }
    await repo.saveRecord(event.webhookEventId, record.id, isNew);
    // A completed decode that found no slip stays silent; an unreadable one after a stopped pre-decode
    // was most likely stopped again (the record does not say): answered, not taken for a photo.
    const stoppedTwice = preStopped && record.errorCode === 'UNREADABLE_IMAGE';
    if (silentNonSlip && record.status === 'INVALID' && record.errorCode && NOT_A_SLIP.has(record.errorCode) && !stoppedTwice) return;
    await answerRecord(token, ch, event, record, !isNew, lang, audience);
  }

  /**
   * The worker runs up to WORKER_CONCURRENCY LINE jobs at once against a decoder pool that queues 16
   * images per decoder, so a burst of slips meets DECODER_BUSY. An API caller is told to come back;
   * this job is its own caller, so it waits for a place (up to DECODER_WAIT_MS, well inside the job's
   * lease) instead of failing into the outbox's backoff. Failing made the chaos soak answer bursts
   * minutes late, by push (the reply token had expired) or not within the run at all.
   */
  async function verifyWhenDecoderFree(input: Parameters<LineEventHandlerDeps['verifySlip']>[0]) {
    const giveUpAt = Date.now() + DECODER_WAIT_MS; // wall time: the service clock may be a test's fixed clock
    for (;;) {
      try {
        return await deps.verifySlip(input);
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'DECODER_BUSY') || Date.now() >= giveUpAt) throw e;
        await new Promise((r) => setTimeout(r, 200 + Math.random() * 300));
      }
    }
  }

  async function answerRecord(
    token: string,
    ch: LineChannelsTable,
    event: LineEvent,
    record: TransactionRecord,
    replay: boolean,
    lang: Lang,
    audience: Audience,
  ): Promise<void> {
    const original = record.status === 'DUPLICATE' ? await firstUse(ch.shop_id, record) : null;
    await answer(token, ch, event, [resultMessage(record, lang, deps.timeZone, { audience, replay, original })]);
  }

  /**
   * A picture refused at the quota wall (402: nothing decoded, charged or recorded) whose slip names a
   * transfer this shop already credited: its DUPLICATE answer, built from that SUCCESS record (which is
   * also its first use), costs no checker call and no quota unit, so it is given instead of "confirm
   * manually". Finding the record is the verification service's (the dashboard asks the same); nothing
   * is recorded (the pipeline refused the check). Any doubt (busy decoder, no slip) keeps the quota answer.
   */
  async function reusedTransfer(shopId: string, image: Buffer, decoded: DecodeResult | null): Promise<TransactionRecord | null> {
    const first = await deps.reusedTransfer(shopId, image, { decoded });
    if (!first) return null;
    return {
      ...first,
      status: 'DUPLICATE',
      verified: false,
      duplicate: true,
      cached: false,
      stale: false,
      edited: false,
      printedAmount: null,
      errorCode: 'DUPLICATE',
      errorMessage: 'This transfer was already verified successfully for this shop: the slip is being re-used.',
    };
  }

  /** The owner hears once per period that LINE slips hit the quota wall (the owner.alert handler dedupes too). */
  async function alertQuotaExhausted(shopId: string, trial: boolean): Promise<void> {
    await repo.alertOnce(shopId, 'LINE_QUOTA_EXHAUSTED', repo.period(), {
      type: 'QUOTA_100',
      shopId,
      detail: { via: 'LINE', reason: 'QUOTA_EXCEEDED', ...(trial && { trial }) },
    });
  }

  return {
    /**
     * `shopId`: the shop that held the channel when LINE delivered the event (the job's shop, written
     * by the event log from the channel row at that moment). `signal`: the outbox job's lease (aborted
     * when it ran out and the job may be taken back).
     */
    async handle(payload: LineEventJobPayload, job: { shopId: string | null; signal?: AbortSignal }): Promise<void> {
      // Jobs stored before ingest sanitised events (or written by hand) get the same checks here.
      const event = sanitizeLineEvent(payload?.event);
      if (!event || typeof payload.lineChannelId !== 'string') return;
      if (job.signal) leaseLost.set(event, job.signal);
      if (event.mode === 'standby') return; // another module owns the chat
      const creds = await deps.channels.credentials(payload.lineChannelId);
      // A shop that unlinks an official account keeps its row, and another shop linking the same
      // account takes that row over (same id, its shop id): the channel id alone would run an event
      // still queued for the first shop as the new shop's (its quota charged, its record, its bot
      // answering the first shop's customer). The event is the shop's it was delivered for, or nobody's.
      if (!creds || !job.shopId || creds.row.shop_id !== job.shopId) {
        deps.log?.warn(
          { lineChannelId: payload.lineChannelId, shopId: job.shopId, webhookEventId: event.webhookEventId, eventType: event.type },
          creds
            ? 'LINE event dropped: its official account is linked to another shop now'
            : 'LINE event dropped: its official account was unlinked',
        );
        return;
      }
      const shop = await shops.get(creds.row.shop_id).catch(() => null);
      if (!shop) return;
      const lang: Lang = shop.language === 'en' ? 'en' : 'th';
      const { row: ch, token } = creds;
      const src = event.source;

      switch (event.type) {
        case 'join': {
          if (!isGroupChat(src)) return;
          const linked = await deps.groups.active(ch.id, chatIdOf(src)!);
          // Noted before answering: a leave of the bot's earlier stay, redelivered late, must not unlink it.
          if (linked) await deps.groups.joined(ch.id, chatIdOf(src)!, event.timestamp);
          await answer(token, ch, event, linked ? msg.groupAlreadyLinked(lang) : msg.joinPrompt(lang));
          return;
        }
        case 'leave':
          if (isGroupChat(src)) await deps.groups.left(ch.id, chatIdOf(src)!, event.timestamp);
          return;
        case 'message':
          if (event.message?.type === 'text') return onText(ch, token, lang, event);
          if (event.message?.type === 'image') return onImage(ch, token, lang, event);
          return;
        default:
          return;
      }
    },
  };
}
export type LineEventHandler = ReturnType<typeof createLineEventHandler>;

import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { MailContent } from './mail-templates.js';
import { createMailRepo } from './mail-repo.js';
import { deleteInBatches } from '../../db/batched-delete.js';

/**
 * Days a sent message stays in `mail_messages` (its address and subject; in the development sink its
 * body too, reset links included). Long enough to answer "did the reset mail go out?" or read a sink
 * link; the hourly `mail.prune` task deletes older rows. A job retried by hand after this long may
 * send its e-mail again (the dedupe row is gone); the outbox parks failed jobs for as long.
 */
export const MAIL_RETENTION_DAYS = 30;

export interface SentMail {
  id: string;
  to: string;
  subject: string;
  template: string;
  text: string | null;
  transport: 'sink' | 'smtp';
  status: string;
  error: string | null;
  createdAt: string;
}

/** A message as a data export lists it (no body, no id, no transport detail). */
export interface ExportedMail {
  to: string;
  subject: string;
  template: string;
  /** stored (development sink), sending, sent or failed */
  status: string;
  createdAt: string;
}

/** Header values are one line: a CR/LF (e.g. from a shop name) must never start a new header. */
export const headerSafe = (s: string) => s.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
/** Exactly one mailbox: no address-list separators, brackets, quotes, spaces or control characters. */
const SINGLE_MAILBOX = /^[^\s@,;<>()[\]\\":\u0000-\u001f\u007f]+@[^\s@,;<>()[\]\\":\u0000-\u001f\u007f]+$/;

export interface MailLogger {
  warn(obj: unknown, msg?: string): void;
}

/**
 * One port, two adapters: SMTP (nodemailer) when SMTP_URL is set, else a development sink in the
 * database that the operator reads with `slipcheck mail list`. With SMTP the body is not stored
 * (it can hold a reset link); the row keeps only the outcome. Sending never blocks a request on the
 * SMTP server: `send` records the row and delivers in the background (close() waits for it).
 */
export function createMailService(deps: { db: Db; clock: Clock; smtpUrl?: string; from: string; log?: MailLogger }) {
  const { clock } = deps;
  const repo = createMailRepo(deps.db);
  const transport = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;
  const pending = new Set<Promise<void>>();

  return {
    kind: (transport ? 'smtp' : 'sink') as 'smtp' | 'sink',
    /**
     * Records and sends one message. With `dedupeKey` (e.g. an outbox job id plus the address) a retry
     * of the same job sends nothing: the row id is derived from the key and the insert is idempotent.
     * Answers null when the message was already sent.
     */
    async send(to: string, content: MailContent, shopId: string | null = null, opts: { dedupeKey?: string } = {}): Promise<string | null> {
      // Defence in depth: callers pass validated addresses, but a stored value must not become a second
      // recipient or an injected header; such a message is recorded as failed and never handed to SMTP.
      const badRecipient = !SINGLE_MAILBOX.test(to);
      const subject = headerSafe(content.subject);
      const id = opts.dedupeKey ? `mail_${createHash('sha256').update(opts.dedupeKey).digest('hex').slice(0, 26)}` : newId('mail');
      const inserted = await repo.insertOnce({
        id,
        to_addr: badRecipient ? headerSafe(to).toLowerCase() : to.toLowerCase(),
        subject,
        template: content.template,
        body_text: transport || badRecipient ? null : content.text,
        transport: transport ? 'smtp' : 'sink',
        status: badRecipient ? 'failed' : transport ? 'sending' : 'stored',
        error: badRecipient ? 'invalid recipient' : null,
        shop_id: shopId,
        created_at: clock.now().toISOString(),
      });
      if (opts.dedupeKey && !inserted) return null;
      if (badRecipient) {
        deps.log?.warn({ mailId: id }, 'mail not sent: invalid recipient');
        return id;
      }
      if (transport) {
        const p = transport
          .sendMail({ from: deps.from, to, subject, text: content.text })
          .then(() => repo.setOutcome(id, { status: 'sent' }))
          .catch((err: Error) => {
            deps.log?.warn({ mailId: id, err: err.message }, 'mail delivery failed');
            return repo.setOutcome(id, { status: 'failed', error: err.message.slice(0, 500) });
          })
          .then(
            () => undefined,
            () => undefined,
          );
        pending.add(p);
        void p.finally(() => pending.delete(p));
      }
      return id;
    },
    /**
     * The messages a person's data export lists (`mail-repo.ts` `forExport` says which): recipient,
     * subject, template, outcome and time. Never the body: in the development sink it holds live reset
     * and invitation links, which a downloaded file must not carry.
     */
    async listForExport(f: { shopId: string; address: string; since: string; invitesOfShop: boolean }): Promise<ExportedMail[]> {
      const rows = await repo.forExport({ ...f, address: f.address.toLowerCase() });
      return rows.map((r) => ({ to: r.to_addr, subject: r.subject, template: r.template, status: r.status, createdAt: r.created_at }));
    },
    async list(opts: { to?: string; limit?: number } = {}): Promise<SentMail[]> {
      const rows = await repo.list({ to: opts.to?.toLowerCase(), limit: opts.limit ?? 50 });
      return rows.map((r) => ({
        id: r.id,
        to: r.to_addr,
        subject: r.subject,
        template: r.template,
        text: r.body_text,
        transport: r.transport as 'sink' | 'smtp',
        status: r.status,
        error: r.error,
        createdAt: r.created_at,
      }));
    },
    /** Retention: messages older than MAIL_RETENTION_DAYS go, in bounded batches (`renew` between them). */
    async prune(renew?: () => Promise<void>): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - MAIL_RETENTION_DAYS * 86_400_000).toISOString();
      return deleteInBatches((limit) => repo.deleteBefore(cutoff, limit), renew);
    },
    async close() {
      await Promise.allSettled([...pending]);
      transport?.close();
    },
  };
}
export type MailService = ReturnType<typeof createMailService>;

import { ApiError } from '../api/client';
import type { MessageKey } from '../i18n/th';

// What the server refuses in a form field, checked in the page first so the person reads why in their
// own language beside the field. The server's VALIDATION_ERROR messages are English rules for developers
// ("accountNumber must be 10 to 15 digits"); they must never reach a Thai page as they are.

/** Controls, line breaks and the bidi override/isolate characters: the server's SINGLE_LINE_PATTERN (http/input-guard.ts). */
const NOT_SINGLE_LINE = /[\u0000-\u001F\u007F\u202A-\u202E\u2066-\u2069]/;

/** A single-line name (shop name, account holder): 1 to 120 characters once trimmed, no invisible controls. */
export function nameProblem(value: string): MessageKey | null {
  const name = value.trim();
  if (!name) return 'form.nameEmpty';
  if (name.length > 120) return 'form.nameTooLong';
  if (NOT_SINGLE_LINE.test(value)) return 'form.nameBadChars';
  return null;
}

const PROMPTPAY_RULES: Record<string, { re: RegExp; key: MessageKey }> = {
  PHONE: { re: /^0\d{9}$/, key: 'payees.error.PHONE' },
  NATID: { re: /^\d{13}$/, key: 'payees.error.NATID' },
  EWALLET: { re: /^\d{15}$/, key: 'payees.error.EWALLET' },
};
const BANK_RULE = { re: /^\d{10,15}$/, key: 'payees.error.accountNumber' } as const;
const numberRule = (kind: 'BANK' | 'PROMPTPAY', proxyType: string) =>
  kind === 'BANK' ? BANK_RULE : (PROMPTPAY_RULES[proxyType] ?? PROMPTPAY_RULES.PHONE);

/** The sentence that says what a payee number of this kind must be. */
export const payeeNumberRule = (kind: 'BANK' | 'PROMPTPAY', proxyType: string): MessageKey => numberRule(kind, proxyType).key;

/** A payee's number as payee-service.ts checks it: spaces and dashes are dropped, the rest must be digits of the kind's length. */
export function payeeNumberProblem(kind: 'BANK' | 'PROMPTPAY', proxyType: string, value: string): MessageKey | null {
  const rule = numberRule(kind, proxyType);
  return rule.re.test(value.replace(/[\s-]/g, '')) ? null : rule.key;
}

/**
 * A LINE official account's three values as line-channel-service.ts checks them before asking LINE:
 * the field that is wrong and what it must be, or null. A secret pasted in the token box is the usual slip.
 */
export function lineChannelProblem(v: { channelId: string; channelSecret: string; accessToken: string }): {
  field: 'channelId' | 'channelSecret' | 'accessToken';
  key: MessageKey;
} | null {
  const token = v.accessToken.trim();
  if (!/^\d{5,20}$/.test(v.channelId.trim())) return { field: 'channelId', key: 'line.error.channelId' };
  if (!/^[A-Za-z0-9]{16,128}$/.test(v.channelSecret.trim())) return { field: 'channelSecret', key: 'line.error.channelSecret' };
  if (token.length < 20 || token.length > 2000 || /\s/.test(token)) return { field: 'accessToken', key: 'line.error.accessToken' };
  return null;
}

/**
 * The body field a VALIDATION_ERROR is about: schema refusals say `Invalid body field "shopName": ...`,
 * the payee rules `accountNumber must ...` or `PromptPay id must ...`. Null for any other error.
 */
export function invalidField(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_ERROR') return null;
  const m = error.message;
  return (
    /field "(\w+)"/.exec(m)?.[1] ??
    /^(\w+) (?:must|does not look like)\b/.exec(m)?.[1] ??
    (/^PromptPay id\b/.test(m) ? 'accountNumber' : null)
  );
}

/**
 * A refusal the form can show beside one of its fields (`fields`: field name to sentence); null when the
 * error is about something else, which the form then shows as before.
 */
export function fieldRefusal(error: unknown, fields: Partial<Record<string, MessageKey>>): { field: string; key: MessageKey } | null {
  const field = invalidField(error);
  const key = field ? fields[field] : undefined;
  return field && key ? { field, key } : null;
}

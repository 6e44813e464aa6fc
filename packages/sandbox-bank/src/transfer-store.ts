import { buildSlipPayload, buildTrueMoneyPayload, randomTransRef } from './slip-payload.js';

export type Fault = 'pending' | 'error' | 'timeout' | 'not_found';
export type ProxyType = 'PHONE' | 'NATID' | 'EWALLET';

/** Pseudo bank code for TrueMoney wallet transfers (their slips carry the wallet QR layout). */
export const TRUEMONEY = 'TRUEMONEY';

export interface Party {
  name: string;
  nameEn?: string;
  /** Digits only (dashes are stripped on input); absent for a pure PromptPay proxy. */
  account?: string;
}

export interface Transfer {
  transRef: string;
  /** 3-digit bank code, or TRUEMONEY. */
  sendingBank: string;
  receivingBank: string;
  amount: number;
  transDate: Date;
  sender: Party;
  receiver: Party & { proxy?: { type: ProxyType; value: string } };
  payload: string;
  fault?: Fault;
  createdAt: Date;
}

export interface NewTransfer {
  sendingBank: string;
  amount: number;
  sender: Party;
  receiver: Party & { bankCode: string; proxy?: { type: ProxyType; value: string } };
  transDate?: Date;
  transRef?: string;
  fault?: Fault;
}

function ddMMyyyyThai(d: Date): string {
  const th = new Date(d.getTime() + 7 * 3600_000).toISOString();
  return th.slice(8, 10) + th.slice(5, 7) + th.slice(0, 4);
}

/** Builds a transfer (with its slip payload) without storing it: shared by the store and generateSlip. */
export function makeTransfer(input: NewTransfer, now: Date = new Date()): Transfer {
  const transDate = input.transDate ?? now;
  const transRef = input.transRef ?? (input.sendingBank === TRUEMONEY ? truemoneyId() : randomTransRef(transDate));
  const payload =
    input.sendingBank === TRUEMONEY
      ? buildTrueMoneyPayload({ transactionId: transRef, date: ddMMyyyyThai(transDate) })
      : buildSlipPayload(input.sendingBank, transRef);
  const { bankCode, ...receiver } = input.receiver;
  const digitsOnly = (a?: string) => (a === undefined ? undefined : a.replace(/\D/g, ''));
  return {
    transRef,
    sendingBank: input.sendingBank,
    receivingBank: bankCode,
    amount: Math.round(input.amount * 100) / 100,
    transDate,
    sender: { ...input.sender, account: digitsOnly(input.sender.account) },
    receiver: { ...receiver, account: digitsOnly(receiver.account) },
    payload,
    fault: input.fault,
    createdAt: now,
  };
}

function truemoneyId(): string {
  // TrueMoney transaction ids are long digit strings.
  let s = '50';
  while (s.length < 14) s += Math.floor(Math.random() * 10);
  return s;
}

export interface TransferStore {
  add(input: NewTransfer): Transfer;
  get(transRef: string): Transfer | undefined;
  setFault(transRef: string, fault: Fault | null): Transfer | undefined;
  list(): Transfer[];
  clear(): void;
}

export class DuplicateTransRefError extends Error {
  constructor(transRef: string) {
    super(`transRef ${transRef} already exists`);
  }
}

export function createTransferStore(clock: () => Date = () => new Date()): TransferStore {
  const byRef = new Map<string, Transfer>();
  return {
    add(input) {
      if (input.transRef && byRef.has(input.transRef)) throw new DuplicateTransRefError(input.transRef);
      let t = makeTransfer(input, clock());
      // A random collision is astronomically unlikely, but retrying costs nothing.
      while (byRef.has(t.transRef)) t = makeTransfer(input, clock());
      byRef.set(t.transRef, t);
      return t;
    },
    get: (transRef) => byRef.get(transRef),
    setFault(transRef, fault) {
      const t = byRef.get(transRef);
      if (!t) return undefined;
      if (fault) t.fault = fault;
      else delete t.fault;
      return t;
    },
    list: () => [...byRef.values()],
    clear: () => byRef.clear(),
  };
}

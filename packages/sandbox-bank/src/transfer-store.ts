import fs from 'node:fs';
import path from 'node:path';
import { buildSlipPayload, buildTrueMoneyPayload, intBelow, randomTransRef } from './slip-payload.js';

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

/**
 * Builds a transfer (with its slip payload) without storing it: shared by the store and generateSlip.
 * `random`: a seeded generator for the transRef when none is given (generateSlip's seeded slips).
 */
export function makeTransfer(input: NewTransfer, now: Date = new Date(), random?: () => number): Transfer {
  const transDate = input.transDate ?? now;
  const transRef = input.transRef ?? (input.sendingBank === TRUEMONEY ? truemoneyId(random) : randomTransRef(transDate, random));
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

/** A TrueMoney transaction id: a long digit string. `random`: a seeded generator (see makeTransfer). */
function truemoneyId(random?: () => number): string {
  let s = '50';
  while (s.length < 14) s += intBelow(10, random);
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

/** The journal file of a store kept in a data dir (one JSON line per change). */
export const TRANSFER_JOURNAL = 'sandbox-bank-transfers.jsonl';

type JournalLine = { op: 'add'; transfer: Transfer } | { op: 'fault'; transRef: string; fault: Fault | null } | { op: 'clear' };

/**
 * Transfers live in memory; with `dataDir` every change is also appended to a journal there and
 * replayed at start, so a restarted sandbox still knows the slips it rendered before (otherwise every
 * earlier demo slip would come back as FRAUD). An append-only journal rather than a rewritten JSON
 * file: one small synchronous write per transfer, and a crash mid-write loses at most the last line.
 */
export function createTransferStore(clockOrOpts: (() => Date) | { clock?: () => Date; dataDir?: string } = {}): TransferStore {
  const opts = typeof clockOrOpts === 'function' ? { clock: clockOrOpts } : clockOrOpts;
  const clock = opts.clock ?? (() => new Date());
  const byRef = new Map<string, Transfer>();
  let journal: string | undefined;
  if (opts.dataDir) {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    journal = path.join(opts.dataDir, TRANSFER_JOURNAL);
    if (fs.existsSync(journal)) {
      for (const line of fs.readFileSync(journal, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        let entry: JournalLine;
        try {
          entry = JSON.parse(line) as JournalLine;
        } catch {
          continue; // a line cut short by a crash
        }
        if (entry.op === 'add') {
          const t = entry.transfer;
          byRef.set(t.transRef, { ...t, transDate: new Date(t.transDate), createdAt: new Date(t.createdAt) });
        } else if (entry.op === 'fault') applyFault(byRef.get(entry.transRef), entry.fault);
        else byRef.clear();
      }
    }
  }
  const write = (entry: JournalLine) => {
    if (journal) fs.appendFileSync(journal, JSON.stringify(entry) + '\n');
  };
  return {
    add(input) {
      if (input.transRef && byRef.has(input.transRef)) throw new DuplicateTransRefError(input.transRef);
      let t = makeTransfer(input, clock());
      // A random collision is astronomically unlikely, but retrying costs nothing.
      while (byRef.has(t.transRef)) t = makeTransfer(input, clock());
      write({ op: 'add', transfer: t });
      byRef.set(t.transRef, t);
      return t;
    },
    get: (transRef) => byRef.get(transRef),
    setFault(transRef, fault) {
      const t = byRef.get(transRef);
      if (!t) return undefined;
      write({ op: 'fault', transRef, fault });
      applyFault(t, fault);
      return t;
    },
    list: () => [...byRef.values()],
    clear: () => {
      write({ op: 'clear' });
      byRef.clear();
    },
  };
}

function applyFault(t: Transfer | undefined, fault: Fault | null) {
  if (!t) return;
  if (fault) t.fault = fault;
  else delete t.fault;
}

import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { displayName, maskAccount, maskProxy, maskStyleFor } from './account-mask.js';
import { parseSlipPayload } from './slip-payload.js';
import type { Transfer, TransferStore } from './transfer-store.js';

export interface GlobalFaults {
  latencyMs: number;
  errorRate: number;
}

export interface CheckerDeps {
  store: TransferStore;
  faults: GlobalFaults;
  apiKey?: string;
  /** How long a `timeout` fault holds the request before giving up (60 s like a hung provider). */
  timeoutHoldMs: number;
  /** Aborted when the server closes, so held or delayed requests never keep it alive. */
  closing: AbortSignal;
  onCall(): void;
  random?: () => number;
}

function sleep(ms: number, signal: AbortSignal, extra?: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
    extra?.(wake);
  });
}

/** ISO 8601 in Bangkok time with an explicit +07:00 offset, as Thai providers return it. */
export function bangkokIso(d: Date): string {
  return new Date(d.getTime() + 7 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+07:00');
}

function keyMatches(header: string | undefined, apiKey: string): boolean {
  const m = header?.match(/^Bearer\s+(.+)$/i);
  if (!m) return false;
  const a = Buffer.from(m[1].trim());
  const b = Buffer.from(apiKey);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function providerView(t: Transfer) {
  const s = t.sendingBank;
  const r = t.receivingBank;
  const name = (n: string | undefined, role: 'sender' | 'receiver') => (n === undefined ? undefined : displayName(n, s, r, role));
  return {
    transRef: t.transRef,
    sendingBank: s,
    receivingBank: r,
    amount: t.amount,
    transDate: bangkokIso(t.transDate),
    sender: {
      name: name(t.sender.name, 'sender')!,
      ...(t.sender.nameEn ? { nameEn: name(t.sender.nameEn, 'sender') } : {}),
      account: t.sender.account ? maskAccount(t.sender.account, maskStyleFor(s, r, 'sender')) : null,
    },
    receiver: {
      name: name(t.receiver.name, 'receiver')!,
      ...(t.receiver.nameEn ? { nameEn: name(t.receiver.nameEn, 'receiver') } : {}),
      account: t.receiver.account ? maskAccount(t.receiver.account, maskStyleFor(s, r, 'receiver')) : null,
      proxy: t.receiver.proxy ? { type: t.receiver.proxy.type, value: maskProxy(t.receiver.proxy.type, t.receiver.proxy.value) } : null,
    },
  };
}

/**
 * The provider-like checker endpoint. Statuses: 200 FOUND, 400 BAD_PAYLOAD (malformed or CRC
 * mismatch), 401 UNAUTHORIZED, 404 NOT_FOUND (unknown or forged), 409 PENDING, 503 ERROR, and a
 * held request for the `timeout` fault.
 */
export function registerCheckerApi(app: FastifyInstance, deps: CheckerDeps): void {
  const random = deps.random ?? Math.random;
  const unavailable = (reply: FastifyReply) => reply.code(503).send({ status: 'ERROR', message: 'bank system temporarily unavailable' });

  app.post<{ Body: { payload: string } }>(
    '/api/checker/verify',
    {
      schema: {
        body: {
          type: 'object',
          required: ['payload'],
          properties: { payload: { type: 'string', minLength: 1, maxLength: 512 } },
        },
      },
      // Auth runs before body validation, as with a real provider.
      preValidation: async (request, reply) => {
        deps.onCall();
        if (deps.apiKey && !keyMatches(request.headers.authorization, deps.apiKey)) {
          return reply.code(401).send({ status: 'UNAUTHORIZED', message: 'invalid or missing API key' });
        }
      },
    },
    async (request, reply) => {
      await sleep(deps.faults.latencyMs, deps.closing);
      if (deps.faults.errorRate > 0 && random() < deps.faults.errorRate) return unavailable(reply);

      const parsed = parseSlipPayload(request.body.payload);
      if (typeof parsed === 'string') {
        return reply.code(400).send({ status: 'BAD_PAYLOAD', message: parsed === 'BAD_CRC' ? 'checksum mismatch' : 'not a slip payload' });
      }
      const t = deps.store.get(parsed.transRef);
      const bankOk = parsed.kind === 'bank' ? t?.sendingBank === parsed.sendingBank : t?.sendingBank === 'TRUEMONEY';
      if (!t || !bankOk || t.fault === 'not_found') return reply.code(404).send({ status: 'NOT_FOUND' });

      switch (t.fault) {
        case 'pending':
          return reply.code(409).header('retry-after', '300').send({ status: 'PENDING', retryAfterSeconds: 300 });
        case 'error':
          return unavailable(reply);
        case 'timeout':
          await sleep(deps.timeoutHoldMs, deps.closing, (wake) => reply.raw.once('close', wake));
          return reply.code(504).send({ status: 'TIMEOUT' });
      }
      return reply.code(200).send({ status: 'FOUND', data: providerView(t) });
    },
  );
}

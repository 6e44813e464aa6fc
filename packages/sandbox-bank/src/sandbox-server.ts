import Fastify, { type FastifyServerOptions } from 'fastify';
import { registerCheckerApi, type GlobalFaults } from './checker-api.js';
import {
  EDIT_FACES,
  EDITS,
  LAYOUTS,
  renderNonSlip,
  renderSlip,
  VARIANTS,
  type EditFace,
  type EditKind,
  type ImageFormat,
  type Layout,
  type Variant,
} from './slip-renderer.js';
import { createTransferStore, DuplicateTransRefError, type Fault, type NewTransfer, type TransferStore } from './transfer-store.js';

export interface SandboxBankOptions {
  port?: number;
  host?: string;
  /** When set, the checker API requires `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  logger?: FastifyServerOptions['logger'];
  /** How long the `timeout` fault holds a checker request; 60 s unless a test wants it shorter. */
  timeoutHoldMs?: number;
  /** Keep transfers in this folder (a journal) so they survive a restart; absent = memory only (tests). */
  dataDir?: string;
}

export interface SandboxBank {
  url: string;
  port: number;
  store: TransferStore;
  stats(): { checkerCalls: number };
  close(): Promise<void>;
}

const FAULTS = ['pending', 'error', 'timeout', 'not_found'] as const;
const BANK = { type: 'string', pattern: '^(\\d{3}|TRUEMONEY)$' };
const party = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    nameEn: { type: 'string', minLength: 1, maxLength: 120 },
    account: { type: 'string', pattern: '^[0-9][0-9-]{5,24}$' },
  },
};
const transferBody = {
  type: 'object',
  required: ['sendingBank', 'amount', 'sender', 'receiver'],
  additionalProperties: false,
  properties: {
    sendingBank: BANK,
    amount: { type: 'number', exclusiveMinimum: 0, maximum: 100_000_000 },
    sender: { ...party, required: ['name', 'account'] },
    receiver: {
      ...party,
      required: ['name', 'bankCode'],
      anyOf: [{ required: ['account'] }, { required: ['proxy'] }],
      properties: {
        ...party.properties,
        bankCode: BANK,
        proxy: {
          type: 'object',
          required: ['type', 'value'],
          properties: {
            type: { type: 'string', enum: ['PHONE', 'NATID', 'EWALLET'] },
            value: { type: 'string', pattern: '^[0-9-]{9,20}$' },
          },
        },
      },
    },
    transDate: { type: 'string', format: 'date-time' },
    transRef: { type: 'string', pattern: '^[0-9A-Za-z]{8,40}$' },
    fault: { type: 'string', enum: FAULTS },
  },
};
type TransferBody = Omit<NewTransfer, 'transDate'> & { transDate?: string };

export async function createSandboxBank(opts: SandboxBankOptions = {}): Promise<SandboxBank> {
  // Tests start and stop many sandboxes: close must not wait for clients' keep-alive sockets.
  const app = Fastify({ logger: opts.logger ?? false, forceCloseConnections: true });
  const store = createTransferStore({ dataDir: opts.dataDir });
  const faults: GlobalFaults = { latencyMs: 0, errorRate: 0 };
  const closing = new AbortController();
  let checkerCalls = 0;

  app.setErrorHandler((err: { validation?: unknown; statusCode?: number; message: string }, _request, reply) => {
    if (err.validation || err.statusCode === 400) return reply.code(400).send({ status: 'BAD_REQUEST', message: err.message });
    if (err.statusCode && err.statusCode < 500) return reply.code(err.statusCode).send({ status: 'BAD_REQUEST', message: err.message });
    app.log.error(err);
    return reply.code(500).send({ status: 'ERROR', message: 'internal error' });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ status: 'NO_ROUTE' }));

  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/stats', async () => ({ checkerCalls, transfers: store.list().length }));

  app.post<{ Body: TransferBody }>('/transfers', { schema: { body: transferBody } }, async (request, reply) => {
    const { transDate, ...rest } = request.body;
    try {
      const t = store.add({ ...rest, transDate: transDate ? new Date(transDate) : undefined });
      return reply.code(201).send({ transRef: t.transRef, payload: t.payload, slipUrl: `/transfers/${t.transRef}/slip.png` });
    } catch (e) {
      if (e instanceof DuplicateTransRefError) return reply.code(409).send({ status: 'DUPLICATE_TRANSREF' });
      throw e;
    }
  });

  // Recent transfers, newest first: the LINE chat simulator offers their slips.
  app.get<{ Querystring: { limit?: number } }>(
    '/transfers',
    { schema: { querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 100 } } } } },
    async (request) =>
      store
        .list() // in the order they were made
        .reverse()
        .slice(0, request.query.limit ?? 20)
        .map((t) => ({
          transRef: t.transRef,
          amount: t.amount,
          sendingBank: t.sendingBank,
          receivingBank: t.receivingBank,
          sender: t.sender.name,
          receiver: t.receiver.name,
          transDate: t.transDate,
          fault: t.fault ?? null,
        })),
  );

  app.get<{ Params: { transRef: string } }>('/transfers/:transRef', async (request, reply) => {
    const t = store.get(request.params.transRef);
    return t ? t : reply.code(404).send({ status: 'NOT_FOUND' });
  });

  app.patch<{ Params: { transRef: string }; Body: { fault: Fault | null } }>(
    '/transfers/:transRef',
    {
      schema: {
        body: {
          type: 'object',
          required: ['fault'],
          properties: { fault: { anyOf: [{ type: 'string', enum: FAULTS }, { type: 'null' }] } },
        },
      },
    },
    async (request, reply) => {
      const t = store.setFault(request.params.transRef, request.body.fault);
      return t ? { transRef: t.transRef, fault: t.fault ?? null } : reply.code(404).send({ status: 'NOT_FOUND' });
    },
  );

  const mime = (f: ImageFormat) => (f === 'png' ? 'image/png' : 'image/jpeg');
  for (const format of ['png', 'jpg'] as const) {
    app.get<{ Params: { transRef: string }; Querystring: { variant?: Variant; layout?: Layout; edit?: EditKind; editFace?: EditFace } }>(
      `/transfers/:transRef/slip.${format}`,
      {
        schema: {
          querystring: {
            type: 'object',
            properties: {
              variant: { type: 'string', enum: VARIANTS },
              layout: { type: 'string', enum: LAYOUTS },
              edit: { type: 'string', enum: EDITS },
              // With edit: 'same' types the new amount in the layout's own face (a slip-maker app).
              editFace: { type: 'string', enum: EDIT_FACES },
            },
          },
        },
      },
      async (request, reply) => {
        const t = store.get(request.params.transRef);
        if (!t) return reply.code(404).send({ status: 'NOT_FOUND' });
        const image = await renderSlip(t, {
          format,
          variant: request.query.variant,
          layout: request.query.layout,
          edit: request.query.edit,
          editFace: request.query.editFace,
        });
        return reply.type(mime(format)).header('cache-control', 'no-store').send(image);
      },
    );
    for (const kind of ['photo', 'promptpay', 'blank'] as const) {
      app.get(`/non-slip/${kind}.${format}`, async (_request, reply) =>
        reply
          .type(mime(format))
          .header('cache-control', 'no-store')
          .send(await renderNonSlip(kind, format)),
      );
    }
  }

  app.get('/faults', async () => faults);
  app.post<{ Body: { latencyMs?: number; errorRate?: number; reset?: boolean } }>(
    '/faults',
    {
      schema: {
        body: {
          type: 'object',
          properties: {
            latencyMs: { type: 'integer', minimum: 0, maximum: 120_000 },
            errorRate: { type: 'number', minimum: 0, maximum: 1 },
            reset: { type: 'boolean' },
          },
        },
      },
    },
    async (request) => {
      const b = request.body ?? {};
      if (b.reset) Object.assign(faults, { latencyMs: 0, errorRate: 0 });
      if (b.latencyMs !== undefined) faults.latencyMs = b.latencyMs;
      if (b.errorRate !== undefined) faults.errorRate = b.errorRate;
      return faults;
    },
  );

  registerCheckerApi(app, {
    store,
    faults,
    apiKey: opts.apiKey || undefined,
    timeoutHoldMs: opts.timeoutHoldMs ?? 60_000,
    closing: closing.signal,
    onCall: () => {
      checkerCalls++;
    },
  });

  await app.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
  const host = opts.host && opts.host !== '0.0.0.0' && opts.host !== '::' ? opts.host : '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    store,
    stats: () => ({ checkerCalls }),
    async close() {
      // Answer held and delayed requests first, give the answers a moment to flush, then close.
      closing.abort();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await app.close();
    },
  };
}

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TransactionRecord } from '../src/index.js';

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Serialised as JSON unless it is a string. */
  body?: unknown;
  /** Never answer (to exercise timeouts). */
  hang?: boolean;
}

export type Handler = (req: SeenRequest, nth: number) => Reply;

export const QUOTA_HEADERS = {
  'x-service-quota-limit': '1000',
  'x-service-quota-used': '120',
  'x-service-quota-remaining': '880',
  'x-service-quota-reset-days': '12',
};

/**
 * A real HTTP server on 127.0.0.1 that speaks the API's envelope. Each test scripts the replies
 * per "METHOD /path" key; every request is recorded.
 */
export async function startFakeApi() {
  const routes = new Map<string, Handler>();
  const requests: SeenRequest[] = [];
  const counts = new Map<string, number>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(seen);
      const key = `${seen.method} ${routeOf(seen.path)}`;
      const nth = counts.get(key) ?? 0;
      counts.set(key, nth + 1);
      const handler = routes.get(key);
      const reply: Reply = handler ? handler(seen, nth) : { status: 404, body: errorBody(404, 'Not Found', 'Route not found', seen.path) };
      if (reply.hang) return;
      const isText = typeof reply.body === 'string';
      res.writeHead(reply.status ?? 200, {
        'content-type': isText ? 'text/html' : 'application/json',
        ...QUOTA_HEADERS,
        ...reply.headers,
      });
      res.end(isText ? reply.body : JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    requests,
    on(key: string, handler: Handler) {
      routes.set(key, handler);
    },
    reset() {
      routes.clear();
      requests.length = 0;
      counts.clear();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function routeOf(path: string): string {
  return path.startsWith('/api/v1/transactions/') ? '/api/v1/transactions/:id' : path;
}

export function errorBody(statusCode: number, error: string, message: string, path: string, extra: object = {}) {
  return {
    success: false,
    error,
    message,
    statusCode,
    path,
    requestId: `req_${statusCode}`,
    timestamp: '2025-10-09T15:00:00.000+07:00',
    ...extra,
  };
}

export function record(id: string, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    id,
    status: 'SUCCESS',
    verified: true,
    transRef: `REF${id}`,
    amount: 100,
    bankCode: '004',
    bankName: 'KBANK',
    senderName: 'MR SOMCHAI J',
    senderAccount: 'xxx-x-x1234-x',
    receiverName: 'SHOP CO',
    receiverAccount: 'xxx-x-x6660-x',
    transDate: '2025-10-09T07:59:00.000Z',
    errorCode: null,
    errorMessage: null,
    createdAt: '2025-10-09T08:00:00.000Z',
    duplicate: false,
    cached: false,
    latencyMs: 640,
    environment: 'live',
    source: 'API',
    clientRef: null,
    stale: false,
    ...overrides,
  } as TransactionRecord;
}

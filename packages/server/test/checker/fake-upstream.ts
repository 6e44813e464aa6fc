// A tiny HTTP server on 127.0.0.1 that answers like a provider, for adapter tests at the HTTP boundary.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createKeepAliveFetch } from '../../src/modules/checker/checker-http.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** never answer (for timeouts) */
  hang?: boolean;
}
export interface FakeUpstream {
  url: string;
  requests: SeenRequest[];
  connections: number;
  close(): Promise<void>;
}

export async function startFakeUpstream(handler: (req: SeenRequest) => Reply | Promise<Reply>): Promise<FakeUpstream> {
  const state = { requests: [] as SeenRequest[], connections: 0 };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      /* keep raw */
    }
    const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
    state.requests.push(seen);
    const r = await handler(seen);
    if (r.hang) return;
    const text = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    res.writeHead(r.status, { 'content-type': 'application/json', ...(r.headers ?? {}) });
    res.end(text);
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One fake upstream for a whole test file, with the adapters' keep-alive fetch: set `reply` for what
 * it answers next; `up.requests` is emptied after each test.
 */
export function fakeUpstreamForFile(first: Reply) {
  const f = { reply: first, up: undefined as unknown as FakeUpstream, http: createKeepAliveFetch() };
  beforeAll(async () => {
    f.up = await startFakeUpstream(() => f.reply);
  });
  afterAll(async () => {
    await f.up.close();
    await f.http.close();
  });
  afterEach(() => {
    f.up.requests.length = 0;
  });
  return f;
}

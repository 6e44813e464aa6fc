import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real webhook receiver on loopback. `behave` decides each answer; every request is recorded. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Set when the receiver finished answering (false when the sender hung up first). */
  answered: boolean;
  status: number | null;
  at: number;
}

export type Behaviour = (req: Received, n: number, res: http.ServerResponse) => void | Promise<void>;

export async function startReceiver(
  behave: Behaviour = (_r, _n, res) => {
    res.writeHead(200).end('ok');
  },
) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  let current = behave;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answered: false,
        status: null,
        at: Date.now(),
      };
      received.push(r);
      res.on('finish', () => {
        r.answered = true;
        r.status = res.statusCode;
      });
      for (const w of waiters.splice(0)) w();
      void Promise.resolve(current(r, received.length, res)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    setBehaviour(b: Behaviour) {
      current = b;
    },
    /** Resolves when at least `n` requests arrived. */
    async waitFor(n: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver: ${received.length}/${n} requests after ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Polls until `fn` returns a truthy value (for states another process/worker reaches). */
export async function until<T>(fn: () => Promise<T>, timeoutMs = 10_000, label = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeepAliveFetch, getJson, postJson } from '../../src/modules/checker/checker-http.js';

/**
 * The service's keep-alive fetch sends checker calls through undici's request() on its agent (not
 * fetch): the outcomes an adapter sees must be the ones fetch gave. Each case is run through the
 * service's keep-alive fetch and through a plain fetch (the path an injected fetch takes), and both
 * must agree.
 */
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/json': (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('retry-after', '120');
    res.setHeader('set-cookie', ['a=1', 'b=2']);
    res.end(
      JSON.stringify({ method: req.method, ua: req.headers['user-agent'], accept: req.headers.accept, auth: req.headers.authorization }),
    );
  },
  '/moved': (_req, res) => {
    res.statusCode = 307; // keeps the method and the body
    res.setHeader('location', '/echo?x=1');
    res.end();
  },
  '/echo': (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString('utf8') }));
    });
  },
  '/huge': (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(`{"pad":"${'x'.repeat((1 << 20) + 10)}"}`);
  },
  '/huge-chunked': (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.write('{"pad":"');
    for (let i = 0; i < 17; i++) res.write('x'.repeat(64 * 1024));
    res.end('"}');
  },
  '/text': (_req, res) => {
    res.statusCode = 502;
    res.end('<html>bad gateway</html>');
  },
  '/hang': () => {
    /* never answers */
  },
};

const server = createServer((req, res) => (routes[(req.url ?? '').split('?')[0]] ?? routes['/text'])(req, res));
let base = '';
const keepAlive = createKeepAliveFetch();

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await keepAlive.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe.each([
  ['keep-alive agent (request)', () => keepAlive.fetch],
  ['injected fetch', () => fetch],
])('checker HTTP outcomes through the %s', (_name, fetchFn) => {
  it('answers status, JSON and headers (repeated ones too); sends the caller headers and fetch-like defaults', async () => {
    const out = await postJson(fetchFn(), `${base}/json`, { payload: 'p' }, { authorization: 'Bearer k' });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.answer.status).toBe(200);
    expect(out.answer.json).toMatchObject({ method: 'POST', accept: 'application/json', auth: 'Bearer k' });
    expect((out.answer.json as { ua?: string }).ua).toBeTruthy();
    expect(out.answer.headers.get('retry-after')).toBe('120');
    expect(out.answer.headers.get('content-type')).toBe('application/json');
  });

  it('follows a 307 redirect with the same method and body', async () => {
    const out = await postJson(fetchFn(), `${base}/moved`, { payload: 'abc' }, {});
    expect(out.ok && out.answer.status).toBe(200);
    expect(out.ok && out.answer.json).toEqual({ method: 'POST', url: '/echo?x=1', body: '{"payload":"abc"}' });
  });

  it('reads a body over 1 MiB as no JSON (declared by Content-Length, or streamed)', async () => {
    for (const path of ['/huge', '/huge-chunked']) {
      const out = await getJson(fetchFn(), `${base}${path}`, {});
      expect(out.ok && out.answer.status).toBe(200);
      expect(out.ok && out.answer.json).toBeNull();
    }
  });

  it('answers a body that is not JSON as null JSON with its status', async () => {
    const out = await getJson(fetchFn(), `${base}/text`, {});
    expect(out.ok && out.answer.status).toBe(502);
    expect(out.ok && out.answer.json).toBeNull();
  });

  it('turns an abort into aborted/timeout and a refused connection into a network reason', async () => {
    const aborted = await getJson(fetchFn(), `${base}/hang`, {}, AbortSignal.timeout(50));
    expect(aborted).toEqual({ ok: false, aborted: true, reason: 'aborted/timeout' });
    const refused = await getJson(fetchFn(), 'http://127.0.0.1:1/x', {});
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.aborted).toBe(false);
    expect(!refused.ok && refused.reason).toMatch(/^network: /);
  });
});

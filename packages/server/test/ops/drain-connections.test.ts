import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

/** Sends raw bytes on an open connection and collects what comes back until the server closes it. */
function exchange(
  socket: net.Socket,
  head: Buffer,
  body: Buffer,
): Promise<{ answer: string; error: string | null; answeredBeforeUpload: boolean }> {
  return new Promise((resolve) => {
    let answer = '';
    let error: string | null = null;
    let sentAll = false;
    let answeredBeforeUpload = false;
    socket.on('data', (d) => {
      if (!answer && !sentAll) answeredBeforeUpload = true;
      answer += d.toString('latin1');
    });
    socket.on('error', (e) => (error = (e as NodeJS.ErrnoException).code ?? e.message));
    socket.once('close', () => resolve({ answer, error, answeredBeforeUpload }));
    // The body follows in 64 KB pieces, as a phone's upload does: the server answers before it all arrived.
    socket.write(head);
    let at = 0;
    const next = () => {
      if (at >= body.length || socket.destroyed) return;
      socket.write(body.subarray(at, (at += 64 * 1024)));
      if (at >= body.length) sentAll = true;
      setTimeout(next, 5);
    };
    setTimeout(next, 5);
  });
}

/**
 * Opens a connection (accepted before the listener closes), starts closing the app while a slow upload
 * on a second connection keeps it waiting (as verifies at the checker do), then sends `head` and `body`
 * on the first connection and returns what came back.
 */
async function exchangeWhileClosing(app: Harness['app'], head: Buffer, body: Buffer) {
  const port = (app.server.address() as net.AddressInfo).port;
  const connect = async () => {
    const s = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => s.once('connect', () => r()));
    return s;
  };
  const kept = await connect();
  const slow = await connect();
  slow.on('error', () => undefined);
  slow.write(
    'POST /api/v1/verify HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/octet-stream\r\ncontent-length: 10\r\n\r\n12345',
  );
  await new Promise((r) => setTimeout(r, 50));
  const closing = app.close();
  await new Promise((r) => setTimeout(r, 50));
  const r = await exchange(kept, head, body);
  slow.end('67890');
  await closing;
  return r;
}

/**
 * A request that reaches a closing server (a kept-alive connection, or one accepted just before the
 * listener closed) gets 503. Fastify's own 503 answered at once and closed the connection with the
 * request's body still unread, and a socket closed with unread data is reset: the client got
 * ECONNRESET instead of the answer (the production SIGTERM test saw one verify of twenty cut, one full
 * run in two on this session's slower machine). On loopback here the reset itself does not happen on
 * demand, so the test holds what prevents it: the answer comes only after the whole upload was read,
 * and it is the spec's envelope (Fastify's own 503 was neither).
 */
describe('a request on a closing server: 503 in the envelope, never a reset connection', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await h.close().catch(() => undefined);
  });

  it('a 512 KB verify on a connection accepted before the listener closed, sent while the server closes is answered 503, not cut', async () => {
    const body = Buffer.alloc(512 * 1024, 7);
    const head = Buffer.from(
      `POST /api/v1/verify HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer sk_live_x\r\ncontent-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    const r = await exchangeWhileClosing(h.app, head, body);
    expect(r.error).toBeNull();
    // Answered once the whole upload was read: nothing is left unread when the connection closes.
    expect(r.answeredBeforeUpload).toBe(false);
    expect(r.answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(r.answer.toLowerCase()).toContain('connection: close');
    const json = JSON.parse(r.answer.slice(r.answer.indexOf('\r\n\r\n') + 4));
    expect(json).toMatchObject({ success: false, statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
  });
});

/**
 * /health on a closing server answers its own body: 503, not ready. The envelope above failed the
 * route's 503 schema (a health body), so a load balancer's probe got a 500 "Failed to serialize an
 * error" (seen firing /health at the production build under SIGTERM, a few in every few hundred).
 */
it('GET /health sent while the server closes answers 503 with the health body, not a 500', async () => {
  const h = await createHarness('sqlite');
  try {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const head = Buffer.from('GET /health HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n');
    const r = await exchangeWhileClosing(h.app, head, Buffer.alloc(0));
    expect(r.answer).toMatch(/^HTTP\/1\.1 503 /);
    const json = JSON.parse(r.answer.slice(r.answer.indexOf('\r\n\r\n') + 4));
    expect(json).toMatchObject({ status: 'degraded', checks: { database: { status: 'up' } } });
  } finally {
    await h.close().catch(() => undefined);
  }
});

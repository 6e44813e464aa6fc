/**
 * The live stream drops an event it already sent, remembering only a bounded window of ids (issue 25:
 * the set grew for the life of a connection). No event is sent twice within the window, and a stream
 * that stays open for thousands of results holds at most the window.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/http/common-schemas.js';
import { createMemoryBus, type ResultsBus } from '../../src/lib/results-bus.js';
import { eventsRoutes, SENT_WINDOW, type EventsRouteDeps } from '../../src/modules/dashboard/events-routes.js';
import { createRecentIds } from '../../src/modules/dashboard/recent-ids.js';

describe('recent ids', () => {
  it('stays at its bound however many ids pass, and answers a repeat within the window as seen', () => {
    const r = createRecentIds(50);
    for (let i = 0; i < 10_000; i++) {
      expect(r.add(`txn_${i}`)).toBe(true);
      expect(r.size).toBeLessThanOrEqual(50);
      // every id of the last 50 is still a repeat
      if (i >= 49) expect(r.add(`txn_${i - 49}`)).toBe(false);
    }
    expect(r.size).toBe(50);
    // forgotten only once 50 newer ids came after it
    expect(r.add('txn_9949')).toBe(true);
    expect(r.add('txn_9951')).toBe(false);
    expect(() => createRecentIds(0)).toThrow();
  });
  it('the stream remembers several replays worth (a replay is at most 100)', () => {
    expect(SENT_WINDOW).toBeGreaterThanOrEqual(200);
  });
});

const SHOP = 'shop_sse';
const WINDOW = 20;

async function readUntil(res: Response, done: (text: string) => boolean, timeoutMs = 8000): Promise<string> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (!done(text)) {
    if (Date.now() > deadline) throw new Error(`timeout; got ${text.slice(-500)}`);
    const { value, done: end } = await reader.read();
    if (end) break;
    text += dec.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

describe('the live stream over a long connection', () => {
  let app: FastifyInstance;
  let bus: ResultsBus;
  let base: string;
  beforeAll(async () => {
    bus = createMemoryBus();
    const deps = {
      auth: { rateLimiter: { hit: async () => ({ allowed: true, retryAfterSec: 0, remaining: 100 }) }, perMinute: 100 },
      tokens: {
        issueTicket: async () => ({ token: 't', expiresAt: '' }),
        verifyTicket: async () => ({ shopId: SHOP, sessionId: 's', userId: 'u' }),
      },
      sessions: { isActive: async () => true },
      bus,
      transactions: { listAfter: async () => [] },
      sentWindow: WINDOW,
    } as unknown as EventsRouteDeps;
    app = Fastify();
    app.addSchema(ErrorEnvelope);
    await app.register(eventsRoutes, deps);
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
    await bus.close();
  });

  it('sends each record once within the window, and forgets only ids older than the window', async () => {
    const res = await fetch(`${base}/api/dashboard/events?ticket=t`);
    expect(res.status).toBe(200);
    const created = (id: string) => bus.publish({ shopId: SHOP, type: 'transaction.created', data: { id } });
    const reading = readUntil(res, (t) => t.includes('id: txn_end\n'));
    await new Promise((r) => setTimeout(r, 50));
    // 2000 results on one connection, each published twice in a row and again 10 later (inside the window)
    for (let i = 0; i < 2000; i++) {
      await created(`txn_${i}`);
      await created(`txn_${i}`);
      if (i >= 10) await created(`txn_${i - 10}`);
    }
    // txn_0 is long out of the window: a late repeat of it goes out again (the window is bounded)
    await created('txn_0');
    await created('txn_end');
    const body = await reading;
    const ids = [...body.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (let i = 1; i < 2000; i++) expect(counts.get(`txn_${i}`), `txn_${i}`).toBe(1);
    expect(counts.get('txn_0')).toBe(2);
    expect(counts.get('txn_end')).toBe(1);
  });
});

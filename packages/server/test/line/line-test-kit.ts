import net from 'node:net';
import type { ContainerOverrides } from '../../src/container.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { createHarness, seedShop, type DbKind, type Harness } from '../helpers/harness.js';
import { lineEvent, startFakeLinePlatform, type FakeChannel, type FakeLinePlatform } from './fake-line-platform.js';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

/**
 * One service on real HTTP (its PUBLIC_URL known up front, so LINE's "verify webhook" can call it),
 * a fake LINE platform, a controllable clock and an outbox worker the test drains explicitly.
 */
export async function startLineKit(kind: DbKind, env: Record<string, string> = {}, overrides: Omit<ContainerOverrides, 'clock'> = {}) {
  const fake: FakeLinePlatform = await startFakeLinePlatform();
  const port = await freePort();
  const clock = fixedClock(new Date());
  const h: Harness = await createHarness(
    kind,
    {
      LINE_API_BASE_URL: fake.url,
      LINE_DATA_API_BASE_URL: fake.url,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LINE_HTTP_RETRIES: '2',
      LINE_HTTP_TIMEOUT_MS: '3000',
      ...env,
    },
    { ...overrides, clock },
  );
  await h.app.listen({ port, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${port}`;
  const worker = createOutboxWorker({
    db: h.c.db,
    caps: h.c.caps,
    clock: h.c.clock,
    handlers: h.c.line.outboxHandlers,
    maxAttempts: 3,
    onError: (e) => {
      if (process.env.LINE_TEST_DEBUG) console.error('outbox job failed:', e);
    },
  });

  /** Runs due outbox jobs of the LINE handlers until none is left. */
  async function drain(): Promise<number> {
    let total = 0;
    for (let i = 0; i < 20; i++) {
      const n = await worker.runOnce();
      total += n;
      if (!n) break;
    }
    return total;
  }

  async function linkedShop(opts: { plan?: string; language?: 'th' | 'en'; payee?: boolean } = {}) {
    const s = await seedShop(h, { plan: opts.plan, payee: opts.payee });
    if (opts.language) await h.c.shops.update(s.shop.id, { language: opts.language }, 'test');
    const fc: FakeChannel = fake.addChannel();
    const view = await h.c.line.channels.link(
      s.shop.id,
      { channelId: String(1_600_000_000 + Math.floor(Math.random() * 99_999_999)), channelSecret: fc.secret, accessToken: fc.token },
      'test',
    );
    const hookUrl = `${base}${view.webhookPath}`;
    /** The webhook's answer: the service's envelope with how many events it kept. */
    const send = async (events: unknown[], o: { signature?: string | null } = {}) => {
      const r = await fake.deliver(hookUrl, fc.secret, { destination: fc.botUserId, events }, o);
      return r as { status: number; body: { data: { received: number } } };
    };
    /** Deliver events as LINE would and process them (webhook answer, then the outbox). */
    const post = async (...events: unknown[]) => {
      const r = await send(events);
      if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
      await drain();
      return r;
    };
    return { ...s, fc, view, hookUrl, send, post };
  }

  return {
    h,
    fake,
    base,
    clock,
    worker,
    drain,
    linkedShop,
    async close() {
      await worker.stop({ timeoutMs: 1000 });
      await h.close();
      await fake.close();
    },
  };
}
export type LineKit = Awaited<ReturnType<typeof startLineKit>>;

/**
 * Chat helpers the delivery and slip tests share: events stamped with the kit's clock, user and group
 * sources, and pictures uploaded to the fake platform under fresh message ids. `kit` is a getter: the
 * kit starts in beforeAll, after the helpers are made.
 */
export function chatHelpers(kit: () => LineKit, idPrefix: string, defaultUser: string) {
  let seq = 0;
  return {
    ev: (type: string, source: Parameters<typeof lineEvent>[1], extra: Record<string, unknown> = {}) =>
      lineEvent(type, source, extra, kit().clock.now().getTime()),
    user: (u = defaultUser) => ({ type: 'user' as const, userId: u }),
    grp: (g: string, u = 'Ustaff01') => ({ type: 'group' as const, groupId: g, userId: u }),
    upload: (img: Buffer) => {
      const id = `${idPrefix}-${++seq}`;
      kit().fake.setContent(id, img, img[0] === 0x89 ? 'image/png' : 'image/jpeg');
      return id;
    },
  };
}

import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createMemoryBus, type BusMessage, type ResultsBus } from './results-bus.js';

/**
 * Redis pub/sub results bus: every node sees every result. One channel per shop, subscribed only
 * while this node has a local subscriber for that shop. A message is delivered to local
 * subscribers at once and published for the other nodes (tagged with this node's id so it is not
 * delivered twice here); if Redis is down, this node's own screens still update. Best effort like
 * the in-memory bus: the durable path is the outbox.
 */
export const RESULTS_CHANNEL_PREFIX = 'slipcheck:results:';

export function createRedisBus(redis: Redis, opts: { onError?: (e: unknown) => void } = {}): ResultsBus {
  const nodeId = randomBytes(8).toString('hex');
  const local = createMemoryBus();
  const sub = redis.duplicate({ lazyConnect: false, maxRetriesPerRequest: null, enableOfflineQueue: true });
  const onError = opts.onError ?? (() => undefined);
  sub.on('error', onError);
  const counts = new Map<string, number>();

  sub.on('message', (channel: string, raw: string) => {
    if (!channel.startsWith(RESULTS_CHANNEL_PREFIX)) return;
    try {
      const env = JSON.parse(raw) as { n: string; m: BusMessage };
      if (env.n === nodeId || !env.m || env.m.shopId !== channel.slice(RESULTS_CHANNEL_PREFIX.length)) return;
      void local.publish(env.m);
    } catch (e) {
      onError(e);
    }
  });

  return {
    async publish(msg) {
      await local.publish(msg);
      try {
        await redis.publish(RESULTS_CHANNEL_PREFIX + msg.shopId, JSON.stringify({ n: nodeId, m: msg }));
      } catch (e) {
        onError(e);
      }
    },
    subscribe(shopId, fn) {
      const off = local.subscribe(shopId, fn);
      const n = (counts.get(shopId) ?? 0) + 1;
      counts.set(shopId, n);
      if (n === 1) sub.subscribe(RESULTS_CHANNEL_PREFIX + shopId).catch(onError);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        off();
        const left = (counts.get(shopId) ?? 1) - 1;
        if (left <= 0) {
          counts.delete(shopId);
          sub.unsubscribe(RESULTS_CHANNEL_PREFIX + shopId).catch(onError);
        } else counts.set(shopId, left);
      };
    },
    /** Resolves once this node's Redis subscriptions are active (tests; SSE does not need to wait). */
    async ready() {
      if (sub.status !== 'ready') await new Promise<void>((r) => sub.once('ready', () => r()));
      const want = [...counts.keys()].map((s) => RESULTS_CHANNEL_PREFIX + s);
      if (want.length) await sub.subscribe(...want);
    },
    async close() {
      await local.close();
      sub.disconnect();
    },
  } as ResultsBus & { ready(): Promise<void> };
}

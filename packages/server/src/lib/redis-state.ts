import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { metrics } from './metrics.js';

export interface RedisState {
  /** The connection is ready now (commands will be sent, not refused at once). */
  up(): boolean;
  stop(): void;
}

/**
 * Follows a Redis connection so an operator sees an outage once, not once per failed command: one
 * warning when it is lost (or never came up), one line when it is back, and `slipcheck_redis_up`.
 * What keeps working while it lasts is listed in docs/operations.md ("Redis lost").
 */
export function watchRedis(redis: Redis, logger: Pick<Logger, 'warn' | 'info'>): RedisState {
  let state: 'unknown' | 'up' | 'down' = redis.status === 'ready' ? 'up' : 'unknown';
  metrics.redisUp.set(state === 'up' ? 1 : 0);
  const onReady = () => {
    if (state === 'down') logger.info('Redis reachable again: rate limits shared by every node again');
    state = 'up';
    metrics.redisUp.set(1);
  };
  const onLost = () => {
    if (state === 'down') return;
    state = 'down';
    metrics.redisUp.set(0);
    logger.warn(
      'Redis unreachable: rate limits are enforced per node (each node its share of every limit), test-key usage is counted in the database, live dashboard updates reach only this node; readiness reports redis down (degraded)',
    );
  };
  redis.on('ready', onReady);
  redis.on('close', onLost);
  redis.on('error', onLost);
  return {
    up: () => redis.status === 'ready',
    stop() {
      redis.off('ready', onReady);
      redis.off('close', onLost);
      redis.off('error', onLost);
    },
  };
}

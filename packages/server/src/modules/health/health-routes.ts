import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import { metrics } from '../../lib/metrics.js';

export interface HealthDeps {
  db: Db;
  pingRedis?: () => Promise<boolean>;
  startedAt: Date;
  version: string;
  /** Graceful shutdown under way: readiness fails at once so the load balancer drains this node. */
  draining?: () => boolean;
  /** provider account problems (checker-accounts.ts): reasons only, never the provider's name */
  checker?: () => { status: 'up' | 'degraded'; upstreams: Array<{ problem: string }> };
  /**
   * The slip decoder pool: `down` when it cannot start or replace its decoder processes (every check
   * on this node would fail), null while no decode has started it yet.
   */
  decoder?: () => 'up' | 'down' | null;
}

const Check = Type.Object({ status: Type.Union([Type.Literal('up'), Type.Literal('down')]), latencyMs: Type.Integer() });
// A provider account problem does not take the node out of the load balancer (readiness stays 200):
// every node shares the accounts, so the status says "degraded" for the operator's monitoring.
const CheckerCheck = Type.Object({
  status: Type.Union([Type.Literal('up'), Type.Literal('degraded')]),
  problems: Type.Array(Type.String()),
});
const HealthBody = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    checks: Type.Object({
      database: Check,
      redis: Type.Optional(Check),
      decoder: Type.Optional(Check),
      checker: Type.Optional(CheckerCheck),
    }),
    timestamp: Type.String(),
  },
  { $id: 'Health' },
);
const Liveness = Type.Object({ status: Type.Literal('ok') }, { $id: 'Liveness' });
const Uptime = Type.Object(
  { status: Type.Literal('ok'), uptimeSeconds: Type.Integer(), startedAt: Type.String(), version: Type.String() },
  { $id: 'Uptime' },
);

async function timed(fn: () => Promise<unknown>) {
  const t = performance.now();
  try {
    const ok = await Promise.race([
      fn().then((r) => r !== false),
      new Promise<boolean>((res) => setTimeout(() => res(false), 2000).unref()),
    ]);
    return { status: ok ? ('up' as const) : ('down' as const), latencyMs: Math.round(performance.now() - t) };
  } catch {
    return { status: 'down' as const, latencyMs: Math.round(performance.now() - t) };
  }
}

/** Public, no auth, no secrets: readiness (/health), liveness and uptime, also under the old /v1 prefix. */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, deps) => {
  // Registered once and referenced: the OpenAPI document defines each body once for both prefixes.
  for (const schema of [HealthBody, Liveness, Uptime]) app.addSchema(schema);
  const ref = (schema: TSchema & { $id?: string }) => ({ $ref: `${schema.$id}#` });
  for (const prefix of ['', '/v1']) {
    // operationIds are unique per document: the old /v1 paths get their own (getHealthV1, ...).
    const id = (name: string) => (prefix ? `${name}V1` : name);
    app.get(
      `${prefix}/health`,
      {
        schema: {
          tags: ['health'],
          operationId: id('getHealth'),
          summary:
            'Readiness: 200 while the database and the slip decoder answer (Redis down or a checker account problem is reported as degraded, still 200)',
          response: { 200: ref(HealthBody), 503: ref(HealthBody) },
        },
      },
      async (_req, reply) => {
        const database = await timed(() => sql`select 1`.execute(deps.db));
        const redis = deps.pingRedis ? await timed(deps.pingRedis) : undefined;
        // Ready means "send me traffic": the service does its job without Redis (limits per node, test
        // usage in the database, live updates per node), so a lost Redis is reported, not a reason to
        // drop every node from the balancer at once. The database, the decoder pool and draining are.
        const decoderStatus = deps.decoder?.() ?? null;
        const decoder = decoderStatus ? { status: decoderStatus, latencyMs: 0 } : undefined;
        const ready = database.status === 'up' && decoder?.status !== 'down' && !deps.draining?.();
        const c = deps.checker?.();
        const checker = c ? { status: c.status, problems: [...new Set(c.upstreams.map((u) => u.problem))] } : undefined;
        const full = ready && (!redis || redis.status === 'up') && checker?.status !== 'degraded';
        if (redis) metrics.redisUp.set(redis.status === 'up' ? 1 : 0);
        reply.status(ready ? 200 : 503);
        return {
          status: full ? ('ok' as const) : ('degraded' as const),
          checks: { database, ...(redis ? { redis } : {}), ...(decoder ? { decoder } : {}), ...(checker ? { checker } : {}) },
          timestamp: new Date().toISOString(),
        };
      },
    );
    app.get(
      `${prefix}/health/liveness`,
      { schema: { tags: ['health'], operationId: id('getLiveness'), summary: 'The process is alive', response: { 200: ref(Liveness) } } },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      `${prefix}/health/uptime`,
      {
        schema: {
          tags: ['health'],
          operationId: id('getUptime'),
          summary: 'Uptime',
          response: { 200: ref(Uptime) },
        },
      },
      async () => ({
        status: 'ok' as const,
        uptimeSeconds: Math.floor((Date.now() - deps.startedAt.getTime()) / 1000),
        startedAt: deps.startedAt.toISOString(),
        version: deps.version,
      }),
    );
  }
};

import { randomFillSync } from 'node:crypto';
import { maxHeaderSize } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import { AppError } from '../errors.js';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Container } from '../container.js';
import { healthRoutes } from '../modules/health/health-routes.js';
import { quotaRoutes } from '../modules/quota/quota-routes.js';
import { transactionRoutes } from '../modules/transactions/transaction-routes.js';
import { verificationRoutes } from '../modules/verification/verification-routes.js';
import { lineWebhookRoutes } from '../modules/line/line-webhook-routes.js';
import { dashboardRoutes } from './dashboard-routes.js';
import { publicUrlOf } from '../modules/accounts/accounts-module.js';
import { identifyApiKey, quotaHeadersHook, type ApiAuthDeps } from './api-auth.js';
import { ErrorEnvelope, QuotaWallErrorSchema } from './common-schemas.js';
import { clientErrorHandler, errorBody, registerEnvelope } from './envelope.js';
import { inputGuard } from './input-guard.js';
import { registerWebApp } from './web-static.js';
import { reusedSchemaCompilers } from './schema-compilers.js';
import { enrichOpenApi } from './openapi-document.js';
import { metrics } from '../lib/metrics.js';
import { TLS_PROFILE } from './tls.js';

export const VERSION = '0.1.0';
const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

// Request ids take 12 random bytes each from a pool filled 4 KB at a time: one randomFillSync per
// ~340 requests instead of one per request (it showed in the replay profile, issue 24).
const ID_BYTES = 12;
const idPool = Buffer.alloc(ID_BYTES * 341);
let idAt = idPool.length;
function newRequestId(): string {
  if (idAt + ID_BYTES > idPool.length) {
    randomFillSync(idPool);
    idAt = 0;
  }
  idAt += ID_BYTES;
  return `req_${idPool.toString('hex', idAt - ID_BYTES, idAt)}`;
}

/** Builds the HTTP app; never listens (main.ts does), so tests use inject() or listen on port 0. */
export interface BuildAppOptions {
  logger?: boolean | object;
  /** HTTPS served by the service itself (TLS_CERT_FILE/TLS_KEY_FILE): TLS 1.2 minimum, HSTS on every answer. */
  https?: { cert: Buffer; key: Buffer };
  /** True once a graceful shutdown began: /health answers 503 so load balancers stop sending. */
  draining?: () => boolean;
  /**
   * Which routes app.swagger() documents: the public contract (default, served at /api/v1/openapi.json),
   * or the private dashboard API from which scripts/gen-api-types.ts generates the web app's types.
   */
  openApi?: 'public' | 'dashboard';
}
const DOCUMENTED = { public: /^\/(api\/v1|health|v1\/health)(\/|$)/, dashboard: /^\/api\/dashboard(\/|$)/ };

/** The largest request body Fastify reads, in bytes (an image upload fits). */
const BODY_LIMIT = 1024 * 1024;

const HEALTH_ROUTE = /^(\/v1)?\/health(\/|$)/;

export async function buildApp(container: Container, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const c = container; // short inside this function only: it reads a field of the container on almost every line
  // Slow clients: headers and the whole request must arrive within their bounds (408, then the
  // connection closes), so a byte-every-few-seconds sender cannot hold a socket for ever. Node checks
  // these bounds every connectionsCheckingInterval, so that is a fraction of the smallest one.
  const timeouts = {
    headersTimeout: c.config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: c.config.HTTP_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(1000, Math.floor(c.config.HTTP_HEADERS_TIMEOUT_MS / 4)),
  };
  const app = Fastify({
    ...(opts.https ? { https: { cert: opts.https.cert, key: opts.https.key, ...TLS_PROFILE, ...timeouts } } : { http: timeouts }),
    requestTimeout: c.config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: c.config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: clientErrorHandler({ timeZone: c.config.TIME_ZONE, now: () => c.clock.now() }),
    ...(opts.logger !== undefined ? { logger: opts.logger } : { loggerInstance: c.logger as FastifyBaseLogger }),
    trustProxy: c.config.TRUST_PROXY,
    bodyLimit: BODY_LIMIT,
    // The closing server's 503 comes from the hook below, after the body is read (see there).
    return503OnClosing: false,
    // The router's own refusal of a long path segment (414 past 100 characters) bypasses the error
    // handler: no envelope, no request id, the path echoed back. Bounded by Node's own limit on the
    // request head instead (a longer URL is refused before routing, 414 URI_TOO_LONG), so every id
    // reaches its route: an over-long record id is a 404 like any unknown one, others a 400 from the
    // route's schema.
    routerOptions: { maxParamLength: maxHeaderSize },
    // The router's own refusals (a path segment whose percent-escapes do not decode: /transactions/%FF)
    // bypass the error handler: a bare {"code":"FST_ERR_BAD_URL"} without the envelope's success, path,
    // requestId and timestamp. Answered in the envelope like every other 4xx.
    frameworkErrors: (err, req, reply) => {
      const badUrl = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const [status, code, message]: [number, 'VALIDATION_ERROR' | 'INTERNAL_ERROR', string] = badUrl
        ? [
            400,
            'VALIDATION_ERROR',
            'The URL path has a malformed percent-escape: encode each path segment as UTF-8 (encodeURIComponent) and send again',
          ]
        : [500, 'INTERNAL_ERROR', 'Internal server error'];
      void (reply as FastifyReply)
        .status(status)
        .header('X-Request-Id', req.id)
        .type('application/json; charset=utf-8')
        .send(errorBody(req, status, message, code, {}, c.config.TIME_ZONE, c.clock.now()));
    },
    // A client-supplied X-Request-Id is kept when it looks sane, so integrators can trace a call end to end.
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && REQUEST_ID.test(h) ? h : newRequestId();
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: true } },
    // Each route schema compiled once per process, not once per app (schema-compilers.ts).
    schemaController: { compilersFactory: reusedSchemaCompilers as never },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addSchema(ErrorEnvelope);
  app.addSchema(QuotaWallErrorSchema);
  registerEnvelope(app, { timeZone: c.config.TIME_ZONE, now: () => c.clock.now(), identifyKey: identifyApiKey({ apiKeys: c.apiKeys }) });
  // Callback hooks where nothing is awaited: an async hook costs every request a promise and a turn
  // of the microtask queue (issue 24: a replay's time on the main thread).
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id);
    done();
  });
  // A request that reaches a closing server (SIGTERM drain: a connection accepted just before the
  // listener closed) is answered 503 in the envelope once its upload has been read. Fastify's own 503
  // came before the body, then closed the connection with the upload still arriving; a socket closed
  // with unread data is reset, so the client got ECONNRESET instead of the answer and could not tell a
  // refused verify from a lost one (the production SIGTERM test saw it about one run in two). The read
  // is bounded (twice the body limit, then the connection is cut anyway) and by the request timeout.
  // A callback hook: every request passes it, and while serving it only reads a flag (no promise).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Health routes answer for themselves while closing: /health says 503 in its own body (a load
  // balancer reads that body's shape), liveness says alive. The envelope on /health failed its 503
  // schema and went out as a 500 (seen firing /health at a node under SIGTERM).
  app.addHook('onRequest', (req, _reply, done) => {
    if (!closing || HEALTH_ROUTE.test(req.routeOptions.url ?? '')) return done();
    const refuse = () => done(new AppError('SERVICE_UNAVAILABLE', 503, 'the service is restarting; retry in a moment'));
    void (async () => {
      let read = 0;
      for await (const chunk of req.raw) if ((read += (chunk as Buffer).length) > 2 * BODY_LIMIT) break;
    })().then(refuse, refuse);
  });
  if (opts.https)
    app.addHook('onRequest', (_req, reply, done) => {
      reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
      done();
    });
  // Route patterns (never raw URLs) keep ids and keys out of the labels. 429s are counted by the rate
  // limiter, which knows which limit refused (lib/rate-limiter.ts).
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe({ method: req.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onSend', quotaHeadersHook(c));
  app.addHook('preValidation', inputGuard);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'slipcheck API',
        version: VERSION,
        description: 'Checks Thai bank-transfer slips for shops. See the README for the full contract.',
        // MIT like the SDK whose types are generated from this document: integrators may generate clients from it freely.
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'slipcheck support', ...(c.config.PUBLIC_URL ? { url: c.config.PUBLIC_URL } : {}) },
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'sk_live_... or sk_test_...' } } },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) || `def-${i}` },
    // The public contract only: the dashboard and LINE routes are private and documented in docs/dashboard-api.md.
    transform: ({ schema, url }) => ({
      schema: (DOCUMENTED[opts.openApi ?? 'public'].test(url) ? schema : { ...schema, hide: true }) as typeof schema,
      url,
    }),
    // Raw image body, headers, 405/503, webhooks, health security: what route schemas cannot say.
    // The dashboard's document (never served) is the route schemas as they are, under its own title.
    transformObject: (d) =>
      ('openapiObject' in d
        ? opts.openApi === 'dashboard'
          ? { ...d.openapiObject, info: { title: 'slipcheck dashboard API (private)', version: VERSION } }
          : enrichOpenApi(d.openapiObject as Record<string, unknown>)
        : d.swaggerObject) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs' });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const auth: ApiAuthDeps = {
    apiKeys: c.apiKeys,
    quota: c.quota,
    rateLimiter: c.rateLimiter,
    perKeyPerMinute: c.config.RATE_LIMIT_PER_KEY,
    verifyPerMinute: c.config.RATE_LIMIT_VERIFY_PER_SHOP,
  };
  await app.register(healthRoutes, {
    db: c.db,
    startedAt: c.startedAt,
    version: VERSION,
    draining: () => closing || (opts.draining?.() ?? false),
    checker: () => c.checkerIncidents.health(),
    pingRedis: c.redis ? async () => (await c.redis!.ping()) === 'PONG' : undefined,
    decoder: () => c.decoderHealth()?.status ?? null,
  });
  await app.register(quotaRoutes, { auth, quota: c.quota, payees: c.payees });
  await app.register(transactionRoutes, { auth, transactions: c.transactions });
  await app.register(verificationRoutes, {
    auth,
    verification: c.verification,
    maxImageBytes: c.config.MAX_IMAGE_BYTES,
    timeZone: c.config.TIME_ZONE,
    now: () => c.clock.now(),
  });
  await app.register(lineWebhookRoutes, { channels: c.line.channels, eventLog: c.line.eventLog });
  await app.register(dashboardRoutes, {
    config: c.config,
    publicUrl: publicUrlOf(c.config),
    clock: c.clock,
    rateLimiter: c.rateLimiter,
    bus: c.bus,
    accounts: c.accounts,
    sessions: c.sessions,
    tokens: c.dashboardTokens,
    shops: c.shops,
    plans: c.plans,
    audit: c.audit,
    payees: c.payees,
    apiKeys: c.apiKeys,
    quota: c.quota,
    transactions: c.transactions,
    verification: c.verification,
    webhooks: c.webhooks,
    overview: c.overview,
    team: c.team,
    privacy: c.privacy,
    lineLogin: {
      lineLogin: c.lineLogin,
      client: c.lineLoginClient,
      liffId: c.config.LIFF_ID,
      liffMock: c.config.LIFF_MOCK,
      authorizeUrl: c.config.LINE_LOGIN_AUTHORIZE_URL,
      channelId: c.config.LINE_LOGIN_CHANNEL_ID,
      secret: c.secret,
    },
    line: { line: c.line, shops: c.shops, plans: c.plans },
    reports: { reports: c.reports, shops: c.shops },
  });
  // Last, so every API route above stays more specific than the dashboard's SPA fallback.
  await registerWebApp(app);
  return app;
}

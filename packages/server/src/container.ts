import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createServiceLogger } from './http/service-logger.js';
import type { Config } from './config.js';
import { databaseStartError, openDatabase, type DbHandle } from './db/db.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock, type Clock } from './lib/clock.js';
import { readOrCreateDevSecret } from './lib/dev-secret.js';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './lib/rate-limiter.js';
import { createMemoryBus, type ResultsBus } from './lib/results-bus.js';
import { createRedisBus } from './lib/results-bus-redis.js';
import { watchRedis } from './lib/redis-state.js';
import { createOutboxWorker } from './outbox/outbox-worker.js';
import { createScheduler, SCHEDULED_JOB } from './outbox/outbox-schedule.js';
import type { OutboxHandlers } from './outbox/outbox-types.js';
import { createWebhookModule } from './modules/webhooks/webhook-module.js';
import { createApiKeyService } from './modules/api-keys/api-key-service.js';
import { createAuditService } from './modules/audit/audit-service.js';
import { createPayeeService } from './modules/payees/payee-service.js';
import { createPlanService, loadCatalogue } from './modules/plans/plan-service.js';
import { createQuotaService } from './modules/quota/quota-service.js';
import { createDbTestUsageCounter } from './modules/quota/test-usage-counter.js';
import { createShopService } from './modules/shops/shop-service.js';
import { createTransactionService } from './modules/transactions/transaction-service.js';
import { checkerUrlsWithSandboxDefault, createCheckerFromConfig } from './modules/checker/checker-factory.js';
import { createCheckerIncidents, type OperatorNotice } from './modules/checker/checker-accounts.js';
import { mailTemplates } from './modules/mail/mail-templates.js';
import type { Checker } from './modules/checker/checker-port.js';
import { createSlipDecoderPool, type SlipDecoderPool, type SlipDecoderPoolOptions } from './modules/slip-qr/slip-qr-pool.js';
import type { DecodeResult } from './modules/slip-qr/slip-qr-decoder.js';
import { createImageClaims } from './modules/verification/image-claims.js';
import { createVerificationService } from './modules/verification/verification-service.js';
import { createHousekeeping } from './modules/housekeeping/housekeeping-service.js';
import { composeHandlers, createLineModule } from './modules/line/line-module.js';
import { countParked, outboxBacklog } from './outbox/outbox-repo.js';
import { createMailService } from './modules/mail/mail-service.js';
import { createAccountsModule, publicUrlOf } from './modules/accounts/accounts-module.js';
import { createMailOwnerAlertHandler, OWNER_ALERT_JOB } from './modules/mail/mail-owner-alerts.js';
import { addDecoderSource, addOutboxSource } from './lib/metrics.js';
import { createLineLoginClient } from './modules/line-login/line-login-client.js';
import { createLineLoginService } from './modules/line-login/line-login-service.js';
import { createReportsModule } from './modules/reports/reports-module.js';
import { createOverviewService } from './modules/dashboard/overview-service.js';
import { createTeamService } from './modules/team/team-service.js';
import { createPrivacyService } from './modules/privacy/privacy-service.js';
import { DAILY_SUMMARY_KIND } from './modules/reports/reports-summary.js';
import { purgeWebhooksOfShop } from './modules/webhooks/webhook-repo.js';
import { purgeSessionsOfShop } from './modules/accounts/accounts-repo.js';
import { purgeInvitesOfShop } from './modules/team/team-repo.js';
import { purgeUsersOfShop } from './modules/accounts/accounts-repo.js';
import { purgeMailOfShop } from './modules/mail/mail-repo.js';
import { purgeLineDeliveryOfShop } from './modules/line/line-delivery-repo.js';
import { purgeLineLoginsOfShop } from './modules/line-login/line-login-repo.js';
import { purgeLineLinksOfShop } from './modules/line/line-repo.js';
import { purgeClaimsOfShop } from './modules/verification/image-claims.js';
import { purgePayeeRefusalsOfShop } from './modules/verification/payee-refusals.js';
import { purgeOutboxOfShop } from './outbox/outbox-repo.js';
import { purgeTransactionsOfShop } from './modules/transactions/transaction-repo.js';
import { purgeApiKeysOfShop } from './modules/api-keys/api-key-repo.js';
import { purgePayeesOfShop } from './modules/payees/payee-repo.js';
import { purgeQuotaOfShop } from './modules/quota/quota-repo.js';
import { purgeReportsOfShop } from './modules/reports/reports-repo.js';

export interface ContainerOverrides {
  clock?: Clock;
  rateLimiter?: RateLimiter;
  /** Tests run many containers in one process: they pass a handle instead of opening one. */
  dbHandle?: DbHandle;
  bus?: ResultsBus;
  checker?: Checker;
  /** Tests replace the decoder (e.g. to make it busy); production uses the decoder process pool. */
  decode?: (image: Buffer, shopId?: string) => Promise<DecodeResult>;
  /** Tests tune the real decoder pool (kill limit, a decoder that cannot start). */
  decoderPool?: Omit<SlipDecoderPoolOptions, 'threads'>;
  /**
   * A decoder pool the caller owns, for these options; the container uses it and never closes it.
   * The tests share one per process: two decoder processes per harness cost ~1 s of wall time and
   * ~3 s of CPU to start, dozens of times per run.
   */
  sharedDecoderPool?: (options: SlipDecoderPoolOptions) => SlipDecoderPool;
  logger?: Logger;
  /** PostgreSQL schema of the migration bookkeeping (tests give each run its own schema). */
  migrationSchema?: string;
}

/**
 * The development master secret lives in DATA_DIR so restarts keep sessions and encrypted secrets
 * readable; production must set SECRET_KEY (config refuses to start without it).
 */
function masterSecret(config: Config): string {
  return config.SECRET_KEY || readOrCreateDevSecret(config.DATA_DIR);
}

/** Composition root: one place builds the graph, so the HTTP app, the worker and the CLI share it. */
export async function createContainer(config: Config, overrides: ContainerOverrides = {}) {
  const clock = overrides.clock ?? systemClock;
  // One logger for HTTP, the pipeline and the worker. Secrets never reach it: headers are redacted, and
  // failures are logged by code and step, not with request bodies or upstream answers.
  // Token query values (reset/invite links, LINE Login codes) are redacted too: see http/service-logger.ts.
  const logger = overrides.logger ?? createServiceLogger(config.LOG_LEVEL);
  const logFailure = (where: string) => (err: unknown) =>
    logger.warn(
      { where, code: (err as { code?: string })?.code, message: (err as Error)?.message?.slice(0, 200) },
      'background step failed',
    );
  let handle: DbHandle | undefined;
  try {
    handle =
      overrides.dbHandle ??
      openDatabase({
        databaseUrl: config.DATABASE_URL,
        dataDir: config.DATA_DIR,
        connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
        onConnectionError: (err) =>
          logger.warn(
            { code: (err as { code?: string }).code, message: err.message.slice(0, 200) },
            'database connection lost; the pool reconnects on the next query',
          ),
      });
    await migrateToLatest(handle.db, overrides.migrationSchema);
  } catch (e) {
    // The first query is the migration: a database that cannot be reached (or does not exist) fails
    // here. One sentence naming DATABASE_URL (or DATA_DIR) for main.ts and the CLI, not pg's stack.
    await handle?.close().catch(() => undefined);
    throw databaseStartError(e, { databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  }
  const { db } = handle;
  // Redis is an accelerator, never a single point of failure: while it is down, commands fail fast
  // (no offline queue, a short command timeout) and every caller falls back (each node enforces its
  // share of every limit, the bus stays local). docs/operations.md "Redis lost" lists what degrades.
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1000, connectTimeout: 2000 })
    : null;
  redis?.on('error', () => undefined); // reported by /health
  const redisState = redis ? watchRedis(redis, logger) : null;
  if (redis)
    await new Promise<void>((resolve) => {
      redis.once('ready', resolve);
      setTimeout(resolve, 2000).unref();
    });

  const audit = createAuditService({ db, clock });
  const plans = createPlanService({ db, clock });
  await plans.sync(loadCatalogue(config.PLANS_FILE || undefined));
  const shops = createShopService({ db, clock, audit, plans });
  const payees = createPayeeService({ db, clock, audit });
  const apiKeys = createApiKeyService({ db, clock, audit, shops, plans });
  // Test-key usage is counted in the database even with Redis: a check cannot run without the database,
  // so the test cap is always measurable and a test call never falls back onto the paid live pool.
  const testCounter = createDbTestUsageCounter(db, clock);
  const quota = createQuotaService({
    db,
    clock,
    audit,
    testCounter,
    timeZone: config.TIME_ZONE,
    testQuotaLimit: config.TEST_QUOTA_LIMIT,
    recentMs: config.REPLAY_MEMORY_MS,
  });
  const transactions = createTransactionService({ db, timeZone: config.TIME_ZONE });
  const rateLimiter =
    overrides.rateLimiter ?? (redis ? createRedisRateLimiter(redis, { minNodes: config.RATE_LIMIT_NODES }) : createMemoryRateLimiter());
  const bus = overrides.bus ?? (redis ? createRedisBus(redis) : createMemoryBus());

  const closers: Array<() => Promise<void>> = [];
  const secret = masterSecret(config);
  // Newest first: the first master secret seals, every listed one still opens (rotation).
  const sealingSecrets = [
    secret,
    ...config.SECRET_KEY_PREVIOUS.split(',')
      .map((k) => k.trim())
      .filter(Boolean),
  ];
  const defaultSandbox = `http://127.0.0.1:${config.SANDBOX_PORT}`;
  // Provider account problems and overage reach the operator: log, one e-mail per incident (the
  // dedupe key also holds across nodes for the same upstream, reason and day), /health.
  let operatorMail: ((n: OperatorNotice) => Promise<unknown>) | null = null;
  const checkerIncidents = createCheckerIncidents({
    now: () => clock.now(),
    log: logger,
    maxOverage: config.CHECKER_MAX_OVERAGE,
    notify: (n) => operatorMail?.(n),
  });
  const configuredChecker = overrides.checker
    ? null
    : createCheckerFromConfig({
        incidents: checkerIncidents,
        checker: config.CHECKER,
        checkerUrl: checkerUrlsWithSandboxDefault(
          { checker: config.CHECKER, checkerUrl: config.CHECKER_URL, checkerKey: config.CHECKER_KEY },
          defaultSandbox,
        ),
        checkerKey: config.CHECKER_KEY,
        timeoutMs: config.CHECKER_TIMEOUT_MS,
        deadlineMs: config.CHECKER_DEADLINE_MS,
      });
  if (configuredChecker) closers.push(() => configuredChecker.close());
  const checker = overrides.checker ?? configuredChecker!;
  // Decoder processes start on first use, so the CLI and the worker process never pay for them; the
  // service starts them as soon as it listens (main.ts).
  let pool: SlipDecoderPool | null = null;
  closers.push(async () => {
    if (!overrides.sharedDecoderPool) await pool?.close();
  });
  const poolOptions: SlipDecoderPoolOptions = {
    ...overrides.decoderPool,
    threads: config.DECODE_THREADS || undefined,
    warmReader: config.SLIP_EDIT_MODE !== 'off',
  };
  // The shop id keys the pool's fair queue: one shop's flood cannot take another shop's decoder time.
  const getPool = () => (pool ??= (overrides.sharedDecoderPool ?? createSlipDecoderPool)(poolOptions));
  // `keep`: callers hold their image until the answer and do not change it; the pool reads it in place.
  const decode = overrides.decode ?? ((image: Buffer, shopId?: string) => getPool().decode(image, { key: shopId, keep: true }));
  // Edited slips (SLIP_EDIT_MODE): the same pool job decodes and then reads the printed amount.
  const decodeAndRead = overrides.decode
    ? undefined
    : (image: Buffer, shopId?: string) => getPool().decodeAndRead(image, { key: shopId, keep: true });
  const claims = createImageClaims({
    db,
    now: () => clock.now(),
    windowMs: config.IMAGE_CACHE_HOURS * 3_600_000,
    inFlightTakeoverMs: config.CHECKER_DEADLINE_MS + 60_000,
    waitMs: config.CHECKER_DEADLINE_MS + 30_000,
    leaseMs: config.CLAIM_LEASE_MS,
  });
  const verification = createVerificationService({
    db,
    caps: handle.caps,
    clock,
    shops,
    plans,
    payees,
    quota,
    transactions,
    claims,
    decode,
    decodeAndRead,
    editMode: config.SLIP_EDIT_MODE,
    checker,
    bus,
    maxImageBytes: config.MAX_IMAGE_BYTES,
    timeZone: config.TIME_ZONE,
    staleMode: config.SLIP_STALE_MODE,
    staleMaxAgeHours: config.SLIP_STALE_MAX_AGE_HOURS,
    replayMemoryMs: config.REPLAY_MEMORY_MS,
    onError: (err, where) => logFailure(`verify:${where}`)(err),
    log: logger,
  });
  const mail = createMailService({ db, clock, smtpUrl: config.SMTP_URL || undefined, from: config.MAIL_FROM });
  closers.push(() => mail.close());
  if (config.OPERATOR_EMAIL) {
    operatorMail = (n) => {
      const day = clock.now().toISOString().slice(0, 10);
      const reason = 'reason' in n ? n.reason : '';
      return mail.send(config.OPERATOR_EMAIL, mailTemplates.operatorCheckerAlert({ ...n, timeZone: config.TIME_ZONE }), null, {
        dedupeKey: `operator:${n.type}:${n.upstream}:${reason}:${day}`,
      });
    };
  }
  // Quota and overage of each provider account (metrics, the overage cap and its alerts), polled by
  // the process that checks slips (main.ts starts it; the CLI never calls a provider by itself).
  let pollTimer: NodeJS.Timeout | null = null;
  const startCheckerPolling = () => {
    if (!configuredChecker || config.CHECKER_QUOTA_POLL_MS === 0 || pollTimer) return;
    const poll = () => void configuredChecker.pollAccounts().catch((err) => logFailure('checker:quota-poll')(err));
    pollTimer = setInterval(poll, config.CHECKER_QUOTA_POLL_MS);
    pollTimer.unref();
    poll();
  };
  closers.push(async () => {
    if (pollTimer) clearInterval(pollTimer);
  });
  const {
    accounts,
    sessions,
    tokens: dashboardTokens,
    hasher,
    outboxHandlers: accountHandlers,
  } = createAccountsModule({ db, clock, audit, shops, plans, mail, secret, config });
  // The dashboard's read models, staff seats and personal-data rights (one password hasher, shared with accounts).
  const overview = createOverviewService({ transactions, clock, timeZone: config.TIME_ZONE });
  const team = createTeamService({
    db,
    clock,
    audit,
    plans,
    shops,
    sessions,
    accounts,
    mail,
    hasher,
    publicUrl: publicUrlOf(config),
    // `line` is made below; called only when a member is removed, long after.
    onMemberRemoved: (shopId, memberId, actor, trx) => line.owners.unlinkMadeBy(shopId, memberId, actor, trx),
  });
  const lineLoginClient = createLineLoginClient({
    apiBaseUrl: config.LINE_API_BASE_URL,
    channelId: config.LINE_LOGIN_CHANNEL_ID,
    channelSecret: config.LINE_LOGIN_CHANNEL_SECRET,
    timeoutMs: config.LINE_HTTP_TIMEOUT_MS,
    now: () => clock.now(),
  });
  const lineLogin = createLineLoginService({
    db,
    clock,
    audit,
    sessions,
    accounts,
    shops,
    mail,
    securityUrl: `${publicUrlOf(config)}/security`,
    timeZone: config.TIME_ZONE,
  });
  const line = createLineModule({
    config,
    dashboardUrl: publicUrlOf(config),
    db,
    clock,
    audit,
    plans,
    shops,
    transactions,
    secret: sealingSecrets,
    verifySlip: verification.verifySlip,
    reusedTransfer: verification.reusedTransfer,
    decode,
    roleOf: (userId) => accounts.roleOf(userId),
    log: logger,
  });
  const webhookModule = createWebhookModule({ db, clock, audit, plans, shops, transactions, masterSecrets: sealingSecrets, config });
  closers.push(() => webhookModule.close());
  const privacy = createPrivacyService({
    db,
    clock,
    timeZone: config.TIME_ZONE,
    shops,
    accounts,
    sessions,
    payees,
    apiKeys,
    webhooks: webhookModule.service,
    transactions,
    audit,
    mail,
    line,
    lineLogin,
    team,
    onMailError: (err) => logger.warn({ code: (err as { code?: string }).code }, 'erasure confirmation mail failed'),
  });
  // The outbox registry: modules add their handlers here before the worker starts (main.ts / `slipcheck worker`).
  const outboxHandlers: OutboxHandlers = { ...line.outboxHandlers, ...webhookModule.handlers, ...accountHandlers };
  // owner.alert tells every channel: LINE push (line module) and e-mail (mail module).
  outboxHandlers[OWNER_ALERT_JOB] = composeHandlers(
    line.outboxHandlers[OWNER_ALERT_JOB],
    createMailOwnerAlertHandler({
      shops,
      mail,
      recipients: (shopId) => accounts.activeEmailsOfShop(shopId),
      dashboardUrl: publicUrlOf(config),
      timeZone: config.TIME_ZONE,
    }),
  );
  // Money totals, exports and the daily summary (its job kind and a per-minute scheduler below).
  const reports = createReportsModule({
    db,
    clock,
    timeZone: config.TIME_ZONE,
    audit,
    shops,
    plans,
    quota,
    transactions,
    payees,
    accounts,
    sessions,
    line,
    mail,
    dashboardUrl: publicUrlOf(config),
    defaultRetentionMonths: config.PDPA_RETENTION_MONTHS,
  });
  outboxHandlers[DAILY_SUMMARY_KIND] = reports.summary.handler;
  const outboxFinalFailure = webhookModule.onFinalFailure;
  const reencryptSecrets = async () => ({
    webhookEndpoints: await webhookModule.service.reencryptSecrets(),
    lineChannels: await line.channels.reencryptSecrets(),
  });
  const housekeeping = createHousekeeping({
    db,
    // Purging an erased shop: each module deletes its own rows, children before parents.
    purges: [
      purgeWebhooksOfShop,
      purgeSessionsOfShop,
      purgeInvitesOfShop,
      purgeLineLoginsOfShop,
      purgeUsersOfShop,
      purgeMailOfShop,
      purgeLineDeliveryOfShop,
      purgeLineLinksOfShop,
      purgeClaimsOfShop,
      purgePayeeRefusalsOfShop,
      purgeOutboxOfShop,
      purgeTransactionsOfShop,
      purgeApiKeysOfShop,
      purgePayeesOfShop,
      purgeQuotaOfShop,
      purgeReportsOfShop,
    ],
    clock,
    audit,
    claims,
    shops,
    accounts,
    sessions,
    transactions,
    webhooks: webhookModule.service,
    defaultRetentionMonths: config.PDPA_RETENTION_MONTHS,
  });
  // Scheduled tasks: one run per slot across all worker nodes (outbox/outbox-schedule.ts). The names
  // are part of the slot keys stored in the outbox: never rename one.
  const hour = config.SCHEDULE_SLOT_MS;
  const scheduler = createScheduler({
    db,
    clock,
    leaseMs: config.WORKER_LEASE_MS,
    log: logger,
    tasks: [
      ...housekeeping.tasks(hour),
      { name: 'webhooks.prune-deliveries', everyMs: hour, run: (renew) => webhookModule.service.prune(renew) },
      { name: 'line.prune-events', everyMs: hour, run: (renew) => line.eventLog.prune(renew) },
      { name: 'secrets.reencrypt', everyMs: hour, run: () => reencryptSecrets() },
      { name: 'outbox.prune-done', everyMs: hour, run: (renew) => worker.pruneDone(renew) },
      { name: 'mail.prune', everyMs: hour, run: (renew) => mail.prune(renew) },
      { name: 'outbox.prune-failed', everyMs: hour, run: (renew) => worker.pruneFailed(renew) },
      // Expired credentials: each module deletes its own (sessions and refresh tokens, reset links, LINE codes).
      { name: 'sessions.prune', everyMs: hour, run: (renew) => sessions.prune(renew) },
      { name: 'accounts.prune-resets', everyMs: hour, run: (renew) => accounts.pruneResets(renew) },
      { name: 'line.prune-link-codes', everyMs: hour, run: (renew) => line.linkCodes.prune(renew) },
      { name: 'line-login.prune', everyMs: hour, run: (renew) => lineLogin.prune(renew) },
      // Each shop picks its summary minute; the summary itself is once per shop and day (daily_summaries).
      { name: 'reports.summary-due', everyMs: Math.min(60_000, hour), run: () => reports.summary.scheduleDue() },
      // Slips refused for want of a payee account: the owner is told once a day, a minute after the first.
      { name: 'verification.payee-refusal-alerts', everyMs: Math.min(60_000, hour), run: () => verification.alertPayeeRefusals() },
    ],
  });
  outboxHandlers[SCHEDULED_JOB] = scheduler.handler;
  const worker = createOutboxWorker({
    db,
    caps: handle.caps,
    clock,
    handlers: outboxHandlers,
    leaseMs: config.WORKER_LEASE_MS,
    pollMs: config.WORKER_POLL_MS,
    concurrency: config.WORKER_CONCURRENCY,
    batch: Math.min(50, config.WORKER_CONCURRENCY),
    onError: (err, job) => logFailure(`outbox:${job?.kind ?? 'maintenance'}`)(err),
    onFinalFailure: outboxFinalFailure,
    maintenance: [
      // Each node looks at the clock a few times per slot and queues the slots it sees first.
      { everyMs: scheduler.tickMs, run: () => scheduler.tick() },
      // Units and slips held by checks of a dead node come back within about two leases. Per node on
      // purpose: each sweep is a few conditional updates, and recovery must not wait on any one node.
      { everyMs: config.CLAIM_LEASE_MS, run: () => verification.sweepOrphans() },
    ],
  });
  closers.push(() => worker.stop({ timeoutMs: 5000 }));
  // Scrape-time gauges (lib/metrics.ts): the decoder pool's load and the outbox backlog.
  const removeDecoderSource = addDecoderSource(() => pool?.stats() ?? null);
  const removeOutboxSource = addOutboxSource(async () => ({ ...(await outboxBacklog(db, clock.now())), parked: await countParked(db) }));
  closers.push(async () => {
    removeDecoderSource();
    removeOutboxSource();
  });
  const container = {
    config,
    clock,
    logger,
    db,
    caps: handle.caps,
    redis,
    secret,
    audit,
    plans,
    shops,
    payees,
    apiKeys,
    quota,
    transactions,
    rateLimiter,
    bus,
    checker,
    configuredChecker,
    checkerIncidents,
    startCheckerPolling,
    claims,
    verification,
    mail,
    accounts,
    sessions,
    dashboardTokens,
    overview,
    team,
    privacy,
    line,
    lineLogin,
    lineLoginClient,
    reports,
    webhooks: webhookModule.service,
    outboxHandlers,
    outboxFinalFailure,
    worker,
    scheduler,
    housekeeping,
    reencryptSecrets,
    startedAt: new Date(),
    /** Readiness of the decoder pool (null until it starts: when the service listens, elsewhere on the first decode). */
    decoderHealth: () => pool?.health() ?? null,
    /**
     * Starts the decoder processes now instead of on the first slip (the service does this once it
     * listens): a decoder loads its wasm, and the OCR engine when printed amounts are read, for a few
     * seconds, which would otherwise land on the first customer after a deploy.
     */
    startDecoders: () => void getPool(),
    async close() {
      for (const fn of closers.reverse()) await fn().catch(() => undefined);
      await apiKeys.close();
      await bus.close();
      rateLimiter.close?.();
      redisState?.stop();
      redis?.disconnect();
      if (!overrides.dbHandle) await handle.close();
    },
  };
  return container;
}
export type Container = Awaited<ReturnType<typeof createContainer>>;

import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { RateLimiter } from '../lib/rate-limiter.js';
import type { ResultsBus } from '../lib/results-bus.js';
import { accountRoutes, type AccountRouteDeps } from '../modules/accounts/account-routes.js';
import type { AccessTokens } from '../modules/accounts/access-tokens.js';
import type { AccountService } from '../modules/accounts/account-service.js';
import type { DashboardAuthDeps } from '../modules/accounts/session-auth.js';
import type { SessionService } from '../modules/accounts/session-service.js';
import type { ApiKeyService } from '../modules/api-keys/api-key-service.js';
import type { AuditService } from '../modules/audit/audit-service.js';
import { lineDashboardRoutes } from '../modules/line/line-dashboard-routes.js';
import { lineLoginRoutes, type LineLoginRouteDeps } from '../modules/line-login/line-login-routes.js';
import type { PayeeService } from '../modules/payees/payee-service.js';
import type { PlanService } from '../modules/plans/plan-service.js';
import { privacyRoutes } from '../modules/privacy/privacy-routes.js';
import type { PrivacyService } from '../modules/privacy/privacy-service.js';
import type { QuotaService } from '../modules/quota/quota-service.js';
import { reportsRoutes } from '../modules/reports/reports-routes.js';
import type { ShopService } from '../modules/shops/shop-service.js';
import { teamRoutes } from '../modules/team/team-routes.js';
import type { TeamService } from '../modules/team/team-service.js';
import type { TransactionService } from '../modules/transactions/transaction-service.js';
import type { VerificationService } from '../modules/verification/verification-service.js';
import type { WebhookService } from '../modules/webhooks/webhook-service.js';
import { eventsRoutes } from '../modules/dashboard/events-routes.js';
import type { OverviewService } from '../modules/dashboard/overview-service.js';
import { overviewRoutes } from '../modules/dashboard/overview-routes.js';
import { securityRoutes } from '../modules/accounts/security-routes.js';
import { settingsRoutes } from '../modules/settings/settings-routes.js';
import { payeeRoutes } from '../modules/payees/payee-routes.js';
import { apiKeyRoutes } from '../modules/api-keys/api-key-routes.js';
import { webhookDashboardRoutes } from '../modules/webhooks/webhook-routes.js';

/** Options of a plugin whose deps another module defines (LINE, reports): passed through as they are. */
type OptionsOf<P> = P extends (app: never, opts: infer O) => unknown ? Omit<O, 'auth'> : never;

/**
 * What the dashboard's routes use, built in container.ts (services are never built in a plugin).
 * app.ts fills it from the container; each route plugin below receives only its own part.
 */
export interface DashboardDeps {
  config: Pick<
    Config,
    | 'RATE_LIMIT_DASHBOARD'
    | 'RATE_LIMIT_LOGIN'
    | 'COOKIE_SECURE'
    | 'TIME_ZONE'
    | 'MAX_IMAGE_BYTES'
    | 'PDPA_RETENTION_MONTHS'
    | 'NODE_ENV'
    | 'WEBHOOK_ALLOW_PRIVATE'
  >;
  publicUrl: string;
  clock: Clock;
  rateLimiter: RateLimiter;
  bus: ResultsBus;
  accounts: AccountService;
  sessions: SessionService;
  tokens: AccessTokens;
  shops: ShopService;
  plans: PlanService;
  audit: AuditService;
  payees: PayeeService;
  apiKeys: ApiKeyService;
  quota: QuotaService;
  transactions: TransactionService;
  verification: Pick<VerificationService, 'verifySlip' | 'atQuotaWall'>;
  webhooks: WebhookService;
  overview: OverviewService;
  team: TeamService;
  privacy: PrivacyService;
  lineLogin: Omit<LineLoginRouteDeps, 'auth' | 'accounts' | 'shops' | 'tokens' | 'loginPerMinute'>;
  line: OptionsOf<typeof lineDashboardRoutes>;
  reports: OptionsOf<typeof reportsRoutes>;
}

/** Everything under /api/dashboard (see docs/dashboard-api.md). One registration in app.ts. */
export const dashboardRoutes: FastifyPluginAsync<DashboardDeps> = async (app, deps) => {
  const { config, clock, accounts, sessions, tokens, shops, plans, audit, payees, apiKeys, transactions } = deps;
  const auth: DashboardAuthDeps = {
    tokens,
    sessions,
    rateLimiter: deps.rateLimiter,
    perMinute: config.RATE_LIMIT_DASHBOARD,
    publicUrl: deps.publicUrl,
    cookieSecure: config.COOKIE_SECURE,
    roleOf: (userId) => accounts.roleOf(userId),
  };
  const accountDeps: AccountRouteDeps = {
    auth,
    accounts,
    sessions,
    tokens,
    shops,
    plans,
    audit,
    loginPerMinute: config.RATE_LIMIT_LOGIN,
  };
  await app.register(accountRoutes, accountDeps);
  await app.register(overviewRoutes, {
    auth,
    overview: deps.overview,
    shops,
    plans,
    quota: deps.quota,
    payees,
    transactions,
    verification: deps.verification,
    clock,
    maxImageBytes: config.MAX_IMAGE_BYTES,
    timeZone: config.TIME_ZONE,
  });
  await app.register(eventsRoutes, { auth, tokens, sessions, bus: deps.bus, transactions });
  await app.register(payeeRoutes, { auth, payees });
  await app.register(apiKeyRoutes, { auth, apiKeys, shops, plans, transactions, clock, timeZone: config.TIME_ZONE });
  await app.register(settingsRoutes, { auth, shops, accounts, defaultRetentionMonths: config.PDPA_RETENTION_MONTHS });
  await app.register(securityRoutes, { auth, sessions, audit });
  await app.register(webhookDashboardRoutes, {
    auth,
    webhooks: deps.webhooks,
    explainPrivateTargets: config.NODE_ENV === 'development' && !config.WEBHOOK_ALLOW_PRIVATE,
  });
  await app.register(privacyRoutes, { auth, privacy: deps.privacy, passwordChecksPerMinute: config.RATE_LIMIT_LOGIN });
  await app.register(lineDashboardRoutes, { auth, ...deps.line });
  await app.register(reportsRoutes, { auth, ...deps.reports });
  await app.register(teamRoutes, { auth, team: deps.team, accounts, shops, loginPerMinute: config.RATE_LIMIT_LOGIN });
  await app.register(lineLoginRoutes, { auth, accounts, shops, tokens, loginPerMinute: config.RATE_LIMIT_LOGIN, ...deps.lineLogin });
};

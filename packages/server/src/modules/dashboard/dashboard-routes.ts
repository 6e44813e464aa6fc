import type { FastifyPluginAsync } from 'fastify';
import type { Container } from '../../container.js';
import { publicUrlOf } from '../accounts/accounts-module.js';
import { accountRoutes } from '../accounts/account-routes.js';
import type { DashboardAuthDeps } from '../accounts/session-auth.js';
import { eventsRoutes } from './events-routes.js';
import { createOverviewService } from './overview-service.js';
import { overviewRoutes } from './overview-routes.js';
import { securityRoutes } from './security-routes.js';
import { shopRoutes } from './shop-routes.js';
import { webhookDashboardRoutes } from './webhook-routes.js';
import { privacyRoutes } from '../privacy/privacy-routes.js';
import { lineDashboardRoutes } from '../line/line-dashboard-routes.js';
import { createPasswordHasher } from '../accounts/password-hasher.js';
import { createTeamService } from '../team/team-service.js';
import { teamRoutes } from '../team/team-routes.js';
import { lineLoginRoutes } from '../line-login/line-login-routes.js';
import { reportsRoutes } from '../reports/reports-routes.js';

/** Everything under /api/dashboard (see docs/dashboard-api.md). One registration in app.ts. */
export const dashboardRoutes: FastifyPluginAsync<{ c: Container; heartbeatMs?: number }> = async (app, { c, heartbeatMs }) => {
  const auth: DashboardAuthDeps = {
    tokens: c.dashboardTokens,
    sessions: c.sessions,
    rateLimiter: c.rateLimiter,
    perMinute: c.config.RATE_LIMIT_DASHBOARD,
    publicUrl: publicUrlOf(c.config),
    cookieSecure: c.config.COOKIE_SECURE,
  };
  const overview = createOverviewService({ db: c.db, clock: c.clock, timeZone: c.config.TIME_ZONE });
  await app.register(accountRoutes, {
    auth,
    accounts: c.accounts,
    sessions: c.sessions,
    tokens: c.dashboardTokens,
    shops: c.shops,
    plans: c.plans,
    audit: c.audit,
    loginPerMinute: c.config.RATE_LIMIT_LOGIN,
  });
  await app.register(overviewRoutes, { c, auth, overview });
  await app.register(eventsRoutes, { c, auth, heartbeatMs });
  await app.register(shopRoutes, { c, auth, overview });
  await app.register(securityRoutes, { c, auth });
  await app.register(webhookDashboardRoutes, { c, auth });
  await app.register(privacyRoutes, { c, auth });
  await app.register(lineDashboardRoutes, { auth, line: c.line, shops: c.shops, plans: c.plans });
  await app.register(reportsRoutes, { c, auth });
  const team = createTeamService({
    db: c.db,
    clock: c.clock,
    audit: c.audit,
    plans: c.plans,
    shops: c.shops,
    sessions: c.sessions,
    mail: c.mail,
    hasher: createPasswordHasher({ fast: c.config.NODE_ENV === 'test' }),
    publicUrl: auth.publicUrl,
  });
  await app.register(teamRoutes, { c, auth, team });
  await app.register(lineLoginRoutes, {
    auth,
    lineLogin: c.lineLogin,
    client: c.lineLoginClient,
    accounts: c.accounts,
    shops: c.shops,
    tokens: c.dashboardTokens,
    liffId: c.config.LIFF_ID,
    liffMock: c.config.LIFF_MOCK,
    authorizeUrl: c.config.LINE_LOGIN_AUTHORIZE_URL,
    channelId: c.config.LINE_LOGIN_CHANNEL_ID,
    secret: c.secret,
    loginPerMinute: c.config.RATE_LIMIT_LOGIN,
  });
};

import type { Config } from '../../config.js';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import type { AuditService } from '../audit/audit-service.js';
import type { MailService } from '../mail/mail-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import { createAccessTokens } from './access-tokens.js';
import { createAccountService } from './account-service.js';
import { createPasswordHasher } from './password-hasher.js';
import { createSessionService } from './session-service.js';
import { createPasswordResetHandler, PASSWORD_RESET_JOB } from './password-reset-job.js';

export const publicUrlOf = (config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>) =>
  (config.PUBLIC_URL || `http://${config.HOST}:${config.PORT}`).replace(/\/+$/, '');

/** Owner accounts, sessions and the dashboard token issuer, built once in the container. */
export function createAccountsModule(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  shops: ShopService;
  plans: PlanService;
  mail: MailService;
  secret: string;
  config: Config;
}) {
  const { db, clock, audit, config } = deps;
  const hasher = createPasswordHasher({ fast: config.NODE_ENV === 'test' });
  const sessions = createSessionService({ db, clock, audit });
  const tokens = createAccessTokens({ secret: deps.secret, clock });
  const accounts = createAccountService({
    db,
    clock,
    audit,
    shops: deps.shops,
    plans: deps.plans,
    sessions,
    mail: deps.mail,
    hasher,
    publicUrl: publicUrlOf(config),
    timeZone: config.TIME_ZONE,
  });
  // Outbox handlers this module owns (registered by the container).
  const outboxHandlers = { [PASSWORD_RESET_JOB]: createPasswordResetHandler(accounts) };
  return { accounts, sessions, tokens, hasher, outboxHandlers };
}
export type AccountsModule = ReturnType<typeof createAccountsModule>;

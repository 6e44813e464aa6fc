import { Type, type Static } from 'typebox';
import { defineOutboxJob } from '../../outbox/outbox-registry.js';
import type { OutboxHandler } from '../../outbox/outbox-worker.js';
import type { AccountService } from './account-service.js';

/**
 * Outbox kind `accounts.password_reset`: the reset request as the route received it. The request
 * itself only enqueues this job, the same single write whether or not the address has an account, so
 * the answer's time says nothing about the address; the worker looks the address up and mails the link.
 */
export const PASSWORD_RESET_JOB = 'accounts.password_reset';

export const PasswordResetJobSchema = Type.Object({
  /** Normalised address; the row is pruned with the other finished jobs. */
  email: Type.String({ minLength: 1 }),
  ip: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  userAgent: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type PasswordResetJob = Static<typeof PasswordResetJobSchema>;
defineOutboxJob(PASSWORD_RESET_JOB, PasswordResetJobSchema);

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'accounts.password_reset': PasswordResetJob;
  }
}

export function createPasswordResetHandler(
  accounts: Pick<AccountService, 'deliverPasswordReset'>,
): OutboxHandler<'accounts.password_reset'> {
  return async (job) => {
    await accounts.deliverPasswordReset(job.payload.email, { ip: job.payload.ip ?? null, userAgent: job.payload.userAgent ?? null });
  };
}

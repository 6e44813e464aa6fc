import { Type, type Static } from 'typebox';
import { defineOutboxJob } from '../../outbox/outbox-registry.js';

/**
 * The outbox kind this module publishes: a new verification result exists. Its readers (webhooks,
 * and anything else that reacts to results) register handlers for it; the kind string is stored in
 * outbox rows and must not change.
 */
export const RESULT_CREATED_JOB = 'result.created';

export const ResultCreatedJobSchema = Type.Object({
  transactionId: Type.String({ minLength: 1 }),
  shopId: Type.String({ minLength: 1 }),
  source: Type.String(),
});
export type ResultCreatedJob = Static<typeof ResultCreatedJobSchema>;
defineOutboxJob(RESULT_CREATED_JOB, ResultCreatedJobSchema);

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'result.created': ResultCreatedJob;
  }
}

/**
 * The outbox kind this module publishes: a new verification result exists. Its readers (webhooks,
 * and anything else that reacts to results) register handlers for it; the kind string is stored in
 * outbox rows and must not change.
 */
export const RESULT_CREATED_JOB = 'result.created';

export interface ResultCreatedJob {
  transactionId: string;
  shopId: string;
  source: string;
}

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'result.created': ResultCreatedJob;
  }
}

// The result statuses and sources as values, for code that lists or checks them (a filter menu, a
// switch). One table: the server builds its schemas from these, the dashboard shows them, and the
// OpenAPI document (generated from the server's schemas) types them for integrators.
import type { TransactionSource, TransactionStatus } from './types.js';

export const TRANSACTION_STATUSES = [
  'SUCCESS',
  'DUPLICATE',
  'AMOUNT_MISMATCH',
  'RECEIVER_MISMATCH',
  'INVALID',
  'FRAUD',
  'QUOTA_EXCEEDED',
  'PROVIDER_ERROR',
] as const satisfies readonly TransactionStatus[];

export const TRANSACTION_SOURCES = ['API', 'LINE', 'DASHBOARD'] as const satisfies readonly TransactionSource[];

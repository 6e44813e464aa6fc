import type { TransactionRecord as PublicTransactionRecord, TransactionSource, TransactionStatus } from '@slipcheck/sdk';

export { TRANSACTION_STATUSES as STATUSES, TRANSACTION_SOURCES as SOURCES } from '@slipcheck/sdk';
export type TxStatus = TransactionStatus;
export type TxSource = TransactionSource;

/**
 * A result as the service sends it: the type generated from the OpenAPI document (in the SDK, one
 * source for the server's schema, the SDK and this app), less the `quota` only verify answers carry.
 */
export type TransactionRecord = Omit<PublicTransactionRecord, 'quota'>;

/** What the dashboard shows of a plan (the service's Plan; seats and groups only where the route sends them). */
export type Plan = Pick<ServicePlan, 'code' | 'name' | 'monthlyLimit' | 'trialDays' | 'apiAccess' | 'webhooks' | 'priceThb'> &
  Partial<Pick<ServicePlan, 'seats' | 'groups'>>;

// Shapes the service also declares: imported (types only, erased from the bundle) from the one
// import-free file each module keeps for them, so the screens and the service cannot drift.
import type { Shop } from '../../../server/src/modules/shops/shop-types';
import type { Plan as ServicePlan } from '../../../server/src/modules/plans/plan-types';
export type { Shop };

export interface Quota {
  used: number;
  limit: number;
  remaining: number;
  percentUsed?: number;
  allowOverage?: boolean;
  planCode?: string;
  periodMonth?: string;
  daysUntilReset?: number;
  overage?: number;
}

export type Role = 'owner' | 'staff';
export interface Me {
  user: { id: string; email: string; language?: 'th' | 'en'; role?: Role };
  shop: Shop;
}
export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  lastLoginAt: string | null;
}
export interface TeamInvite {
  id: string;
  email: string;
  role: 'staff';
  createdAt: string;
  expiresAt: string;
}
export interface Team {
  seats: { used: number; limit: number };
  members: TeamMember[];
  invites: TeamInvite[];
}

export interface Overview {
  shop: Shop;
  plan: Plan;
  trialDaysLeft: number | null;
  quota: Quota;
  testQuota?: { used: number | null; limit: number; remaining: number };
  payeeCount: number;
  daily: { date: string; total: number; byStatus: Partial<Record<TxStatus, number>> }[];
  recent: TransactionRecord[];
}

export interface Settings {
  shopName: string;
  language: 'th' | 'en';
  notifications: { staleSlipAlerts: boolean; email: boolean };
  privacy: { autoDelete: boolean; retentionMonths: number };
  email: string;
}

export type { PayeeAccount as Payee } from '../../../server/src/modules/payees/payee-types';

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  environment: 'live' | 'test';
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  callsThisMonth?: number;
  /** Calls this quota period split by result status (server: api-key-usage.ts). */
  usage?: { total: number; byStatus: Record<string, number> };
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  description?: string | null;
  events?: string[];
  status?: string; // enabled | disabled
  enabled?: boolean;
  disabledReason?: string | null;
  secretHint?: string;
  previousSecretExpiresAt?: string | null;
  createdAt: string;
}

export interface WebhookDelivery {
  id: string;
  endpointId?: string;
  eventId?: string;
  eventKind?: string;
  event?: string;
  transactionId?: string | null;
  isTest?: boolean;
  test?: boolean;
  status: string; // pending | retrying | delivered | failed | cancelled
  attempts?: number;
  /** X-Service-Attempt of the latest attempt: 1 = first delivery; null before it. */
  attempt?: number | null;
  /** Attempts made without the owner (first delivery + retries). */
  maxAttempts?: number;
  lastStatusCode?: number | null;
  lastError?: string | null;
  nextAttemptAt?: string | null;
  deliveredAt?: string | null;
  createdAt: string;
}

export interface SessionView {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
  current: boolean;
  kind?: 'dashboard' | 'miniapp';
}

export interface AuditEntry {
  id: string;
  action: string;
  actor: string | null;
  target: string | null;
  createdAt: string;
  detail: unknown;
  ip: string | null;
}

export interface DailyStats {
  date: string;
  counts: Partial<Record<TxStatus, number>>;
}
export interface PlanCard extends Plan {
  messagingAccounts?: number;
  allowOverage?: boolean;
}

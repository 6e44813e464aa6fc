import type { TransactionRecord as PublicTransactionRecord, TransactionSource, TransactionStatus } from '@slipcheck/sdk';
import type { components, paths } from './dashboard-types.gen';

export { TRANSACTION_STATUSES as STATUSES, TRANSACTION_SOURCES as SOURCES } from '@slipcheck/sdk';
export type TxStatus = TransactionStatus;
export type TxSource = TransactionSource;

/**
 * A result as the service sends it: the type generated from the OpenAPI document (in the SDK, one
 * source for the server's schema, the SDK and this app), less the `quota` only verify answers carry.
 */
export type TransactionRecord = Omit<PublicTransactionRecord, 'quota'>;

// Every other shape below is read from dashboard-types.gen.ts, generated from the schemas of the
// /api/dashboard routes (`npm run gen:types -w packages/server`; a server test fails when it is stale),
// so a screen and the route it calls cannot drift. This app imports nothing from packages/server.

type Method = 'get' | 'post' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type SuccessOf<R> = R extends { 200: infer A } ? JsonOf<A> : R extends { 201: infer A } ? JsonOf<A> : never;
/** The `data` of a dashboard route's success answer (its 200, else its 201), as the route's schema says. */
export type DataOf<P extends keyof paths, M extends Method = 'get'> = paths[P][M] extends { responses: infer R }
  ? SuccessOf<R> extends { data: infer D }
    ? D
    : never
  : never;
/** The JSON body a dashboard route accepts. */
export type BodyOf<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: infer B }
  ? JsonOf<NonNullable<B>>
  : never;

type ItemOf<P extends keyof paths> = DataOf<P> extends { items: (infer I)[] } ? I : never;

export type Shop = components['schemas']['DashboardShop'];
export type Me = DataOf<'/api/dashboard/me'>;
export type Role = Me['user']['role'];

export type Overview = DataOf<'/api/dashboard/overview'>;
/** What the dashboard shows of a plan (the overview's). */
export type Plan = Overview['plan'];
export type Quota = Overview['quota'];
/** A plan card of sign-up and the trial banner. */
export type PlanCard = ItemOf<'/api/dashboard/plans'>;

export type Team = DataOf<'/api/dashboard/team'>;
export type TeamMember = Team['members'][number];
export type TeamInvite = Team['invites'][number];

export type Settings = DataOf<'/api/dashboard/settings'>;
export type Payee = ItemOf<'/api/dashboard/payees'>;
export type ApiKey = ItemOf<'/api/dashboard/api-keys'>;
export type WebhookEndpoint = ItemOf<'/api/dashboard/webhooks'>;
export type WebhookDelivery = ItemOf<'/api/dashboard/webhooks/deliveries'>;
export type SessionView = ItemOf<'/api/dashboard/sessions'>;
export type AuditEntry = ItemOf<'/api/dashboard/audit'>;

/**
 * What a 402 of the slip check names when the refused picture re-uses a transfer the shop already
 * credited: that transfer's first use (docs/dashboard-api.md, "A re-used slip at the quota wall").
 */
export type FirstUse = NonNullable<JsonOf<paths['/api/dashboard/verify']['post']['responses'][402]>['firstUse']>;

export type TotalsSummary = DataOf<'/api/dashboard/reports/totals'>;
export type PeriodName = keyof TotalsSummary['periods'];
/**
 * A result as the dashboard's list and detail give it: the record plus the later check of the same
 * transfer that replaced it in the money figures (`supersededBy`, dashboard only). The overview's recent
 * list and the live stream send the plain record, so it is optional here.
 */
export type ListedRecord = TransactionRecord & { supersededBy?: components['schemas']['DashboardTransaction']['supersededBy'] };
/** A one-time download link of the export (single use, short-lived). */
export type ExportTicket = DataOf<'/api/dashboard/transactions/export/ticket', 'post'>;

/** The overview chart's day, as the screen folds it (the route sends `byStatus`). */
export interface DailyStats {
  date: string;
  counts: Partial<Record<TxStatus, number>>;
}

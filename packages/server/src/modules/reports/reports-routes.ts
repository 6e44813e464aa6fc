import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, success } from '../../http/common-schemas.js';
import { publicRate, requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import { EXPORT_TYPES } from './reports-export.js';
import {
  amountRange,
  ExportQuery,
  ExportTicketQuery,
  ExportTicketSchema,
  SummarySettingsPatch,
  SummarySettingsSchema,
  TotalsSchema,
} from './reports-schemas.js';
import type { ShopService } from '../shops/shop-service.js';
import type { ReportsModule } from './reports-module.js';
import { summarySettingsOf } from './reports-summary.js';

const tags = ['dashboard'];
const E = [401, 429];

/** Money totals, exports and daily-summary settings under /api/dashboard (docs/dashboard-api.md). */
export interface ReportsRoutesDeps {
  auth: DashboardAuthDeps;
  reports: Pick<ReportsModule, 'totals' | 'prepareExport' | 'streamExport' | 'exportFileName' | 'issueExportTicket' | 'redeemExportTicket'>;
  shops: Pick<ShopService, 'get' | 'update'>;
}

export const reportsRoutes: FastifyPluginAsyncTypebox<ReportsRoutesDeps> = async (app, { auth, reports, shops }) => {
  const session = requireSession(auth);
  const owner = [session, requireOwner(auth)];

  app.get(
    '/api/dashboard/reports/totals',
    {
      onRequest: session,
      schema: {
        tags,
        summary:
          'Money today / this week / this month (live): received by payee account and channel, verified, needs a look, stopped (docs/dashboard-api.md)',
        response: { 200: success(TotalsSchema), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: await reports.totals.summary(req.dashboard!.shopId) }),
  );

  app.get(
    '/api/dashboard/transactions/export',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'The transactions the filters show, as CSV (UTF-8 with BOM) or XLSX, streamed; an audit event',
        querystring: ExportQuery,
        response: { ...errorResponses(400, ...E) },
      },
    },
    async (req, reply) => {
      const { format, lang, ...query } = req.query;
      const filters = amountRange(query);
      const { shopId, userId } = req.dashboard!;
      const options = await reports.prepareExport(shopId, filters, format, lang, `user:${userId}`, req.ip);
      reply.header('content-type', EXPORT_TYPES[format]);
      reply.header('content-disposition', `attachment; filename="${reports.exportFileName(filters, format)}"`);
      reply.header('cache-control', 'no-store');
      return reply.send(reports.streamExport(shopId, filters, options));
    },
  );

  // The dashboard's download button: a one-time ticket (bearer, POST), then the browser itself fetches
  // the file with it (GET, no bearer), so the file streams to disk with the browser's own progress.
  app.post(
    '/api/dashboard/transactions/export/ticket',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'A one-time download link (60 s, single use) for the export these filters describe; the same refusals as the export',
        body: ExportQuery,
        response: { 201: success(ExportTicketSchema), ...errorResponses(400, ...E) },
      },
    },
    async (req, reply) => {
      const { format, lang, ...query } = req.body;
      const { shopId, userId, sessionId } = req.dashboard!;
      const { ticket, expiresAt } = await reports.issueExportTicket(shopId, { userId, sessionId }, amountRange(query), format, lang);
      const url = `/api/dashboard/transactions/export/download?${new URLSearchParams({ shop: shopId, ticket })}`;
      return reply.status(201).send({ success: true as const, data: { url, expiresAt } });
    },
  );

  app.get(
    '/api/dashboard/transactions/export/download',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary:
          'The export a download ticket was issued for, as an attachment (no bearer: the ticket is the credential); an unknown, used, expired or other-shop ticket is 404',
        querystring: ExportTicketQuery,
        response: { ...errorResponses(400, 404, 429) },
      },
    },
    async (req, reply) => {
      const { shop: shopId, ticket } = req.query;
      const grant = await reports.redeemExportTicket(shopId, ticket);
      const options = await reports.prepareExport(shopId, grant.filters, grant.format, grant.lang, `user:${grant.userId}`, req.ip);
      reply.header('content-type', EXPORT_TYPES[grant.format]);
      reply.header('content-disposition', `attachment; filename="${reports.exportFileName(grant.filters, grant.format)}"`);
      reply.header('cache-control', 'no-store');
      // The URL carries a (spent) credential: not to be sent on as a Referer by anything the file opens.
      reply.header('referrer-policy', 'no-referrer');
      return reply.send(reports.streamExport(shopId, grant.filters, options));
    },
  );

  app.get(
    '/api/dashboard/reports/summary-settings',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Daily summary: time, channels, empty days',
        response: { 200: success(SummarySettingsSchema), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: summarySettingsOf(await shops.get(req.dashboard!.shopId)) }),
  );

  app.put(
    '/api/dashboard/reports/summary-settings',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Change the daily summary (owner only)',
        body: SummarySettingsPatch,
        response: { 200: success(SummarySettingsSchema), ...errorResponses(400, 403, ...E) },
      },
    },
    async (req) => {
      const { shopId, userId } = req.dashboard!;
      const next = { ...summarySettingsOf(await shops.get(shopId)), ...req.body };
      const shop = await shops.update(shopId, { settings: { dailySummary: next } }, `user:${userId}`);
      return { success: true as const, data: summarySettingsOf(shop) };
    },
  );
};

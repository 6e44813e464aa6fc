import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { offsetMs } from '../lib/period.js';

/** ISO 8601 with the offset of the service's time zone, e.g. 2026-11-21T20:25:59.123+07:00. */
export function isoWithOffset(date: Date, timeZone: string): string {
  const offMin = Math.round(offsetMs(date, timeZone) / 60_000);
  const local = new Date(date.getTime() + offMin * 60_000).toISOString().slice(0, 23);
  const sign = offMin >= 0 ? '+' : '-';
  const abs = Math.abs(offMin);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function errorBody(req: FastifyRequest, statusCode: number, message: string, code: string, extra: Record<string, unknown>, timeZone: string, now: Date) {
  return {
    success: false as const,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message,
    statusCode,
    code,
    path: req.url.split('?')[0],
    requestId: req.id,
    timestamp: isoWithOffset(now, timeZone),
    ...extra,
  };
}

/** Maps every failure to the spec's envelope; a 5xx never shows an internal message. */
export function registerEnvelope(app: FastifyInstance, opts: { timeZone: string; now: () => Date }) {
  const send = (req: FastifyRequest, reply: FastifyReply, status: number, message: string, code: string, extra: Record<string, unknown> = {}) =>
    reply.status(status).type('application/json; charset=utf-8').send(errorBody(req, status, message, code, extra, opts.timeZone, opts.now()));

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      if (err.statusCode >= 500) req.log.error({ err }, 'app error');
      // A 5xx never carries an internal message; 503 says the one thing the client should do.
      const message = err.statusCode === 503 ? 'The service is busy; retry in a moment' : err.statusCode >= 500 ? 'Internal server error' : err.message;
      if (err.statusCode === 503) reply.header('Retry-After', '1');
      return send(req, reply, err.statusCode, message, err.code, err.statusCode >= 500 ? {} : err.extra);
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const first = fe.validation[0];
      const where = fe.validationContext ?? 'request';
      const field = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : (first?.params as { missingProperty?: string })?.missingProperty ?? '';
      return send(req, reply, 400, `Invalid ${where}${field ? ` field "${field}"` : ''}: ${first?.message ?? 'bad value'}`, 'VALIDATION_ERROR');
    }
    const status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 600 ? fe.statusCode : 500;
    if (status >= 500) {
      req.log.error({ err }, 'unhandled error');
      return send(req, reply, 500, 'Internal server error', 'INTERNAL_ERROR');
    }
    const known: Record<string, [string, string]> = {
      FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'Request body is too large'],
      FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type'],
      FST_ERR_CTP_EMPTY_JSON_BODY: ['BAD_REQUEST', 'Body is empty'],
      FST_ERR_CTP_INVALID_JSON_BODY: ['BAD_REQUEST', 'Body is not valid JSON'],
    };
    const [code, message] = known[fe.code] ?? ['BAD_REQUEST', status === 429 ? 'Too many requests' : 'Bad request'];
    return send(req, reply, status, message, status === 429 ? 'RATE_LIMITED' : code);
  });

  // Known paths answer 405 with Allow for a method they do not serve; Fastify alone would say 404.
  const routes: Array<{ re: RegExp; method: string }> = [];
  app.addHook('onRoute', (r) => {
    if (r.url.includes('*')) return;
    const re = new RegExp(`^${r.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`);
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.push({ re, method: m });
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allow = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))];
    if (allow.length && !allow.includes(req.method)) {
      reply.header('Allow', allow.join(', '));
      return send(req, reply, 405, `Method ${req.method} is not allowed on ${path}; use ${allow.join(' or ')}`, 'METHOD_NOT_ALLOWED');
    }
    return send(req, reply, 404, `No route ${req.method} ${path}`, 'NOT_FOUND');
  });
}

import { randomBytes } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ErrorCode } from '../lib/error-codes.js';
import { isDatabaseUnavailable } from '../db/db.js';
import { isoWithOffset } from '../lib/period.js';
import { patternWords } from './common-schemas.js';
import { takesApiKey } from './api-auth.js';

// Lives in lib/period.ts beside the readable form messages use; exported here for the routes that import it.
export { isoWithOffset };

export function errorBody(
  req: FastifyRequest,
  statusCode: number,
  message: string,
  code: ErrorCode,
  extra: Record<string, unknown>,
  timeZone: string,
  now: Date,
) {
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

const DB_RETRY_AFTER_SECONDS = 2;
/**
 * How much of an oversized body is read (and discarded) before the 413: a client that sends a bit
 * more than the limit (an 11 MiB photo) reads the answer; one that sends far more is cut off at this
 * bound, and a slow one by HTTP_REQUEST_TIMEOUT_MS.
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/** Resolves once the request body has ended (or broke), or once more than maxBytes were discarded. */
export function drainBody(raw: IncomingMessage, maxBytes: number): Promise<void> {
  return new Promise((resolve) => {
    const contentLength = Number(raw.headers['content-length']);
    if (raw.complete || raw.destroyed || contentLength > maxBytes) return resolve();
    let seen = 0;
    const done = () => {
      raw.off('data', onData).off('end', done).off('error', done).off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) done();
    };
    raw.on('data', onData).once('end', done).once('error', done).once('close', done);
    raw.resume();
  });
}

/** The path of a request Node refused to parse, from its raw request line: printable ASCII only, without the query. */
function requestPath(err: Error & { rawPacket?: Buffer }): string | undefined {
  const target = err.rawPacket?.subarray(0, 2048).toString('latin1').split('\r\n')[0]?.split(' ')[1];
  const path = target?.split('?')[0];
  return path && /^\/[\x21-\x7e]{0,200}$/.test(path) ? path : undefined;
}

/**
 * Whether a head Node refused as too large (HPE_HEADER_OVERFLOW) overflowed in its request line, the
 * URL: Node counts the request line against the header limit and says only "Header overflow". Read
 * from the bytes Node was parsing when it stopped (the socket's last chunk, up to the error): with no
 * line end among them since this request began, the parser was still in the request line. A chunk
 * that holds the request's start tells for sure. A later chunk of a head that came in pieces (a long
 * URL over a slow link) no longer shows the start: there, bytes that can all be URL bytes (printable
 * ASCII, no space) are taken for the URL, and anything else (a space, a line end) for a header. The one
 * head called wrongly is a single header value over the limit, without spaces, arriving in pieces.
 */
function requestLineOverflowed(err: Error & { rawPacket?: Buffer; bytesParsed?: number }): boolean {
  const raw = err.rawPacket;
  if (!raw?.length) return false;
  const parsed = raw.subarray(0, typeof err.bytesParsed === 'number' ? err.bytesParsed : raw.length).toString('latin1');
  // A keep-alive connection may have the end of the previous request in the same chunk.
  const end = parsed.lastIndexOf('\r\n\r\n');
  const head = end < 0 ? parsed : parsed.slice(end + 4);
  return /^(?:[A-Z]+ )?[\x21-\x7e]+$/.test(head);
}

/**
 * Errors Node reports before a request reaches Fastify (headers or body not received within
 * HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS, a URL or headers over Node's limit, bad HTTP): answered in the
 * spec's envelope while the connection can still carry an answer, then the connection is closed.
 */
export function clientErrorHandler(opts: { timeZone: string; now: () => Date }) {
  return function (this: FastifyInstance, err: Error & { code?: string }, socket: Socket) {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, code, message]: [number, ErrorCode, string] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'The request was not received in time']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? requestLineOverflowed(err)
            ? [
                414,
                'URI_TOO_LONG',
                `The URL is too long: the request line and headers may take at most ${maxHeaderSize} bytes together; shorten the URL (query values) and send again`,
              ]
            : [
                431,
                'BAD_REQUEST',
                `Request headers are too large: the request line and headers may take at most ${maxHeaderSize} bytes together`,
              ]
          : // Raw Thai text in a query (curl sends it as typed) never reaches a route: say what to change.
            err.code === 'HPE_INVALID_URL'
            ? [
                400,
                'VALIDATION_ERROR',
                'The URL has characters that must be percent-encoded (for example Thai text in clientRef): encode each query value (encodeURIComponent, curl --data-urlencode with -G) and send again',
              ]
            : [400, 'BAD_REQUEST', 'Malformed HTTP request'];
    const res = (socket as Socket & { _httpMessage?: ServerResponse & { req?: IncomingMessage } })._httpMessage;
    // No route ran, so no request log line: this one lets an operator see slow or broken clients.
    this?.log?.info(
      { code: err.code, status, path: res?.req?.url?.split('?')[0], remoteAddress: socket.remoteAddress },
      'client connection refused before a request',
    );
    if (socket.writable && !res?.headersSent) {
      const fakeReq = { url: res?.req?.url ?? requestPath(err) ?? '/', id: `req_${randomBytes(12).toString('hex')}` } as FastifyRequest;
      const body = JSON.stringify(errorBody(fakeReq, status, message, code, {}, opts.timeZone, opts.now()));
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${fakeReq.id}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

/** 10485760 -> "10 MiB", 65536 -> "64 KiB" (one decimal at most). */
function binarySize(bytes: number): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'MiB'] : [bytes / 1024, 'KiB'];
  return `${Number(value.toFixed(1))} ${unit}`;
}

/** "unknown parameter; this route takes amount, clientRef" (top-level query names; elsewhere just "unknown field"). */
function unknownFieldMessage(where: string, at: string, schema: unknown): string {
  if (where !== 'querystring' || at) return 'unknown field';
  const props = (schema as { querystring?: { properties?: Record<string, unknown> } } | undefined)?.querystring?.properties ?? {};
  const names = Object.keys(props);
  return names.length
    ? `unknown parameter; this route takes ${names.join(', ')}`
    : 'unknown parameter; this route takes no query parameters';
}

/** Maps every failure to the spec's envelope; a 5xx never shows an internal message. */
export function registerEnvelope(
  app: FastifyInstance,
  opts: {
    timeZone: string;
    now: () => Date;
    /** Sets req.apiAuth when the request names a valid API key (api-auth.ts identifyApiKey): a 405's quota headers. */
    identifyKey?: (req: FastifyRequest) => Promise<void>;
  },
) {
  const send = (
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    message: string,
    code: ErrorCode,
    extra: Record<string, unknown> = {},
  ) =>
    reply
      .status(status)
      .type('application/json; charset=utf-8')
      .send(errorBody(req, status, message, code, extra, opts.timeZone, opts.now()));

  /**
   * Words an integrator can act on for a wrong value at `at`: the values it may take (ajv said "must be
   * equal to constant" for one of several, without saying which), that a query parameter came twice
   * (parsed as a list, ajv said "must be string"), what a pattern or a date format asks for (ajv showed
   * the regular expression, or "date-time" for a filter that also takes a date). Undefined: ajv's own
   * message says it well enough.
   */
  const valueMessage = (errors: FastifyError['validation'], at: string, query: unknown): string | undefined => {
    const given = at && query && typeof query === 'object' ? (query as Record<string, unknown>)[at] : undefined;
    if (Array.isArray(given)) return 'given more than once; send it once';
    const here = (errors ?? []).filter((e) => e.instancePath.replace(/^\//, '').replace(/\//g, '.') === at);
    const pattern = here.find((e) => e.keyword === 'pattern');
    const words = pattern && patternWords(String((pattern.params as { pattern?: unknown }).pattern));
    if (words) return words;
    const formats = here.flatMap((e) => (e.keyword === 'format' ? [String((e.params as { format?: unknown }).format)] : []));
    if (formats.includes('date-time'))
      return `must be an ISO 8601 instant with its offset (2026-11-27T10:00:00+07:00 or 2026-11-27T03:00:00Z)${formats.includes('date') ? ' or a date alone (2026-11-27)' : ''}`;
    const allowed = here.flatMap((e) => {
      const p = e.params as { allowedValue?: unknown; allowedValues?: unknown[] };
      return e.keyword === 'const' ? [p.allowedValue] : e.keyword === 'enum' ? (p.allowedValues ?? []) : [];
    });
    return allowed.length ? `must be one of ${[...new Set(allowed.map(String))].join(', ')}` : undefined;
  };

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      if (err.statusCode >= 500) req.log.error({ err }, 'app error');
      // A 5xx never carries an internal message; 503 says the one thing the client should do.
      const message =
        err.statusCode === 503 ? 'The service is busy; retry in a moment' : err.statusCode >= 500 ? 'Internal server error' : err.message;
      if (err.statusCode === 503) reply.header('Retry-After', '1');
      return send(req, reply, err.statusCode, message, err.code, err.statusCode >= 500 ? {} : err.extra);
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const first = fe.validation[0];
      const where = fe.validationContext ?? 'request';
      const params = (first?.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
      const at = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
      // An unknown name is the field to name ("must NOT have additional properties" said neither which
      // one nor what the route takes, so a misspelt ?clientref= was hard to find).
      const unknown = first?.keyword === 'additionalProperties' && params.additionalProperty !== undefined;
      const field = unknown
        ? [at, params.additionalProperty!.slice(0, 60)].filter(Boolean).join('.')
        : at || (params.missingProperty ?? '');
      const message = unknown
        ? unknownFieldMessage(where, at, req.routeOptions.schema)
        : (valueMessage(fe.validation, at, where === 'querystring' ? req.query : undefined) ?? first?.message ?? 'bad value');
      return send(req, reply, 400, `Invalid ${where}${field ? ` field "${field}"` : ''}: ${message}`, 'VALIDATION_ERROR');
    }
    const status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 600 ? fe.statusCode : 500;
    // The database is down, restarting or failing over (or SQLite is held by another writer): nothing
    // was charged (a charge commits with its record), so the client may simply retry. Mapped here once
    // for every route; readiness (/health) says 503 for the same time.
    if (status >= 500 && isDatabaseUnavailable(err)) {
      req.log.warn({ code: (err as { code?: string }).code, message: err.message?.slice(0, 200) }, 'database unavailable');
      reply.header('Retry-After', String(DB_RETRY_AFTER_SECONDS));
      return send(req, reply, 503, 'The service is temporarily unavailable; retry in a moment', 'SERVICE_UNAVAILABLE');
    }
    // Answering at once and closing would reset the connection under a client still writing its body
    // (Node's fetch then sees EPIPE, not the 413): read and discard the rest, up to a bound, first.
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // The route's limit (verify's is MAX_IMAGE_BYTES), so the client knows what size to send.
      const limit = req.routeOptions.bodyLimit;
      const message =
        typeof limit === 'number' && limit > 0
          ? `Request body is too large: this route takes at most ${limit} bytes (${binarySize(limit)})`
          : 'Request body is too large';
      void drainBody(req.raw, DRAIN_MAX_BYTES).then(() => send(req, reply, 413, message, 'PAYLOAD_TOO_LARGE'));
      return;
    }
    if (status >= 500) {
      req.log.error({ err }, 'unhandled error');
      return send(req, reply, 500, 'Internal server error', 'INTERNAL_ERROR');
    }
    const known: Record<string, [ErrorCode, string]> = {
      FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'Request body is too large'],
      FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type'],
      FST_ERR_CTP_EMPTY_JSON_BODY: ['BAD_REQUEST', 'Body is empty'],
      FST_ERR_CTP_INVALID_JSON_BODY: ['BAD_REQUEST', 'Body is not valid JSON'],
    };
    const [code, message] = known[fe.code] ?? ['BAD_REQUEST', status === 429 ? 'Too many requests' : 'Bad request'];
    return send(req, reply, status, message, status === 429 ? 'RATE_LIMITED' : code);
  });

  // Known paths answer 405 with Allow for a method they do not serve; Fastify alone would say 404.
  const routes: Array<{ re: RegExp; method: string; keyed: boolean }> = [];
  app.addHook('onRoute', (r) => {
    if (r.url.includes('*')) return;
    const re = new RegExp(`^${r.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`);
    const keyed = takesApiKey(r.onRequest);
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.push({ re, method: m, keyed });
  });
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0];
    const matched = routes.filter((r) => r.re.test(path));
    const allow = [...new Set(matched.map((r) => r.method))];
    if (allow.length && !allow.includes(req.method)) {
      // On an API path a valid key gets its quota headers (onSend adds them once req.apiAuth is set);
      // the body and Allow are the same whoever asks.
      if (opts.identifyKey && matched.some((r) => r.keyed)) await opts.identifyKey(req);
      reply.header('Allow', allow.join(', '));
      return send(req, reply, 405, `Method ${req.method} is not allowed on ${path}; use ${allow.join(' or ')}`, 'METHOD_NOT_ALLOWED');
    }
    return send(req, reply, 404, `No route ${req.method} ${path}`, 'NOT_FOUND');
  });
}

import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Query parameters whose values are credentials: reset and invite links (`/reset-password?token=…`,
 * `/accept-invite?token=…`), LINE Login's `code`/`state`, the export's one-time download `ticket`, and the usual suspects. Their values never
 * reach a log line; the name stays so an operator still sees which page was opened.
 */
const SECRET_PARAMS =
  /([?&;](?:token|ticket|code|state|access_token|refresh_token|id_token|key|api_key|apikey|secret|password|signature|sig|otp)=)[^&#;\s"]*/gi;

export function redactUrl(s: string): string {
  return s.replace(SECRET_PARAMS, '$1[REDACTED]');
}

function scrub(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.includes('=') ? redactUrl(v) : v;
  // Plain objects only: a request or error object goes through its serializer (copying would drop getters).
  if (!v || typeof v !== 'object' || depth > 3 || Object.getPrototypeOf(v) !== Object.prototype) return v;
  let out: Record<string, unknown> | null = null;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const y = scrub(x, depth + 1);
    if (y !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = y;
  }
  return out ?? v;
}

/**
 * The service's one logger. Besides the header redaction, every line passes through `redactUrl`:
 * the request serializer (Fastify's access log: "incoming request"/"request completed") and any
 * string field or message, e.g. a 404 naming the path it could not route.
 */
export function createServiceLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-line-signature"]'],
      serializers: {
        req: (req: { method?: string; url?: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }) => ({
          method: req.method,
          url: redactUrl(String(req.url ?? '')),
          hostname: req.hostname,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      formatters: { log: (obj) => scrub(obj) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? redactUrl(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

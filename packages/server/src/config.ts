import path from 'node:path';
import { checkerConfigProblems, checkerMembers } from './modules/checker/checker-factory.js';
import { CHECKER_ADAPTERS, CHECKER_IDS } from './modules/checker/checker-registry.js';
import { maskSecrets } from './lib/mask-secrets.js';

/**
 * One configuration schema, parsed once at start (and by the CLI, from the same variables, so
 * `DATA_DIR=/x npx slipcheck ...` works on the database of a service started with `DATA_DIR=/x`).
 * A wrong value stops the start with a message naming the variable.
 */
type Parser<T> = (raw: string) => T;

const str: Parser<string> = (s) => s;
const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> =>
  (s) => {
    if (!/^-?\d+$/.test(s.trim())) throw new Error(`must be an integer`);
    const n = Number(s);
    if (n < min || n > max) throw new Error(`must be between ${min} and ${max}`);
    return n;
  };
const bool: Parser<boolean> = (s) => {
  if (/^(1|true|yes|on)$/i.test(s)) return true;
  if (/^(0|false|no|off)$/i.test(s)) return false;
  throw new Error('must be true or false');
};
const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (s) => {
    if (!values.includes(s as T)) throw new Error(`must be one of ${values.join(', ')}`);
    return s as T;
  };
const url =
  (...protocols: string[]): Parser<string> =>
  (s) => {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw new Error('must be a URL');
    }
    if (protocols.length && !protocols.includes(u.protocol)) throw new Error(`must be a ${protocols.join(' or ')} URL`);
    return s;
  };
const intList: Parser<number[]> = (s) => s.split(',').map((x) => int(0)(x.trim()));
const timeZone: Parser<string> = (s) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: s });
  } catch {
    throw new Error('must be an IANA time zone');
  }
  return s;
};

const spec = {
  NODE_ENV: {
    parse: oneOf('development', 'production', 'test'),
    def: 'development',
    doc: 'production turns on the production safety checks',
  },
  PORT: { parse: int(0, 65535), def: '3000', doc: 'HTTP port of the service' },
  HOST: { parse: str, def: '127.0.0.1', doc: 'interface to listen on (0.0.0.0 behind a proxy or in a container)' },
  DATA_DIR: { parse: str, def: './data', doc: 'folder of the SQLite database and the development secrets' },
  DATABASE_URL: { parse: url('postgres:', 'postgresql:'), def: '', doc: 'PostgreSQL URL; empty = embedded SQLite file in DATA_DIR' },
  REDIS_URL: {
    parse: url('redis:', 'rediss:'),
    def: '',
    doc: 'Redis URL for shared rate limits and the results bus; empty = in process',
  },
  LOG_LEVEL: { parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'), def: 'info', doc: 'log level' },
  PUBLIC_URL: {
    parse: url('http:', 'https:'),
    def: '',
    doc: 'public base URL (links in e-mails, LINE webhook URLs); default http://HOST:PORT',
  },
  TIME_ZONE: { parse: timeZone, def: 'Asia/Bangkok', doc: 'time zone of the monthly quota period' },
  PLANS_FILE: { parse: str, def: '', doc: 'JSON plan catalogue replacing the built-in one (see README)' },
  SECRET_KEY_PREVIOUS: {
    parse: str,
    def: '',
    doc: 'comma list of earlier SECRET_KEY values during a rotation: stored secrets still decrypt, and the hourly worker (or `slipcheck secrets reencrypt`) re-seals them under SECRET_KEY',
  },
  SECRET_KEY: {
    parse: str,
    def: '',
    doc: 'master secret (>= 32 chars) for session tokens and encryption at rest; generated into DATA_DIR when empty (development only)',
  },
  TRUST_PROXY: { parse: bool, def: 'false', doc: 'trust X-Forwarded-* from a reverse proxy that terminates TLS' },
  MAX_IMAGE_BYTES: { parse: int(1024, 50 * 1024 * 1024), def: String(10 * 1024 * 1024), doc: 'largest accepted slip image (413 above)' },
  SLIP_STALE_MODE: { parse: oneOf('off', 'alert', 'reject'), def: 'alert', doc: 'stale-slip detection mode' },
  SLIP_EDIT_MODE: {
    parse: oneOf('off', 'alert', 'reject'),
    def: 'reject',
    doc: "edited slips (the printed amount read from the picture differs from the bank's): `reject` = FRAUD `EDITED_SLIP`, `alert` = SUCCESS with `edited: true` and an owner alert, `off` = the picture is not read",
  },
  SLIP_STALE_MAX_AGE_HOURS: { parse: int(1, 24 * 365), def: '24', doc: 'slips older than this are stale' },
  CHECKER: {
    parse: str,
    def: 'sandbox',
    doc: `checker adapter, or a comma list tried in order (failover): ${CHECKER_IDS.join(', ')} (see [Checker providers](#checker-providers)); another name stops the start, and so does leaving it unset in production (exit 78)`,
  },
  CHECKER_URL: {
    parse: str,
    def: '',
    doc: `checker URL(s), comma list matching CHECKER: ${Object.values(CHECKER_ADAPTERS)
      .map((a) => a.urlDoc)
      .join(', ')}; checked at start`,
  },
  CHECKER_KEY: { parse: str, def: '', doc: 'checker credential(s), comma list matching CHECKER' },
  CHECKER_TIMEOUT_MS: { parse: int(100, 120_000), def: '10000', doc: 'timeout of one checker attempt' },
  CHECKER_DEADLINE_MS: { parse: int(100, 300_000), def: '15000', doc: 'overall deadline of a check including retries' },
  CHECKER_MAX_OVERAGE: {
    parse: int(0),
    def: '0',
    doc: 'checks a provider account may bill past its package quota (polled); the operator is warned at 80 %, and at the cap the provider is skipped (fail over); 0 = no cap',
  },
  CHECKER_QUOTA_POLL_MS: {
    parse: int(0, 86_400_000),
    def: '300000',
    doc: "how often each provider's quota/account route is polled (metrics, overage cap, alerts); 0 = never",
  },
  OPERATOR_EMAIL: {
    parse: str,
    def: '',
    doc: 'operator address for service alerts (checker provider account problems, overage); empty = logs only',
  },
  SANDBOX_PORT: { parse: int(0, 65535), def: '3900', doc: 'port of the sandbox bank started beside the service in development' },
  SANDBOX_AUTOSTART: {
    parse: bool,
    def: 'true',
    doc: 'start the sandbox bank with `npm start` when CHECKER=sandbox (never in production)',
  },
  SANDBOX_LINE_PORT: {
    parse: int(0, 65535),
    def: '3901',
    doc: 'port of the sandbox LINE platform and its chat simulator, started beside the service in development',
  },
  SANDBOX_LINE_AUTOSTART: {
    parse: bool,
    def: 'true',
    doc: 'development: start the sandbox LINE platform with `npm start`; when no LINE setting (`LINE_API_BASE_URL`, `LINE_DATA_API_BASE_URL`, `LINE_LOGIN_AUTHORIZE_URL`, `LINE_LOGIN_CHANNEL_ID`, `LINE_LOGIN_CHANNEL_SECRET`, `LIFF_ID`, `LIFF_MOCK`) is given, they point at it and its login channel (never in production or tests)',
  },

  DECODE_THREADS: {
    parse: int(0, 64),
    def: '0',
    doc: 'QR decoder processes; 0 = one per CPU the service may use: its cores, or fewer when its container has a CPU quota (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us`; 1.5 CPUs make 2)',
  },
  RATE_LIMIT_PER_KEY: { parse: int(1), def: '120', doc: 'requests per minute per API key' },
  RATE_LIMIT_VERIFY_PER_SHOP: { parse: int(1), def: '240', doc: 'verify requests per minute per shop' },
  RATE_LIMIT_DASHBOARD: { parse: int(1), def: '120', doc: 'dashboard requests per minute per client' },
  RATE_LIMIT_NODES: {
    parse: int(1),
    def: '1',
    doc: 'API nodes to assume when Redis is lost: each node then enforces limit / nodes (nodes seen in Redis count too)',
  },
  RATE_LIMIT_LOGIN: { parse: int(1), def: '5', doc: 'login attempts per minute per account and per address' },
  TEST_QUOTA_LIMIT: { parse: int(0), def: '200', doc: 'calls per month for sk_test_ keys per shop' },
  IMAGE_CACHE_HOURS: { parse: int(1, 24 * 30), def: '24', doc: 'same-image replay window' },
  REPLAY_MEMORY_MS: {
    parse: int(0, 1000),
    def: '1000',
    doc: "how long a node answers an identical replay from memory instead of the database, with its copy of the shop's quota counter (at most 1000: a change on another node shows within that); 0 reads the database every time",
  },
  CLAIM_LEASE_MS: {
    parse: int(500, 60_000),
    def: '5000',
    doc: 'lease of a check in flight, renewed every third of it; a node that dies frees its slip (and quota unit) for a retry after this long',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    parse: intList,
    def: '300,1500,7500,37500,187500',
    doc: 'seconds before each webhook retry, stretched 0-20 % by jitter (5 retries over at least 48 h; production refuses fewer retries or a shorter total)',
  },
  WEBHOOK_TIMEOUT_MS: { parse: int(100, 60_000), def: '10000', doc: 'webhook delivery timeout' },
  WEBHOOK_ALLOW_PRIVATE: { parse: bool, def: 'false', doc: 'development only: allow http and private/loopback webhook targets' },
  WORKER_MODE: {
    parse: oneOf('inline', 'off'),
    def: 'inline',
    doc: 'inline = the outbox worker runs inside the service; off = run `slipcheck worker` separately',
  },
  WEBHOOK_SECRET_OVERLAP_HOURS: {
    parse: int(0, 24 * 30),
    def: '24',
    doc: 'after a webhook secret rotation the old secret also signs (second v1=) for this long',
  },
  WEBHOOK_RETENTION_DAYS: { parse: int(1, 3650), def: '30', doc: 'webhook deliveries and their attempts older than this are pruned' },
  WORKER_CONCURRENCY: { parse: int(1, 1000), def: '32', doc: 'outbox jobs (webhook sends) one worker runs at the same time' },
  WORKER_POLL_MS: {
    parse: int(50, 60_000),
    def: '1000',
    doc: 'outbox poll interval; jobs enqueued in the same process wake the worker at once',
  },
  WORKER_LEASE_MS: {
    parse: int(1000, 3_600_000),
    def: '60000',
    doc: 'a claimed outbox job whose worker died is taken back after this; also the longest one job may run before it is abandoned for takeback (at least WEBHOOK_TIMEOUT_MS + 5000, refused otherwise; keep it above a LINE slip check too)',
  },
  SCHEDULE_SLOT_MS: {
    parse: int(500, 86_400_000),
    def: '3600000',
    doc: 'slot of the hourly scheduled tasks (retention, purges, anonymisation): each runs once per slot across all workers; the daily-summary trigger looks every minute, or every slot when shorter. Tests shorten it; production refuses anything but an hour',
  },
  SMTP_URL: {
    parse: url('smtp:', 'smtps:'),
    def: '',
    doc: 'SMTP server for e-mail; empty = development mail sink (`slipcheck mail list`)',
  },
  COOKIE_SECURE: {
    parse: bool,
    def: 'true',
    doc: 'Secure flag of the dashboard refresh cookie; false is allowed only outside production (plain-http development on a LAN address)',
  },
  MAIL_FROM: { parse: str, def: 'slipcheck <no-reply@slipcheck.local>', doc: 'sender of e-mails' },
  LINE_API_BASE_URL: { parse: url('http:', 'https:'), def: 'https://api.line.me', doc: 'LINE Messaging API base URL' },
  LINE_DATA_API_BASE_URL: { parse: url('http:', 'https:'), def: 'https://api-data.line.me', doc: 'LINE content API base URL' },
  LINE_GROUP_SILENT_NON_SLIP: {
    parse: bool,
    def: 'true',
    doc: 'in LINE group chats, say nothing about images without a slip QR (each group can override)',
  },
  LINE_LINK_CODE_TTL_MINUTES: { parse: int(1, 24 * 60), def: '30', doc: 'lifetime of a one-time LINE link code' },
  LINE_HTTP_TIMEOUT_MS: {
    parse: int(100, 120_000),
    def: '10000',
    doc: 'timeout of one call to the LINE platform (content download, reply, push)',
  },
  LINE_HTTP_RETRIES: { parse: int(0, 10), def: '2', doc: 'retries of a LINE call after a 5xx, 429 or network error' },
  LINE_REPLY_TOKEN_TTL_SECONDS: {
    parse: int(1, 3600),
    def: '50',
    doc: 'after this age an event is answered by push instead of its reply token',
  },
  LINE_LOGIN_CHANNEL_ID: {
    parse: str,
    def: '',
    doc: 'LINE Login channel id: sign-in with LINE for the mini-app and the dashboard; empty = off',
  },
  LINE_LOGIN_CHANNEL_SECRET: { parse: str, def: '', doc: 'LINE Login channel secret (the dashboard\'s "Log in with LINE" code exchange)' },
  LIFF_ID: { parse: str, def: '', doc: 'LIFF app id of the mini-app (LINE Developers console, LIFF tab of the LINE Login channel)' },
  LINE_LOGIN_AUTHORIZE_URL: {
    parse: url('http:', 'https:'),
    def: 'https://access.line.me/oauth2/v2.1/authorize',
    doc: 'LINE Login authorization page (in development and tests, the sandbox LINE platform)',
  },
  LIFF_MOCK: {
    parse: bool,
    def: 'false',
    doc: 'development and tests only: the mini-app runs on `@line/liff-mock` instead of the LINE app (refused in production)',
  },
  METRICS_PORT: {
    parse: (s: string) => String(int(0, 65535)(s)),
    def: '',
    doc: 'port of GET /metrics (Prometheus), bound to HOST and never the public port; empty = 9464 in development, off in production',
  },
  TLS_CERT_FILE: {
    parse: str,
    def: '',
    doc: 'PEM certificate (chain) file: with TLS_KEY_FILE the service answers HTTPS itself (TLS 1.2+, HSTS; SIGHUP reloads the files); empty = plain HTTP behind a proxy',
  },
  TLS_KEY_FILE: { parse: str, def: '', doc: 'PEM private key file matching TLS_CERT_FILE' },
  HEAP_GROWING_PERCENT: {
    parse: int(0, 400),
    def: '100',
    doc: "how far the JavaScript heap may grow past what survived the last full garbage collection before the next one, in percent; 0 = V8's own choice, which on a busy 2-core node ran a full collection every ~30 verifies and cost a third of the service's CPU ([docs/benchmarks.md](docs/benchmarks.md))",
  },
  SHUTDOWN_GRACE_MS: {
    parse: int(0, 120_000),
    def: '5000',
    doc: 'on SIGTERM, /health answers 503 for this long (the load balancer notices) before new connections are refused',
  },
  SHUTDOWN_TIMEOUT_MS: {
    parse: int(1000, 600_000),
    def: '30000',
    doc: 'on SIGTERM the process exits within this bound, whatever is still running',
  },
  HTTP_HEADERS_TIMEOUT_MS: {
    parse: int(1000, 600_000),
    def: '20000',
    doc: 'a client must send all request headers within this (slow-header attacks); at most HTTP_REQUEST_TIMEOUT_MS',
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    parse: int(1000, 3_600_000),
    def: '120000',
    doc: 'a client must send the whole request, body included, within this (408, then the connection closes): a 10 MiB slip on a 1 Mbit/s link takes ~84 s',
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    parse: int(1000, 600_000),
    def: '72000',
    doc: "an idle kept-alive connection closes after this; keep it above the load balancer's idle timeout (60 s on common ones)",
  },
  DB_CONNECT_TIMEOUT_MS: {
    parse: int(100, 120_000),
    def: '5000',
    doc: 'PostgreSQL: longest wait for a new connection; past it the request answers 503 SERVICE_UNAVAILABLE instead of hanging',
  },
  PDPA_RETENTION_MONTHS: {
    parse: int(1, 120),
    def: '12',
    doc: 'default months before transaction data is anonymised for shops with auto-delete',
  },
} as const;

type Spec = typeof spec;
export type Config = { -readonly [K in keyof Spec]: ReturnType<Spec[K]['parse']> } & { databaseKind: 'sqlite' | 'postgres' };
export const CONFIG_DOC = spec;

/** The README's configuration table (scripts/update-readme-config.sh writes it there; a test holds them equal). */
export function configTableMarkdown(): string {
  const rows = Object.entries(CONFIG_DOC).map(([name, item]) => {
    const def = item.def === '' ? '(empty)' : `\`${item.def}\``;
    return `| \`${name}\` | ${def} | ${item.doc} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n') + '\n';
}

/** A configuration the process refuses. Its message quotes what the operator wrote, so secrets in URLs are masked here, once for every caller. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(maskSecrets(message));
  }
}

/** Time a webhook.deliver job needs besides the send itself (load the delivery, record the attempt). */
const LEASE_MARGIN_MS = 5_000;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, item] of Object.entries(spec)) {
    const raw = env[name];
    const value = raw === undefined || raw === '' ? item.def : raw;
    if (value === '') {
      out[name] = '';
      continue;
    }
    try {
      out[name] = (item.parse as Parser<unknown>)(value);
    } catch (e) {
      problems.push(`${name}=${JSON.stringify(raw)}: ${(e as Error).message}`);
    }
  }
  const cfg = out as Config;
  if (!problems.length && cfg.NODE_ENV === 'production') {
    if (!cfg.SECRET_KEY) problems.push('SECRET_KEY: required in production');
    if (cfg.WEBHOOK_ALLOW_PRIVATE) problems.push('WEBHOOK_ALLOW_PRIVATE: must be false in production');
    if (!cfg.COOKIE_SECURE) problems.push('COOKIE_SECURE: must be true in production');
    if (cfg.LIFF_MOCK) problems.push('LIFF_MOCK: must be false in production');
    if (cfg.SCHEDULE_SLOT_MS !== 3_600_000) problems.push('SCHEDULE_SLOT_MS: must be 3600000 (an hour) in production');
    // The promise to receivers (modules/webhooks/webhook-retry-schedule.ts): 5 retries spread over at least 48 hours.
    if (cfg.WEBHOOK_RETRY_SCHEDULE.length !== 5 || cfg.WEBHOOK_RETRY_SCHEDULE.reduce((a, b) => a + b, 0) < 48 * 3600)
      problems.push('WEBHOOK_RETRY_SCHEDULE: production needs 5 retries adding up to at least 172800 seconds (48 h)');
  }
  // A webhook send may take WEBHOOK_TIMEOUT_MS; a job past its lease is abandoned and taken back, so a
  // shorter lease re-sent every delivery to a slow receiver and never recorded one as delivered.
  if (!problems.length && cfg.WORKER_LEASE_MS < cfg.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS)
    problems.push(
      `WORKER_LEASE_MS=${cfg.WORKER_LEASE_MS}: must be at least WEBHOOK_TIMEOUT_MS + ${LEASE_MARGIN_MS} (${cfg.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS}); a webhook send may take WEBHOOK_TIMEOUT_MS, and a job past its lease is taken back and sent again`,
    );
  if (!problems.length && cfg.HTTP_HEADERS_TIMEOUT_MS > cfg.HTTP_REQUEST_TIMEOUT_MS)
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  if (!cfg.TLS_CERT_FILE !== !cfg.TLS_KEY_FILE) problems.push('TLS_CERT_FILE and TLS_KEY_FILE: set both or neither');
  if (cfg.SECRET_KEY && cfg.SECRET_KEY.length < 32) problems.push('SECRET_KEY: must be at least 32 characters');
  if (cfg.SECRET_KEY_PREVIOUS && !cfg.SECRET_KEY) problems.push('SECRET_KEY_PREVIOUS: needs SECRET_KEY (the new key)');
  if (cfg.SECRET_KEY_PREVIOUS && cfg.SECRET_KEY_PREVIOUS.split(',').some((k) => k.trim().length < 32))
    problems.push('SECRET_KEY_PREVIOUS: every key must be at least 32 characters');
  if (!problems.length)
    problems.push(...checkerConfigProblems({ checker: cfg.CHECKER, checkerUrl: cfg.CHECKER_URL, checkerKey: cfg.CHECKER_KEY }));
  if (!problems.length && cfg.NODE_ENV === 'production') problems.push(...productionCheckerProblems(cfg, env));
  if (problems.length) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  useSandboxLine(cfg, env);
  cfg.DATA_DIR = path.resolve(cfg.DATA_DIR);
  cfg.databaseKind = cfg.DATABASE_URL ? 'postgres' : 'sqlite';
  return cfg;
}

/**
 * CHECKER defaults to the sandbox bank on 127.0.0.1:SANDBOX_PORT, which production never starts: a
 * production node left on that default answered every slip PROVIDER_ERROR while /health said "up".
 * So production needs CHECKER written out. An explicit `sandbox` stays possible (a staging setup
 * with its own sandbox bank) but only at a URL someone wrote, never the development default, and
 * the service warns about it at start (productionWarnings).
 */
function productionCheckerProblems(cfg: Config, env: Record<string, string | undefined>): string[] {
  if (!env.CHECKER)
    return [
      'CHECKER: required in production (the default, sandbox, is the development sandbox bank, which production never starts): set CHECKER=easyslip or slipok with CHECKER_URL and CHECKER_KEY',
    ];
  const bare = checkerMembers({ checker: cfg.CHECKER, checkerUrl: cfg.CHECKER_URL, checkerKey: cfg.CHECKER_KEY })
    .map((m, i) => ({ ...m, entry: i + 1 }))
    .filter((m) => m.id === 'sandbox' && !m.url);
  return bare.map(
    (m) =>
      `CHECKER_URL for CHECKER entry ${m.entry} (sandbox): required in production (production never starts the sandbox bank on 127.0.0.1:${cfg.SANDBOX_PORT}); write the URL of the sandbox bank you run, or use a real checker`,
  );
}

/** What a valid production configuration still deserves a loud warning for; the service logs these at start. */
export function productionWarnings(cfg: Config): string[] {
  if (cfg.NODE_ENV !== 'production') return [];
  const ids = cfg.CHECKER.split(',').map((s) => s.trim().toLowerCase());
  return ids.includes('sandbox')
    ? [
        'CHECKER includes sandbox in production: slips are checked against a simulated bank, not real bank data. Only for staging; never serve real shops like this.',
      ]
    : [];
}

/** The sandbox LINE platform's login channel (packages/sandbox-line/src/dev-channel.ts; a test holds them equal). */
const SANDBOX_LINE_LOGIN = { channelId: '2000000001', channelSecret: 'sandbox0line0login0channel0secret', liffId: '2000000001-sandbox' };
const LINE_SETTINGS = [
  'LINE_API_BASE_URL',
  'LINE_DATA_API_BASE_URL',
  'LINE_LOGIN_AUTHORIZE_URL',
  'LINE_LOGIN_CHANNEL_ID',
  'LINE_LOGIN_CHANNEL_SECRET',
  'LIFF_ID',
  'LIFF_MOCK',
] as const;

/**
 * Development with the sandbox LINE platform (`npm start` runs it, like the sandbox bank): LINE's base
 * URLs and the login channel point at it, as CHECKER_URL defaults to the sandbox bank, so the service
 * talks to it exactly as to LINE. Only when no LINE setting is given: a developer with a real channel
 * is never half switched. Never in production or tests.
 */
function useSandboxLine(cfg: Config, env: Record<string, string | undefined>) {
  if (cfg.NODE_ENV !== 'development' || !cfg.SANDBOX_LINE_AUTOSTART || LINE_SETTINGS.some((k) => env[k])) return;
  const base = `http://127.0.0.1:${cfg.SANDBOX_LINE_PORT}`;
  Object.assign(cfg, {
    LINE_API_BASE_URL: base,
    LINE_DATA_API_BASE_URL: base,
    LINE_LOGIN_AUTHORIZE_URL: `${base}/oauth2/v2.1/authorize`,
    LINE_LOGIN_CHANNEL_ID: SANDBOX_LINE_LOGIN.channelId,
    LINE_LOGIN_CHANNEL_SECRET: SANDBOX_LINE_LOGIN.channelSecret,
    LIFF_ID: SANDBOX_LINE_LOGIN.liffId,
    LIFF_MOCK: true,
  });
}

import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import { REUSE_BUILD } from '../helpers/reuse-build.js';

/**
 * The README's "Going to production" section, followed as written: `npm run build`, the operator
 * CLI (`npx slipcheck`, compiled), `npm run start:prod` with TLS and metrics, a verify against a
 * checker running separately (the sandbox bank, standing in for the real one), SIGHUP certificate
 * reload, and a SIGTERM drain in the middle of 20 verifies. One build serves every test here.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-prod-'));
const dataDir = path.join(dir, 'data');
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');

function selfSigned(cn: string, prefix: string) {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      `${prefix}-key.pem`,
      '-out',
      `${prefix}-cert.pem`,
    ],
    { stdio: 'ignore' },
  );
  return { cert: fs.readFileSync(`${prefix}-cert.pem`), key: fs.readFileSync(`${prefix}-key.pem`) };
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** An answer, or a failed connection: `handshook` says whether TLS got as far as sending the request. */
type Outcome = { status: number; body: string; headers: Record<string, unknown> } | { error: string; handshook: boolean };

/** One HTTPS request on a fresh connection (no keep-alive), so a refused connection shows as such. */
function request(
  port: number,
  ca: Buffer,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer },
): Promise<Outcome> {
  return new Promise((resolve) => {
    let handshook = false;
    const req = https.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, ca, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), headers: res.headers }));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message, handshook }));
      },
    );
    req.on('socket', (s) => s.once('secureConnect', () => (handshook = true)));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message, handshook }));
    req.end(opts.body);
  });
}

function handshake(
  port: number,
  version: tls.SecureVersion,
  ca: Buffer,
): Promise<{ protocol: string | null; cn?: string } | { error: string }> {
  return new Promise((resolve) => {
    // SECLEVEL=0 lets this client offer TLS 1.1 at all, so a refusal comes from the server.
    const s = tls.connect(
      { host: '127.0.0.1', port, ca, minVersion: version, maxVersion: version, ciphers: 'DEFAULT@SECLEVEL=0', servername: undefined },
      () => {
        const out = { protocol: s.getProtocol(), cn: String(s.getPeerCertificate().subject?.CN) };
        s.end();
        resolve(out);
      },
    );
    s.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
}

const cli = (args: string[], env: NodeJS.ProcessEnv) => {
  const r = spawnSync('npx', ['slipcheck', ...args], { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`slipcheck ${args.join(' ')}: ${r.status} ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let server: ChildProcess;
let serverExit: Promise<number | null>;
let logs = '';
let port = 0;
let metricsPort = 0;
let certA: { cert: Buffer; key: Buffer };
let certB: { cert: Buffer; key: Buffer };
let apiKey = '';
let shopId = '';
let env: NodeJS.ProcessEnv;

async function verify(image: Buffer): Promise<Outcome> {
  return request(port, certA.cert, {
    method: 'POST',
    path: '/api/v1/verify',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/octet-stream' },
    body: image,
  });
}

beforeAll(async () => {
  // 1. Build (README: `npm run build`). SLIPCHECK_TEST_REUSE_BUILD=1 reuses a build made just before
  // (CI builds once; a second build of the same tree proves nothing more).
  if (!REUSE_BUILD) {
    const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(built.status, built.stdout + built.stderr).toBe(0);
  }
  expect(fs.existsSync(path.join(ROOT, 'packages/server/dist/main.js'))).toBe(true);

  certA = selfSigned('slipcheck-a', path.join(dir, 'a'));
  certB = selfSigned('slipcheck-b', path.join(dir, 'b'));
  fs.writeFileSync(certFile, certA.cert);
  fs.writeFileSync(keyFile, certA.key);
  sandbox = await startSandbox();
  port = await freePort();
  metricsPort = await freePort();
  env = {
    ...process.env,
    NODE_ENV: 'production',
    SECRET_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    TLS_CERT_FILE: certFile,
    TLS_KEY_FILE: keyFile,
    CHECKER: 'sandbox',
    CHECKER_URL: sandbox.url,
    SHUTDOWN_GRACE_MS: '1000',
    SHUTDOWN_TIMEOUT_MS: '20000',
    LOG_LEVEL: 'warn',
  };
  delete env.TEST_DATABASE_URL;
  delete env.VITEST;

  // 2. The operator CLI, compiled (README: `npx slipcheck migrate`, then `npx slipcheck ...` on the
  //    production database; no other command makes a new one).
  expect(cli(['migrate'], env)).toEqual({ migrated: true });
  const shop = cli(['shop', 'create', '--name', 'Production test shop', '--plan', 'STARTER', '--state', 'active'], env);
  shopId = String(shop.id);
  cli(['payee', 'add', '--shop', shopId, '--bank', '004', '--account', '1234566609', '--holder', 'บจก. ร้านกาแฟ ทดสอบ'], env);
  apiKey = String(cli(['key', 'create', '--shop', shopId, '--env', 'live'], env).key);

  // 3. Start (README: `npm run start:prod`).
  // Its own process group: when a test fails before the service is stopped, afterAll kills npm, the
  // service and its decoders together (SIGKILL to npm alone left them running after the suite).
  server = spawn('npm', ['run', 'start:prod'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  server.stdout!.on('data', (d: Buffer) => {
    logs += d.toString();
  });
  server.stderr!.on('data', (d: Buffer) => {
    logs += d.toString();
  });
  serverExit = new Promise((r) => server.on('exit', (code) => r(code)));
  for (let i = 0; i < 200; i++) {
    const r = await request(port, certA.cert, { path: '/health' });
    if ('status' in r && r.status === 200) return;
    await new Promise((r2) => setTimeout(r2, 150));
  }
  throw new Error(`service did not start:\n${logs}`);
}, 480_000); // a build and a cold start; minutes on a loaded 2-core machine

afterAll(async () => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      /* the group is gone: the service stopped as the test asked */
    }
  }
  await sandbox?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('production build (README "Going to production")', () => {
  it('runs compiled JavaScript: no TypeScript loader in the service process', () => {
    const pid = execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')[0];
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    expect(cmdline).toContain('packages/server/dist/main.js');
    expect(cmdline).not.toMatch(/tsx|\.ts\b/);
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
    expect(environ).toContain('NODE_ENV=production');
  });

  it('answers HTTPS with TLS 1.2 and 1.3 only, and sends HSTS', async () => {
    const old = await handshake(port, 'TLSv1.1', certA.cert);
    expect(old).toMatchObject({ error: expect.stringMatching(/PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL|WRONG_VERSION/) });
    expect(await handshake(port, 'TLSv1.2', certA.cert)).toMatchObject({ protocol: 'TLSv1.2', cn: 'slipcheck-a' });
    expect(await handshake(port, 'TLSv1.3', certA.cert)).toMatchObject({ protocol: 'TLSv1.3', cn: 'slipcheck-a' });
    const health = await request(port, certA.cert, { path: '/health' });
    expect(health).toMatchObject({ status: 200, headers: { 'strict-transport-security': expect.stringContaining('max-age=') } });
    // No slip has been sent yet: the service started its decoders when it began listening, so the
    // first customer after a deploy does not wait for them (before, the pool started on the first slip
    // and /health listed no decoder until then).
    expect(JSON.parse((health as { body: string }).body).checks.decoder).toMatchObject({ status: 'up' });
  });

  it('verifies a slip against the separately running checker, and /metrics tells it on METRICS_PORT only', async () => {
    const t = await sandbox.register();
    const r = await verify(await sandbox.slip(t.transRef));
    expect('status' in r && r.status, JSON.stringify(r)).toBe(200);
    expect(JSON.parse((r as { body: string }).body).data).toMatchObject({ status: 'SUCCESS', transRef: t.transRef });

    // Not on the public port.
    const publicMetrics = await request(port, certA.cert, { path: '/metrics' });
    expect(publicMetrics).toMatchObject({ status: expect.any(Number) });
    expect((publicMetrics as { body: string }).body).not.toContain('slipcheck_http_request_duration_seconds');
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/slipcheck_verify_outcomes_total\{status="SUCCESS",source="API",environment="live"\} 1/);
    expect(text).toMatch(/slipcheck_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/verify",status_code="200"\} 1/);
    for (const stage of ['decode', 'checker', 'database'])
      expect(text).toContain(`slipcheck_verify_stage_duration_seconds_count{stage="${stage}"} 1`);
    expect(text).toMatch(/slipcheck_checker_calls_total\{upstream="sandbox",outcome="found",breaker="closed"\} 1/);
    expect(text).toMatch(/slipcheck_decoder_threads [1-9]/);
    expect(text).toContain('slipcheck_outbox_depth');
    expect(text).toContain('slipcheck_outbox_oldest_age_seconds');
    expect(text).toContain('slipcheck_process_cpu_seconds_total');
    // No shop ids, keys or transaction refs in any label.
    for (const secret of [shopId, apiKey, apiKey.slice(0, 12), t.transRef]) expect(text).not.toContain(secret);
  });

  it('reloads the certificate on SIGHUP without a restart', async () => {
    const pid = Number(
      execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n')[0],
    );
    fs.writeFileSync(certFile, certB.cert);
    fs.writeFileSync(keyFile, certB.key);
    process.kill(pid, 'SIGHUP');
    let seen: unknown;
    for (let i = 0; i < 50; i++) {
      seen = await handshake(port, 'TLSv1.3', certB.cert);
      if ((seen as { cn?: string }).cn === 'slipcheck-b') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toMatchObject({ protocol: 'TLSv1.3', cn: 'slipcheck-b' });
    certA = certB; // later requests trust the new certificate
  });

  it('SIGTERM in the middle of 20 verifies: readiness fails at once, every request is answered or refused, nothing charged without a record', async () => {
    const transfers = await Promise.all(Array.from({ length: 20 }, () => sandbox.register()));
    const slips = await Promise.all(transfers.map((t) => sandbox.slip(t.transRef)));
    await fetch(`${sandbox.url}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latencyMs: 1500 }),
    });

    const outcomes: Promise<Outcome>[] = [];
    const callsBefore = sandbox.stats().checkerCalls;
    for (let i = 0; i < 10; i++) outcomes.push(verify(slips[i]));
    // The first ten are in flight: each has reached the checker (which holds it 1.5 s). Observed, not
    // assumed after a fixed pause: on a loaded machine decoding ten slips can take longer than any pause.
    const inFlightBy = Date.now() + 20_000;
    while (sandbox.stats().checkerCalls < callsBefore + 10 && Date.now() < inFlightBy) await new Promise((r) => setTimeout(r, 10));
    expect(sandbox.stats().checkerCalls - callsBefore).toBe(10);
    server.kill('SIGTERM'); // npm passes it to the service
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 150));
    const health = await request(port, certA.cert, { path: '/health' });
    // The other ten arrive spread over the grace period and after it.
    for (let i = 10; i < 20; i++) {
      outcomes.push(verify(slips[i]));
      await new Promise((r) => setTimeout(r, 200));
    }
    const results = await Promise.all(outcomes);
    const code = await serverExit;
    const drainMs = Date.now() - t0;
    await fetch(`${sandbox.url}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reset: true }),
    });

    expect(health).toMatchObject({ status: 503 });
    expect(code, logs).toBe(0);
    expect(drainMs).toBeLessThan(Number(env.SHUTDOWN_TIMEOUT_MS));
    const answered = results.filter((r): r is Extract<Outcome, { status: number }> => 'status' in r);
    const refused = results.filter((r) => 'error' in r);
    // An answer (a result, or 503 on a connection that reached a closing server) or a refused connection; never a cut one.
    // A connection the kernel took into the listener's backlog in the instant before the listener closed
    // is reset, not refused (TCP, not the service): the client had not finished TLS, so it had sent no
    // request and knows nothing was done, as with a refusal. CI saw this once in ~30 runs. A reset after
    // the handshake, a request possibly cut, still fails here.
    for (const r of refused)
      expect([
        { error: 'ECONNREFUSED', handshook: false },
        { error: 'ECONNRESET', handshook: false },
      ]).toContainEqual(r);
    for (const r of answered) expect([200, 503]).toContain(r.status);
    const ok = answered
      .filter((r) => r.status === 200)
      .map((r) => JSON.parse(r.body).data as { id: string; status: string; charged?: boolean });
    expect(ok.length).toBeGreaterThanOrEqual(10); // every verify in flight at SIGTERM was finished and answered
    expect(refused.length).toBeGreaterThan(0); // and the late ones found the door shut

    // The database after the drain: every answer has its record, and the quota counts exactly the charged records.
    const db = new Database(path.join(dataDir, 'slipcheck.db'), { readonly: true });
    try {
      const ids = db
        .prepare('select id from transactions where shop_id = ?')
        .all(shopId)
        .map((r) => (r as { id: string }).id);
      for (const o of ok) expect(ids).toContain(o.id);
      const charged = (
        db.prepare('select count(*) as n from transactions where shop_id = ? and charged = 1 and environment = ?').get(shopId, 'live') as {
          n: number;
        }
      ).n;
      const used = (db.prepare('select coalesce(sum(used), 0) as n from quota_usage where shop_id = ?').get(shopId) as { n: number }).n;
      expect(used).toBe(charged);
      expect(charged).toBe(1 + ok.filter((o) => o.status === 'SUCCESS').length);
    } finally {
      db.close();
    }
  }, 60_000);
});

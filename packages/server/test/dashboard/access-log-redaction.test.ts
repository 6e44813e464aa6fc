/**
 * Reset and invite links carry their single-use token in the query string. Opening the page (or any
 * route) must not write that token to the access log: every line goes through the service logger's
 * redaction. Real Fastify app, real pino writing to a stream we read back.
 */
import { Writable } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
import { createServiceLogger, redactUrl } from '../../src/http/service-logger.js';

describe('access log redaction of token query values', () => {
  const lines: string[] = [];
  let c: Container;
  let app: FastifyInstance;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-log-'));
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        cb();
      },
    });
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'info', WORKER_MODE: 'off', SANDBOX_AUTOSTART: 'false' });
    c = await createContainer(config, { logger: createServiceLogger('info', sink) });
    app = await buildApp(c); // the container's logger, as in production
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await c?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps reset, invite, login-callback and download-ticket secrets out of every log line', async () => {
    const secrets = [
      'rst_9f8e7d6c5b4a39281706',
      'inv_0a1b2c3d4e5f60718293',
      'lc_CODE_55aa66bb77',
      'st_STATE_1234abcd',
      'DLTICKET_Zx9Yw8Vu7',
    ];
    await app.inject({ method: 'GET', url: `/reset-password?token=${secrets[0]}` });
    await app.inject({ method: 'GET', url: `/accept-invite?lang=th&token=${secrets[1]}` });
    await app.inject({ method: 'GET', url: `/api/dashboard/line-login/callback?code=${secrets[2]}&state=${secrets[3]}` });
    await app.inject({ method: 'GET', url: `/api/v1/no-such-route?token=${secrets[0]}` });
    // The export's one-time download link (a spent or unknown ticket answers 404, and is logged).
    await app.inject({ method: 'GET', url: `/api/dashboard/transactions/export/download?shop=shp_x&ticket=${secrets[4]}` });
    const log = lines.join('\n');
    expect(lines.length).toBeGreaterThan(4);
    expect(log).toContain('/reset-password?token=[REDACTED]');
    expect(log).toContain('/accept-invite?lang=th&token=[REDACTED]');
    expect(log).toContain('/api/dashboard/transactions/export/download?shop=shp_x&ticket=[REDACTED]');
    for (const s of secrets) expect(log, s).not.toContain(s);
  });

  it('redactUrl leaves other parameters alone', () => {
    expect(redactUrl('/x?lang=en&token=abc&page=2')).toBe('/x?lang=en&token=[REDACTED]&page=2');
    expect(redactUrl('/x?TOKEN=abc#top')).toBe('/x?TOKEN=[REDACTED]#top');
    expect(redactUrl('/transactions?limit=20&status=SUCCESS')).toBe('/transactions?limit=20&status=SUCCESS');
  });
});

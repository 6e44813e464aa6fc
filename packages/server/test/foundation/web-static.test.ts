import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebApp } from '../../src/http/web-static.js';

// The headers of the served pages, on a built-like folder (the two HTML pages and an asset).
let app: FastifyInstance;
let root: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'web-static-'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>dashboard</title>');
  fs.writeFileSync(path.join(root, 'miniapp.html'), '<!doctype html><title>mini-app</title>');
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'assets', 'app-1.js'), 'console.log(1)');
  app = Fastify();
  await registerWebApp(app, root);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const csp = async (url: string) => {
  const res = await app.inject({ method: 'GET', url });
  expect(res.statusCode, url).toBe(200);
  return (res.headers['content-security-policy'] as string).split(';').map((d) => d.trim());
};

describe('Content-Security-Policy of the served pages', () => {
  it('keeps the dashboard strict: nothing from other origins', async () => {
    for (const url of ['/', '/transactions/txn_1', '/index.html']) {
      const d = await csp(url);
      expect(d).toContain("script-src 'self'");
      expect(d).toContain("connect-src 'self'");
      expect(d.join(';')).not.toContain('line');
    }
  });

  it('gives the mini-app page its own policy: what the LIFF SDK loads from LINE, and nothing more', async () => {
    for (const url of ['/miniapp', '/miniapp?liff.state=x', '/miniapp.html']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.body).toContain('mini-app');
      const d = (res.headers['content-security-policy'] as string).split(';').map((x) => x.trim());
      expect(d).toEqual([
        "default-src 'self'",
        "script-src 'self' https://static.line-scdn.net",
        "connect-src 'self' https://api.line.me https://access.line.me https://liff.line.me",
        "img-src 'self' blob: data:",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
      ]);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('an API path written with a doubled slash is a 404, never the dashboard page with 200', async () => {
    // A base URL ending in "/" joined with "/api/v1/quota" asks for //api/v1/quota: it answered the
    // dashboard's HTML with 200, which a client checking the status took for an answer.
    for (const url of ['//api/v1/quota', '//api/v1/transactions?clientRef=a', '///health', '//v1/health']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(String(res.headers['content-type'] ?? ''), url).not.toContain('text/html');
    }
    // Page paths still get the app.
    expect((await app.inject({ method: 'GET', url: '/transactions/txn_1' })).statusCode).toBe(200);
  });

  it('caches built assets and sets no page policy on them', async () => {
    const res = await app.inject({ method: 'GET', url: '/assets/app-1.js' });
    expect(res.headers['cache-control']).toContain('immutable');
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** packages/web/dist, built by `npm run build -w packages/web`. */
export const WEB_DIST_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

// The dashboard needs nothing from other origins (no CDN, no external fonts), so the policy is strict.
const HTML_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'Referrer-Policy': 'no-referrer', // reset links carry a token in the query string
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

const MINIAPP_CSP =
  "default-src 'self'; img-src 'self' blob: data: https://*.line-scdn.net; style-src 'self'; script-src 'self'; connect-src 'self' https://*.line.me https://*.line-scdn.net; frame-src https://*.line.me; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/**
 * Serves the built dashboard at `/` and answers every other non-API GET with index.html, so deep
 * links like /transactions/txn_1 work. Without a build the service runs API-only (and says so).
 */
export async function registerWebApp(app: FastifyInstance, root = process.env.WEB_DIST_DIR || WEB_DIST_DIR): Promise<void> {
  const index = path.join(root, 'index.html');
  if (!fs.existsSync(index)) {
    app.log.warn({ root }, 'dashboard build not found; run `npm run build -w packages/web` to serve it at /');
    return;
  }
  await app.register(fastifyStatic, {
    root,
    wildcard: false, // one route per built file, so unknown paths reach the SPA fallback below
    setHeaders(reply, file) {
      if (file.endsWith('.html')) reply.headers(HTML_HEADERS);
      else if (file.includes(`${path.sep}assets${path.sep}`)) reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    },
  });
  // The LINE mini-app runs LIFF, which talks to LINE's own hosts: its page gets its own policy so the
  // dashboard's stays strict. LINE's in-app browser opens it top-level, never framed.
  if (fs.existsSync(path.join(root, 'miniapp.html'))) {
    const miniHeaders = { ...HTML_HEADERS, 'Content-Security-Policy': MINIAPP_CSP };
    app.get('/miniapp', { schema: { hide: true } }, async (_req, reply) => reply.headers(miniHeaders).sendFile('miniapp.html'));
  }
  app.get('/*', { schema: { hide: true } }, async (req, reply) => {
    const p = req.url.split('?')[0];
    // API, health and asset paths keep their JSON 404; only page paths get the app.
    if (/^\/(api|v1|health|assets)(\/|$)/.test(p) || /\.[A-Za-z0-9]{1,8}$/.test(p)) return reply.callNotFound();
    return reply.headers(HTML_HEADERS).sendFile('index.html');
  });
}

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

/**
 * The LINE mini-app's page runs the LIFF SDK (bundled from npm @line/liff, so its own code is 'self'),
 * which talks to LINE's hosts. Allowed, per LINE's documentation and what SDK 2.31 really requests:
 * - script-src https://static.line-scdn.net: LINE's CDN, where the SDK is published
 *   (developers.line.biz/en/docs/liff/developing-liff-apps/#specify-cdn-path) and from which
 *   `liff.init` loads its in-client extensions (liff/edge/2/*-extensions_*.js) and its error alert (lui).
 * - connect-src https://api.line.me (oauth2/v2.1 token, certs and verify, v2/profile, liff/v2/apps),
 *   https://access.line.me (the OpenID configuration) and https://liff.line.me (permissions,
 *   permanent links): the endpoints of @liff/server-api.
 * `liff.login()` navigates to access.line.me, which CSP does not restrict. Left out on purpose: the
 * analytics plugin (uts), the sub-window and share-target-picker frames (liff-subwindow.line.me) and
 * profile pictures (profile.line-scdn.net): the mini-app uses none of them. No inline scripts or styles.
 */
export const MINIAPP_CSP = [
  "default-src 'self'",
  "script-src 'self' https://static.line-scdn.net",
  "connect-src 'self' https://api.line.me https://access.line.me https://liff.line.me",
  "img-src 'self' blob: data:",
  "style-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');
const MINIAPP_HEADERS = { ...HTML_HEADERS, 'Content-Security-Policy': MINIAPP_CSP };

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
    // @fastify/static sets these on every file it sends, sendFile included, after a route's own
    // headers: so the page's policy is chosen here, by file, or the mini-app would get the dashboard's.
    setHeaders(reply, file) {
      if (path.basename(file) === 'miniapp.html') reply.headers(MINIAPP_HEADERS);
      else if (file.endsWith('.html')) reply.headers(HTML_HEADERS);
      else if (file.includes(`${path.sep}assets${path.sep}`)) reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    },
  });
  // The LINE mini-app (its policy comes from setHeaders above). LINE's in-app browser opens it
  // top-level, never framed.
  if (fs.existsSync(path.join(root, 'miniapp.html'))) {
    app.get('/miniapp', { schema: { hide: true } }, async (_req, reply) => reply.sendFile('miniapp.html'));
  }
  app.get('/*', { schema: { hide: true } }, async (req, reply) => {
    const p = req.url.split('?')[0];
    // API, health and asset paths keep their JSON 404; only page paths get the app. Leading slashes
    // doubled by a base URL that ends in "/" (//api/v1/quota) are still API paths, not a page with 200.
    if (/^\/+(api|v1|health|assets)(\/|$)/.test(p) || /\.[A-Za-z0-9]{1,8}$/.test(p)) return reply.callNotFound();
    return reply.headers(HTML_HEADERS).sendFile('index.html');
  });
}

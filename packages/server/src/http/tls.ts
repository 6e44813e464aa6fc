import fs from 'node:fs';
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';

/**
 * Mozilla's server-side TLS "intermediate" profile (ssl-config.mozilla.org, guideline 5.7), narrowed to
 * ECDHE: TLS 1.2 with ECDHE key exchange and AEAD ciphers only (AES-GCM, ChaCha20-Poly1305), every
 * TLS 1.3 suite, nothing below TLS 1.2. Node's default list also accepts static RSA key exchange (no
 * forward secrecy) and CBC-SHA1/SHA256/SHA384 suites; those are refused. The client's cipher order
 * wins, as the profile says (every offered suite is strong, and the client knows if it has AES hardware).
 * One object for the listener and for every reload, so a renewed certificate keeps the same profile.
 */
export const TLS_PROFILE = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  ecdhCurve: 'X25519:prime256v1:secp384r1',
  honorCipherOrder: false,
} as const satisfies tls.SecureContextOptions & { honorCipherOrder: boolean };

/** Reads and checks the PEM pair (a wrong pair fails here, at start or reload, not at the first handshake). */
export function readTlsFiles(certFile: string, keyFile: string): { cert: Buffer; key: Buffer } {
  const cert = fs.readFileSync(certFile);
  const key = fs.readFileSync(keyFile);
  // Throws on unreadable PEM or a key that does not match the certificate.
  tls.createSecureContext({ cert, key });
  return { cert, key };
}

/**
 * SIGHUP: swap in the renewed certificate for new handshakes (open connections keep theirs), no
 * restart. A bad pair is logged and the running certificate stays.
 */
export function reloadTls(app: FastifyInstance, certFile: string, keyFile: string): void {
  try {
    const { cert, key } = readTlsFiles(certFile, keyFile);
    (app.server as unknown as tls.Server).setSecureContext({ cert, key, ...TLS_PROFILE });
    app.log.info('TLS certificate reloaded');
  } catch (e) {
    app.log.error({ message: (e as Error).message }, 'TLS certificate reload failed; keeping the current one');
  }
}

import fs from 'node:fs';
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';

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
    (app.server as unknown as tls.Server).setSecureContext({ cert, key, minVersion: 'TLSv1.2' });
    app.log.info('TLS certificate reloaded');
  } catch (e) {
    app.log.error({ message: (e as Error).message }, 'TLS certificate reload failed; keeping the current one');
  }
}

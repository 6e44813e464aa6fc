import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { readTlsFiles, reloadTls } from '../../src/http/tls.js';
import { createHarness, type Harness } from '../helpers/harness.js';

type Result = { protocol: string | null; cipher: string } | { error: string };

/** One handshake offering only what the arguments name; SECLEVEL=0 so a refusal comes from the server. */
function handshake(port: number, ca: Buffer, version: tls.SecureVersion, ciphers: string): Promise<Result> {
  return new Promise((resolve) => {
    const s = tls.connect(
      { host: '127.0.0.1', port, ca, minVersion: version, maxVersion: version, ciphers: `${ciphers}@SECLEVEL=0` },
      () => {
        const out = { protocol: s.getProtocol(), cipher: s.getCipher().name };
        s.end();
        resolve(out);
      },
    );
    s.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
}

// Mozilla's server-side TLS "intermediate" profile: TLS 1.2 with ECDHE and AEAD ciphers only, every
// TLS 1.3 suite, nothing older than TLS 1.2. Checked by handshakes against the real listener, after
// start and after a certificate reload (SIGHUP builds a new context: it must keep the profile).
describe('TLS: Mozilla intermediate profile', () => {
  let h: Harness;
  let app: FastifyInstance;
  let port = 0;
  let cert: Buffer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');

  beforeAll(async () => {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=slipcheck-tls',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
    ], { stdio: 'ignore' }); // prettier-ignore
    h = await createHarness('sqlite');
    const pair = readTlsFiles(certFile, keyFile);
    cert = pair.cert;
    app = await buildApp(h.c, { https: pair, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await h?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const refused: Array<[string, tls.SecureVersion, string]> = [
    ['TLS 1.1', 'TLSv1.1', 'DEFAULT'],
    ['TLS 1.0', 'TLSv1', 'DEFAULT'],
    ['static RSA key exchange with CBC-SHA1 (AES128-SHA)', 'TLSv1.2', 'AES128-SHA'],
    ['static RSA key exchange even with an AEAD cipher (AES128-GCM-SHA256)', 'TLSv1.2', 'AES128-GCM-SHA256'],
    ['static RSA key exchange, AES-256 CBC-SHA256', 'TLSv1.2', 'AES256-SHA256'],
    ['ECDHE with CBC-SHA1 (ECDHE-RSA-AES128-SHA)', 'TLSv1.2', 'ECDHE-RSA-AES128-SHA'],
    ['ECDHE with CBC-SHA384 (ECDHE-RSA-AES256-SHA384)', 'TLSv1.2', 'ECDHE-RSA-AES256-SHA384'],
  ];
  const accepted: Array<[string, tls.SecureVersion, string]> = [
    ['ECDHE-RSA-AES128-GCM-SHA256', 'TLSv1.2', 'ECDHE-RSA-AES128-GCM-SHA256'],
    ['ECDHE-RSA-AES256-GCM-SHA384', 'TLSv1.2', 'ECDHE-RSA-AES256-GCM-SHA384'],
    ['ECDHE-RSA-CHACHA20-POLY1305', 'TLSv1.2', 'ECDHE-RSA-CHACHA20-POLY1305'],
  ];

  const checkAll = async () => {
    for (const [label, version, ciphers] of refused) {
      const r = await handshake(port, cert, version, ciphers);
      expect(r, label).toHaveProperty('error');
    }
    for (const [label, version, ciphers] of accepted) {
      const r = await handshake(port, cert, version, ciphers);
      expect(r, label).toEqual({ protocol: 'TLSv1.2', cipher: ciphers });
    }
    // TLS 1.3: every suite (Node's client offers all three; each is asked for alone too).
    for (const suite of ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']) {
      const r = await new Promise<Result>((resolve) => {
        const s = tls.connect({ host: '127.0.0.1', port, ca: cert, minVersion: 'TLSv1.3', ciphers: suite }, () => {
          const out = { protocol: s.getProtocol(), cipher: s.getCipher().name };
          s.end();
          resolve(out);
        });
        s.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      });
      expect(r, suite).toEqual({ protocol: 'TLSv1.3', cipher: suite });
    }
  };

  it('refuses TLS 1.1, static RSA and CBC suites; accepts ECDHE+AEAD on TLS 1.2 and every TLS 1.3 suite', checkAll);

  it('keeps the same profile after a certificate reload (SIGHUP)', async () => {
    reloadTls(app, certFile, keyFile);
    await checkAll();
  });
});

import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets the service must be able to read back (webhook signing secrets,
 * messaging-channel secrets). AES-256-GCM with a key derived by HKDF-SHA256 from the master secret
 * (`c.secret`) and a purpose label, so every module gets its own key from the one master secret.
 *
 * Stored form: `sb1.<kid>.<iv>.<ciphertext+tag>` (base64url parts). `kid` names the master secret
 * that encrypted it (a short hash, never the key), so the master secret can rotate: build the box
 * with `[newSecret, oldSecret]`, values written before keep decrypting, new ones use the first key,
 * and `needsReencrypt(value)` tells a sweep which rows to rewrite.
 *
 * `aad` (optional) binds a ciphertext to its row (e.g. the endpoint id) so a value copied into
 * another row does not decrypt there.
 */
export interface SecretBox {
  encrypt(plaintext: string, aad?: string): string;
  decrypt(stored: string, aad?: string): string;
  /** True when the value was encrypted with an older master secret than the current one. */
  needsReencrypt(stored: string): boolean;
  readonly currentKeyId: string;
}

export interface SecretBoxOptions {
  /** Master secrets, newest first. The first encrypts; all decrypt. */
  secrets: string | string[];
  /** HKDF info label, e.g. 'webhook-secret' or 'line-channel-secret'. Different purposes never share a key. */
  purpose: string;
}

const VERSION = 'sb1';
const SALT = Buffer.from('slipcheck/secret-box/v1');

interface DerivedKey {
  kid: string;
  key: Buffer;
}

function derive(master: string, purpose: string): DerivedKey {
  if (!master) throw new Error('secret-box: empty master secret');
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(master, 'utf8'), SALT, Buffer.from(`key:${purpose}`), 32));
  // The key id is a hash of the derived key under a different label: it identifies, never reveals.
  const kid = createHash('sha256').update('kid:').update(key).digest('base64url').slice(0, 8);
  return { kid, key };
}

export function createSecretBox(opts: SecretBoxOptions): SecretBox {
  const masters = Array.isArray(opts.secrets) ? opts.secrets : [opts.secrets];
  if (!masters.length) throw new Error('secret-box: at least one master secret is required');
  const keys = masters.map((m) => derive(m, opts.purpose));
  const current = keys[0]!;
  const byKid = new Map(keys.map((k) => [k.kid, k.key] as const));

  return {
    currentKeyId: current.kid,
    encrypt(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${current.kid}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    decrypt(stored, aad) {
      const parts = stored.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('secret-box: not a sealed value');
      const key = byKid.get(parts[1]!);
      if (!key) throw new Error('secret-box: unknown key id (master secret rotated away?)');
      const iv = Buffer.from(parts[2]!, 'base64url');
      const body = Buffer.from(parts[3]!, 'base64url');
      if (iv.length !== 12 || body.length < 16) throw new Error('secret-box: malformed value');
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      try {
        return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('secret-box: value does not authenticate');
      }
    },
    needsReencrypt(stored) {
      return stored.split('.')[1] !== current.kid;
    },
  };
}

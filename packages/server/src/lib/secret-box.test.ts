import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('secret-box', () => {
  it('round-trips and never stores the plaintext', () => {
    const box = createSecretBox({ secrets: A, purpose: 'webhook-secret' });
    const sealed = box.encrypt('whsec_hello');
    expect(sealed).not.toContain('whsec_hello');
    expect(sealed.startsWith(`sb1.${box.currentKeyId}.`)).toBe(true);
    expect(box.decrypt(sealed)).toBe('whsec_hello');
    expect(box.encrypt('x')).not.toBe(box.encrypt('x')); // random IV
  });

  it('separates purposes and binds aad', () => {
    const w = createSecretBox({ secrets: A, purpose: 'webhook-secret' });
    const l = createSecretBox({ secrets: A, purpose: 'line-channel-secret' });
    expect(() => l.decrypt(w.encrypt('s'))).toThrow();
    const sealed = w.encrypt('s', 'row-1');
    expect(w.decrypt(sealed, 'row-1')).toBe('s');
    expect(() => w.decrypt(sealed, 'row-2')).toThrow(/authenticate/);
  });

  it('detects tampering', () => {
    const box = createSecretBox({ secrets: A, purpose: 'p' });
    const parts = box.encrypt('secret').split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0]! ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => box.decrypt(parts.join('.'))).toThrow();
  });

  it('rotates the master secret: old values decrypt, new ones use the new key', () => {
    const old = createSecretBox({ secrets: A, purpose: 'p' });
    const sealedOld = old.encrypt('v1');
    const rotated = createSecretBox({ secrets: [B, A], purpose: 'p' });
    expect(rotated.decrypt(sealedOld)).toBe('v1');
    expect(rotated.needsReencrypt(sealedOld)).toBe(true);
    const sealedNew = rotated.encrypt('v2');
    expect(rotated.needsReencrypt(sealedNew)).toBe(false);
    expect(() => old.decrypt(sealedNew)).toThrow(/unknown key id/);
  });
});

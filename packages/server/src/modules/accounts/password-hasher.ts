import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../../errors.js';

// Algorithm.Argon2id is an ambient const enum (not usable with isolatedModules); its value is 2.
const ARGON2ID = 2 as const;

/**
 * argon2id. Production cost follows the OWASP minimum (19 MiB, 2 passes, 1 lane); NODE_ENV=test
 * lowers it only so the suite stays fast: the algorithm and the code path are the same.
 */
export function createPasswordHasher(opts: { fast?: boolean } = {}) {
  const params = opts.fast
    ? { algorithm: ARGON2ID, memoryCost: 256, timeCost: 1, parallelism: 1 }
    : { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
  // Verified against when the e-mail is unknown, so a miss costs the same time as a wrong password.
  let dummy: Promise<string> | null = null;
  return {
    hash: (password: string) => hash(password, params),
    async verify(phc: string, password: string): Promise<boolean> {
      try {
        return await verify(phc, password);
      } catch {
        return false;
      }
    },
    async burn(password: string): Promise<void> {
      dummy ??= hash('slipcheck-timing-equaliser', params);
      await verify(await dummy, password).catch(() => false);
    },
  };
}
export type PasswordHasher = ReturnType<typeof createPasswordHasher>;

/** Length is what matters (NIST 800-63B); no composition rules that push people to patterns. */
export function validatePassword(pw: unknown): string {
  if (typeof pw !== 'string' || [...pw].length < 8 || pw.length > 200) {
    throw new AppError('WEAK_PASSWORD', 400, 'Password must be 8 to 200 characters');
  }
  if (/^(.)\1+$/.test(pw) || ['password', '12345678', '123456789', '1234567890', 'qwertyui', 'password1'].includes(pw.toLowerCase())) {
    throw new AppError('WEAK_PASSWORD', 400, 'This password is too easy to guess; choose a longer or less common one');
  }
  return pw;
}

/**
 * One mailbox, nothing else: no spaces, control characters, or the address-list and header characters
 * (`,;<>()[]\":`) that would let one "address" name a second recipient or break a mail header.
 * Non-ASCII stays allowed (internationalised addresses).
 */
const EMAIL = /^[^\s@,;<>()[\]\\":\u0000-\u001f\u007f]+@[^\s@,;<>()[\]\\":\u0000-\u001f\u007f]+\.[^\s@,;<>()[\]\\":\u0000-\u001f\u007f]+$/;

export function normaliseEmail(e: unknown): string {
  const s = typeof e === 'string' ? e.trim().toLowerCase() : '';
  if (s.length < 3 || s.length > 254 || !EMAIL.test(s)) throw new AppError('VALIDATION_ERROR', 400, 'A valid e-mail address is required');
  return s;
}

import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * Time-ordered ids (`txn_01hx...`): the first 10 characters encode the millisecond clock, so ids
 * sort by creation time, which keeps cursor pagination stable on both databases.
 */
export function newId(prefix: string, nowMs = Date.now()): string {
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(10);
  let tail = '';
  for (const b of rnd) tail += ALPHABET[b % 32];
  return `${prefix}_${time}${tail}`;
}

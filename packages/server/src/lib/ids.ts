import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

// 10 random bytes per id from a pool refilled 4 KB at a time: one randomFillSync per 409 ids instead
// of one per id (a webhook round makes three ids; it showed in the delivery profile, issue 24).
const POOL = Buffer.alloc(4090);
let at = POOL.length;
function randomTen(): Buffer {
  if (at + 10 > POOL.length) {
    randomFillSync(POOL);
    at = 0;
  }
  at += 10;
  return POOL.subarray(at - 10, at);
}

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
  let tail = '';
  for (const b of randomTen()) tail += ALPHABET[b % 32];
  return `${prefix}_${time}${tail}`;
}

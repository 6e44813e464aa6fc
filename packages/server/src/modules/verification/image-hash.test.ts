import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OFF_THREAD_HASH_BYTES, imageFingerprint, imageSha256 } from './image-hash.js';

const reference = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('imageSha256', () => {
  it('gives the plain SHA-256 on both sides of the hand-off size', async () => {
    for (const n of [0, 1, OFF_THREAD_HASH_BYTES - 1, OFF_THREAD_HASH_BYTES, OFF_THREAD_HASH_BYTES + 1, 300_000]) {
      const b = randomBytes(n);
      expect(await imageSha256(b)).toBe(reference(b));
    }
  });

  it('hashes only the view it is given (a Buffer that is a slice of a larger allocation)', async () => {
    const big = randomBytes(3 * OFF_THREAD_HASH_BYTES);
    const view = big.subarray(1000, 1000 + 2 * OFF_THREAD_HASH_BYTES);
    expect(await imageSha256(view)).toBe(reference(Buffer.from(view)));
  });

  it('matches for any bytes and sizes around the hand-off', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: OFF_THREAD_HASH_BYTES - 64, max: OFF_THREAD_HASH_BYTES + 64 }), fc.integer(), async (n, seed) => {
        const b = Buffer.alloc(n, seed & 0xff);
        if (n > 0) b[n - 1] = (seed >>> 8) & 0xff;
        expect(await imageSha256(b)).toBe(reference(b));
      }),
      { numRuns: 40 },
    );
  });
});

describe('imageFingerprint (the replay memory key)', () => {
  it('is the same for the same bytes, whatever holds them', () => {
    const b = randomBytes(99_226);
    const big = Buffer.concat([randomBytes(17), b, randomBytes(5)]);
    expect(imageFingerprint(Buffer.from(b))).toBe(imageFingerprint(b));
    expect(imageFingerprint(big.subarray(17, 17 + b.length))).toBe(imageFingerprint(b));
    expect(imageFingerprint(new Uint8Array(b))).toBe(imageFingerprint(b));
  });

  it('differs when any one byte differs, and when only the length does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 4096 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, delta) => {
        const b = Buffer.from(bytes);
        const edited = Buffer.from(b);
        const i = at % b.length;
        edited[i] = (edited[i]! + delta) & 0xff;
        expect(imageFingerprint(edited)).not.toBe(imageFingerprint(b));
        expect(imageFingerprint(Buffer.concat([b, Buffer.alloc(1)]))).not.toBe(imageFingerprint(b));
      }),
      { numRuns: 300 },
    );
  });
});

import { createHash, webcrypto } from 'node:crypto';
import xxhash from 'xxhash-wasm';

// Instantiated once per process (WebAssembly compiled from the package's own bytes, nothing fetched).
// Its linear memory holds the last image hashed until the next one overwrites it, as the memory of a
// freed request buffer does until reused: in this process's memory only, never written out or logged.
const { h64Raw } = await xxhash();

/**
 * At or above this size the image is hashed on libuv's thread pool (WebCrypto's digest runs there),
 * below it on the calling thread. In a micro-benchmark on the bench host a 98 KB slip cost the main
 * thread ~62 µs hashed in place and ~26 µs handed off (the promise, the copy WebCrypto takes, the
 * hex); in the service the copy's fresh allocation and its cleanse on free cost a little more
 * (docs/benchmarks.md). The main thread answers every request, so what it is spared counts; under
 * ~32 KB the hand-off costs about what the hash does.
 */
export const OFF_THREAD_HASH_BYTES = 32 * 1024;

/** The image's SHA-256 in hex, the same digest either way (the record's image_hash, the claim's key). */
export async function imageSha256(image: Buffer): Promise<string> {
  if (image.length < OFF_THREAD_HASH_BYTES) return createHash('sha256').update(image).digest('hex');
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', image)).toString('hex');
}

/**
 * A fast 64-bit fingerprint of the image (xxHash64, ~7 µs for a 98 KB slip against SHA-256's ~63 µs),
 * with its length: the key of the replay memory only (replay-memory.ts), so an identical request
 * answered from memory within the second costs no SHA-256. Not a security boundary, and it need not be
 * one: the memory is per shop and environment and answers a request with the record an identical
 * request got less than a second ago, so bytes made to collide with a remembered image gain the sender
 * nothing the remembered image itself would not (and they must know that image's bytes to aim at it).
 * An accidental collision of two different slips of one shop inside one second is ~2^-64 per pair.
 * Everything that lasts (the claim, the record's image_hash) keeps the SHA-256.
 */
export function imageFingerprint(image: Uint8Array): string {
  return `${image.length}:${h64Raw(image).toString(36)}`;
}

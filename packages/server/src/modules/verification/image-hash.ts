import { createHash, webcrypto } from 'node:crypto';

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

/** Anything `verify()` accepts as the slip image. */
export type ImageInput =
  Buffer | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | NodeJS.ReadableStream | AsyncIterable<Uint8Array | string>;

export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * Streams are read into memory before sending. Slip images are small, and a buffered body can be
 * re-sent on a 429/503 and goes out with a Content-Length (a one-shot stream could not be retried).
 */
export async function readImage(image: ImageInput, maxBytes: number = DEFAULT_MAX_IMAGE_BYTES): Promise<Uint8Array> {
  let bytes: Uint8Array;
  if (image instanceof Uint8Array) bytes = image;
  else if (image instanceof ArrayBuffer) bytes = new Uint8Array(image);
  else if (isWebStream(image)) bytes = await readWebStream(image, maxBytes);
  else if (image && typeof (image as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    bytes = await readAsyncIterable(image as AsyncIterable<Uint8Array | string>, maxBytes);
  } else {
    throw new TypeError('image must be a Buffer, Uint8Array, ArrayBuffer or a readable stream of bytes');
  }
  if (bytes.byteLength === 0) throw new TypeError('image is empty');
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

function isWebStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof (value as ReadableStream | undefined)?.getReader === 'function';
}

function tooLarge(maxBytes: number): RangeError {
  return new RangeError(`image is larger than ${maxBytes} bytes`);
}

async function readWebStream(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, total);
}

async function readAsyncIterable(source: AsyncIterable<Uint8Array | string>, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.byteLength;
    // Leaving the loop early destroys a Node stream, so an endless source stops here.
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}

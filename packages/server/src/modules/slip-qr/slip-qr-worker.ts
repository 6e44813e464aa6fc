// Worker-thread entry of the slip decoder pool: one decode at a time, the image arrives transferred.
import { parentPort } from 'node:worker_threads';
import { decodeSlipImage } from './slip-qr-decoder.js';
import { loadZXing } from './slip-qr-zxing.js';

export interface WorkerRequest {
  id: number;
  image: Uint8Array;
}

export type WorkerResponse =
  { id: number; result: Awaited<ReturnType<typeof decodeSlipImage>> } | { id: number; error: string } | { ready: true };

const port = parentPort;
if (port) {
  // Instantiate the wasm before the first job so its latency does not land on a user's request.
  void loadZXing()
    .catch(() => undefined)
    .finally(() => port.postMessage({ ready: true } satisfies WorkerResponse));
  port.on('message', (msg: WorkerRequest) => {
    const image = Buffer.from(msg.image.buffer, msg.image.byteOffset, msg.image.byteLength);
    decodeSlipImage(image).then(
      (result) => port.postMessage({ id: msg.id, result } satisfies WorkerResponse),
      (err: unknown) => port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerResponse),
    );
  });
}

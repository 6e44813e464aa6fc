// Child-process entry of the slip decoder pool: one decode at a time. A process, not a thread, so the
// pool can stop a decode for real (SIGKILL): a thread's terminate() cannot interrupt libvips.
import { decodeSlipImage } from './slip-qr-decoder.js';
import { loadZXing } from './slip-qr-zxing.js';

export interface WorkerRequest {
  id: number;
  image: Uint8Array;
}

export type WorkerResponse =
  { id: number; result: Awaited<ReturnType<typeof decodeSlipImage>> } | { id: number; error: string } | { ready: true };

// Only when forked by the pool (the env marker): importing this file elsewhere does nothing.
if (process.send && process.env.SLIPCHECK_DECODER_CHILD === '1') {
  const send = (msg: WorkerResponse) => process.send!(msg);
  // Instantiate the wasm before the first job so its latency does not land on a user's request.
  void loadZXing()
    .catch(() => undefined)
    .finally(() => send({ ready: true }));
  process.on('message', (msg: WorkerRequest) => {
    const image = Buffer.from(msg.image.buffer, msg.image.byteOffset, msg.image.byteLength);
    // The pool ran the byte-level gate on the main thread before queueing this image.
    decodeSlipImage(image, { screen: false }).then(
      (result) => send({ id: msg.id, result }),
      (err: unknown) => send({ id: msg.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The pool's process is gone (or closed the channel): nothing will ask for another decode.
  process.on('disconnect', () => process.exit(0));
}

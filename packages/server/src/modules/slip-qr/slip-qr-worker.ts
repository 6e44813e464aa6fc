// Worker-thread entry of the slip decoder pool: one decode at a time, the image arrives transferred.
import { parentPort, workerData } from 'node:worker_threads';
import { readPrintedAmount, type PrintedRead } from './slip-qr-amount.js';
import { DEFAULT_DECODE_BUDGET_MS, decodeSlipImage } from './slip-qr-decoder.js';
import { warmOcr } from './slip-qr-ocr.js';
import { loadZXing } from './slip-qr-zxing.js';

export interface WorkerRequest {
  id: number;
  image: Uint8Array;
  /** Also read the printed amount once the slip QR decoded (never on an image the decoder refused). */
  read?: boolean;
}

export type WorkerResponse =
  | { id: number; result: Awaited<ReturnType<typeof decodeSlipImage>> }
  | { id: number; printed: PrintedRead | null }
  | { id: number; error: string }
  | { ready: true };

/**
 * Wall-time budget of one image in the worker, decode and reading together: the decode keeps its own
 * 600 ms (DEFAULT_DECODE_BUDGET_MS), the reader stops starting lines once the image has spent this.
 * A read costs ~70-110 ms of CPU (docs/benchmarks.md); the rest is room for a machine whose cores are
 * shared (at a load of 9 per core a read took ~1.3 s of wall time). Past it the amount is unread,
 * which concludes nothing; the pool's job timeout stays the hard bound.
 */
export const IMAGE_BUDGET_MS = DEFAULT_DECODE_BUDGET_MS + 1900;

const port = parentPort;
if (port) {
  // Instantiate the wasm before the first job so its latency does not land on a user's request.
  // The OCR engine too when the service reads printed amounts (its model load is ~0.5 s of CPU).
  const warmReader = (workerData as { warmReader?: boolean } | undefined)?.warmReader === true;
  const loading = Promise.all([loadZXing().catch(() => undefined), warmReader ? warmOcr().catch(() => undefined) : undefined]);
  void loading.finally(() => port.postMessage({ ready: true } satisfies WorkerResponse));
  port.on('message', (msg: WorkerRequest) => {
    const image = Buffer.from(msg.image.buffer, msg.image.byteOffset, msg.image.byteLength);
    // A job handed over while the thread still loads waits for it: loading is not the image's time.
    let started = 0;
    loading
      .then(() => {
        started = performance.now();
        return decodeSlipImage(image);
      })
      .then(
        async (result) => {
          // The decode answers at once, so the service can ask the checker while the amount is read.
          port.postMessage({ id: msg.id, result } satisfies WorkerResponse);
          if (!msg.read || !result.ok) return;
          // Reading spends what is left of the image's one budget: a slow decode leaves less to read with.
          const budgetMs = IMAGE_BUDGET_MS - (performance.now() - started);
          const printed = budgetMs > 0 ? await readPrintedAmount(image, { budgetMs, angle: result.qrAngle }).catch(() => null) : null;
          port.postMessage({ id: msg.id, printed } satisfies WorkerResponse);
        },
        (err: unknown) =>
          port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerResponse),
      );
  });
}

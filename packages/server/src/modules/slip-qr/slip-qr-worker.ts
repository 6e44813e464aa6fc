// Child-process entry of the slip decoder pool: one image at a time. A process, not a thread, so the
// pool can stop a decode for real (SIGKILL): a thread's terminate() cannot interrupt libvips.
import { readPrintedAmount, type PrintedRead } from './slip-qr-amount.js';
import { DEFAULT_DECODE_BUDGET_MS, decodeSlipImage } from './slip-qr-decoder.js';
import { processCpuMs, startRunClock } from './run-clock.js';
import { warmOcr } from './slip-qr-ocr.js';
import { loadZXing } from './slip-qr-zxing.js';

export interface WorkerRequest {
  id: number;
  image: Uint8Array;
  /** Also read the printed amount once the slip QR decoded (never on an image the decoder refused). */
  read?: boolean;
  /** A JPEG the gate found without its end marker, sent with it added (DecodeOptions.endAdded). */
  endAdded?: boolean;
}

export type WorkerResponse = (
  | { id: number; result: Awaited<ReturnType<typeof decodeSlipImage>> }
  | { id: number; printed: PrintedRead | null }
  | { id: number; error: string }
  | { ready: true }
) & {
  /**
   * The decoder's CPU time so far (processCpuMs): the pool's kill limit counts a job's CPU from the
   * last message before it. Absent from stand-in decoders, whose jobs the limit measures in wall time.
   */
  cpuMs?: number;
};

/**
 * Budget of one image in the decoder, decode and reading together, in running time (run-clock.ts:
 * time spent waiting for a CPU does not count): the decode keeps its own 600 ms
 * (DEFAULT_DECODE_BUDGET_MS), the reader stops starting lines once the image has spent this. It ends
 * 300 ms before the pool's hard limit (DEFAULT_DECODE_KILL_MS, 2 s) so a read normally stops by
 * itself; a read still running at the limit is killed with its process and concludes nothing. A read
 * costs ~70-110 ms of CPU (docs/benchmarks.md); the rest is room for a slower CPU.
 */
export const IMAGE_BUDGET_MS = DEFAULT_DECODE_BUDGET_MS + 1100;

// Only when forked by the pool (the env marker): importing this file elsewhere does nothing.
if (process.send && process.env.SLIPCHECK_DECODER_CHILD === '1') {
  // The pool's process may be gone (SIGKILLed) before an answer is sent: the send then fails with
  // EPIPE or ERR_IPC_CHANNEL_CLOSED, and unhandled that printed a stack as the child died (the chaos
  // soak's logs). Nobody is left to answer, so the error is dropped and the child exits.
  const send = (msg: WorkerResponse) => {
    if (!process.connected) return process.exit(0);
    process.send!({ ...msg, cpuMs: processCpuMs() }, undefined, undefined, (err) => {
      if (err) process.exit(0);
    });
  };
  process.on('error', () => process.exit(0));
  // Instantiate the wasm before the first job so its latency does not land on a user's request, and
  // the OCR engine too when the service reads printed amounts (its model load is ~0.5 s of CPU).
  const warmReader = process.env.SLIPCHECK_DECODER_WARM_READER === '1';
  const imageBudgetMs = Number(process.env.SLIPCHECK_DECODER_IMAGE_BUDGET_MS) || IMAGE_BUDGET_MS; // the pool's imageBudgetMs
  const loading = Promise.all([loadZXing().catch(() => undefined), warmReader ? warmOcr().catch(() => undefined) : undefined]);
  void loading.finally(() => send({ ready: true }));
  process.on('message', (msg: WorkerRequest) => {
    const image = Buffer.from(msg.image.buffer, msg.image.byteOffset, msg.image.byteLength);
    const ran = startRunClock();
    // The pool ran the byte-level gate on the main thread before queueing this image.
    decodeSlipImage(image, { screen: false, endAdded: msg.endAdded }).then(
      async (result) => {
        // The decode answers at once, so the service can ask the checker while the amount is read.
        send({ id: msg.id, result });
        if (!msg.read || !result.ok) return;
        // Reading spends what is left of the image's one budget: a slow decode leaves less to read with.
        const budgetMs = imageBudgetMs - ran();
        const printed = budgetMs > 0 ? await readPrintedAmount(image, { budgetMs, angle: result.qrAngle }).catch(() => null) : null;
        send({ id: msg.id, printed });
      },
      (err: unknown) => send({ id: msg.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The pool's process is gone (or closed the channel): nothing will ask for another decode.
  process.on('disconnect', () => process.exit(0));
}

import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { metrics } from '../../lib/metrics.js';
import type { PrintedRead } from './slip-qr-amount.js';
import type { DecodeResult } from './slip-qr-decoder.js';
import { FairQueue } from './slip-qr-fair-queue.js';
import type { WorkerRequest, WorkerResponse } from './slip-qr-worker.js';

export interface SlipDecoderPoolOptions {
  /** Worker threads; default: one per core. */
  threads?: number;
  /**
   * Jobs waiting for a free worker before decode() refuses with DECODER_BUSY; default 16 per thread.
   * Shared fairly between keys (shops): when it is full, a key below its share (maxQueue / keys
   * waiting) takes the newest place of the key holding the most, which is refused instead.
   */
  maxQueue?: number;
  /**
   * Jobs of one key (shop) decoding at the same time; default: every thread on 1-2 threads, one less
   * than the threads above that (one thread always stays for other shops). With fewer, a free
   * worker goes to the waiting key with the fewest running jobs first.
   */
  maxRunningPerKey?: number;
  /** A job running longer than this kills its worker (which is replaced); default 20 s. */
  jobTimeoutMs?: number;
  /** Start each worker's OCR engine while it loads (the service reads printed amounts: SLIP_EDIT_MODE). */
  warmReader?: boolean;
  /** Worker script; tests substitute their own. Default: slip-qr-worker.ts beside this file. */
  workerUrl?: URL;
}

export interface DecodeCallOptions {
  /**
   * By default the image's memory is transferred to the worker and the caller's Buffer is left
   * empty (no copy of the image stays on the main thread). Set `copy` to keep it usable.
   */
  copy?: boolean;
  /** Whose image this is (the shop id): the queue is shared fairly between keys. Default: one shared key. */
  key?: string;
}

/**
 * A decode that also reads the printed amount (issue 20). `decoded` arrives as soon as the QR is
 * decoded; `printed` later, from the same job on the same worker (so the reading stays inside the
 * image's budget and the shop's fair share). `printed` never rejects: null when nothing was read
 * (decode failed, budget spent, the worker failed).
 */
export interface DecodeAndRead {
  decoded: DecodeResult;
  printed: Promise<PrintedRead | null>;
}

export interface SlipDecoderPool {
  decode(image: Buffer, options?: DecodeCallOptions): Promise<DecodeResult>;
  decodeAndRead(image: Buffer, options?: DecodeCallOptions): Promise<DecodeAndRead>;
  close(): Promise<void>;
  /** Resolves once every worker has loaded (the first decode then pays no start-up cost). */
  ready(): Promise<void>;
  /** Snapshot for health/metrics: busy workers and queued jobs. */
  stats(): { threads: number; busy: number; queued: number };
  /** Running and waiting jobs of one key (tests and diagnostics). */
  keyStats(key: string): { running: number; queued: number };
}

interface Job {
  id: number;
  key: string;
  image: Uint8Array;
  resolve: (r: DecodeResult) => void;
  reject: (e: Error) => void;
  /** Set for decodeAndRead: the job holds its worker until the printed amount is read. */
  printed?: (p: PrintedRead | null) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/**
 * A .ts worker needs the tsx loader registered inside its own thread: neither the parent's loader
 * nor vitest's transform reaches workers, and on Node 20 `execArgv: ['--import', 'tsx']` does not
 * apply to the worker's entry module. So a tiny eval'd bootstrap registers tsx, then imports it.
 * Development and tests only: the compiled build passes a .js worker, started as is.
 */
function workerSource(url: URL): { source: string | URL; evalSource: boolean } {
  if (!url.pathname.endsWith('.ts')) return { source: url, evalSource: false };
  // Resolved from here (not the process cwd); the ESM build, as tsx's CJS register is broken in workers.
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const api = pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
  const source =
    `import(${JSON.stringify(api)}).then((m) => { (m.register ?? m.default.register)(); ` +
    `return import(${JSON.stringify(url.href)}); });`;
  return { source, evalSource: true };
}

/** Copies only when the bytes share an ArrayBuffer with other data (Node's small-Buffer pool). */
function ownBytes(image: Buffer, copy: boolean): Uint8Array {
  const whole = image.byteOffset === 0 && image.byteLength === image.buffer.byteLength;
  if (!copy && whole && image.buffer instanceof ArrayBuffer) return new Uint8Array(image.buffer);
  return new Uint8Array(image);
}

const closedError = () => new AppError('DECODER_CLOSED', 503, 'slip decoder is shut down');
const unavailableError = () => new AppError('DECODER_UNAVAILABLE', 503, 'slip decoder could not start');

export function createSlipDecoderPool(options: SlipDecoderPoolOptions = {}): SlipDecoderPool {
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  const maxQueue = Math.max(0, Math.floor(options.maxQueue ?? threads * 16));
  const jobTimeoutMs = options.jobTimeoutMs ?? 20_000;
  const maxRunningPerKey = Math.max(1, Math.floor(options.maxRunningPerKey ?? (threads <= 2 ? threads : threads - 1)));
  // The compiled build (dist/*.js) starts the compiled worker directly: no TypeScript loader in production.
  const workerUrl = options.workerUrl ?? new URL(`./slip-qr-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  const { source, evalSource } = workerSource(workerUrl);
  const queue = new FairQueue<Job>();
  // Jobs each key has on a worker right now; a key leaves the map at zero.
  const running = new Map<string, number>();
  const runningOf = (key: string) => running.get(key) ?? 0;
  // When each key last had a job started (a sequence number): ties between keys go to the longest idle.
  // Forgotten once a key has nothing running or waiting, so the map stays as small as the load.
  const lastStart = new Map<string, number>();
  let startSeq = 0;
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;
  // Workers that died before saying ready, in a row: a broken install must not respawn forever.
  let startFailures = 0;
  let broken = false;
  let readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  function settleReady(): void {
    if (readyWaiters.length === 0) return;
    const waiters = readyWaiters;
    if (broken || closed) {
      readyWaiters = [];
      for (const w of waiters) w.reject(broken ? unavailableError() : closedError());
    } else if (slots.every((s) => s.ready)) {
      readyWaiters = [];
      for (const w of waiters) w.resolve();
    }
  }

  function spawn(): Slot {
    const slot: Slot = {
      worker: new Worker(source, { eval: evalSource, workerData: { warmReader: options.warmReader === true } }),
      ready: false,
    };
    slot.worker.unref();
    slot.worker.on('message', (msg: WorkerResponse) => {
      if ('ready' in msg) {
        slot.ready = true;
        startFailures = 0;
        if (slot.job) armTimer(slot); // the decode's own time starts now
        settleReady();
        return;
      }
      const job = slot.job;
      if (!job || msg.id !== job.id) return;
      if ('result' in msg && job.printed && msg.result.ok) {
        // Decoded: answer now, keep the worker (and the shop's slot) until the amount is read.
        job.resolve(msg.result);
        return;
      }
      finish(slot);
      if ('printed' in msg) job.printed?.(msg.printed);
      else if ('result' in msg) {
        job.printed?.(null);
        job.resolve(msg.result);
      } else {
        job.printed?.(null);
        job.reject(new AppError('DECODER_FAILED', 500, 'slip decoder failed on this image'));
      }
      pump();
    });
    // 'error' is followed by 'exit'; the exit handler does the replacing.
    slot.worker.on('error', () => undefined);
    slot.worker.on('exit', () => {
      const job = slot.job;
      finish(slot);
      job?.printed?.(null);
      const i = slots.indexOf(slot);
      if (i >= 0) slots.splice(i, 1);
      if (closed) {
        job?.reject(closedError());
        settleReady();
        return;
      }
      job?.reject(new AppError('DECODER_FAILED', 500, 'slip decoder worker stopped while decoding'));
      if (!slot.ready && ++startFailures >= 3) {
        broken = true;
        for (const queued of queue.drain()) {
          queued.printed?.(null);
          queued.reject(unavailableError());
        }
        settleReady();
        return;
      }
      slots.push(spawn());
      pump();
    });
    return slot;
  }

  function finish(slot: Slot): void {
    // Every way a job ends (answer, error, timeout, worker death) comes through here: the key's slot is free again.
    if (slot.job) {
      const key = slot.job.key;
      const n = runningOf(key) - 1;
      if (n > 0) running.set(key, n);
      else running.delete(key);
      if (n <= 0 && queue.sizeOf(key) === 0) lastStart.delete(key);
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.worker.unref();
  }

  /**
   * The job timeout measures decoding, not thread start-up: a job handed to a worker that is still
   * loading (after a replacement, on a loaded machine) gets a start-up allowance on top, and the
   * timer restarts at `jobTimeoutMs` once the worker says ready.
   */
  function armTimer(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(
      () => {
        // terminate() ends in 'exit', which rejects the job and spawns a replacement.
        void slot.worker.terminate();
      },
      slot.ready ? jobTimeoutMs : jobTimeoutMs + 30_000,
    );
  }

  function start(slot: Slot, job: Job): void {
    slot.job = job;
    running.set(job.key, runningOf(job.key) + 1);
    lastStart.set(job.key, ++startSeq);
    // Keep the process alive while a caller waits on this job.
    slot.worker.ref();
    armTimer(slot);
    const image = job.image;
    job.image = new Uint8Array(0);
    const msg: WorkerRequest = { id: job.id, image, read: job.printed !== undefined };
    slot.worker.postMessage(msg, [image.buffer as ArrayBuffer]);
  }

  function pump(): void {
    for (const slot of slots) {
      if (queue.size === 0) return;
      if (slot.job) continue;
      const next = queue.next(runningOf, maxRunningPerKey, (k) => lastStart.get(k) ?? 0);
      if (!next) return;
      start(slot, next.job);
    }
  }

  const busyError = () => {
    metrics.decoderRejected.inc();
    return new AppError('DECODER_BUSY', 503, 'slip decoder is busy, retry shortly');
  };

  for (let i = 0; i < threads; i++) slots.push(spawn());

  function submit(image: Buffer, callOptions: DecodeCallOptions, printed?: (p: PrintedRead | null) => void): Promise<DecodeResult> {
    if (closed) return Promise.reject(closedError());
    if (broken) return Promise.reject(unavailableError());
    if (!Buffer.isBuffer(image)) return Promise.reject(new TypeError('image must be a Buffer'));
    const key = callOptions.key ?? '';
    const free = runningOf(key) < maxRunningPerKey ? slots.find((s) => !s.job) : undefined;
    if (!free && queue.size >= maxQueue) {
      // Full: a key below its share takes the place of the biggest holder's newest job.
      const evicted = queue.evictFor(key, maxQueue);
      if (!evicted) return Promise.reject(busyError());
      evicted.printed?.(null);
      evicted.reject(busyError());
    }
    return new Promise<DecodeResult>((resolve, reject) => {
      const job: Job = { id: nextId++, key, image: ownBytes(image, callOptions.copy ?? false), resolve, reject, printed };
      if (free) start(free, job);
      else queue.push(key, job);
    });
  }

  return {
    decode(image, callOptions = {}) {
      return submit(image, callOptions);
    },
    async decodeAndRead(image, callOptions = {}) {
      let settle!: (p: PrintedRead | null) => void;
      const printed = new Promise<PrintedRead | null>((resolve) => (settle = resolve));
      const decoded = await submit(image, callOptions, settle).catch((err: unknown) => {
        settle(null);
        throw err;
      });
      if (!decoded.ok) settle(null);
      return { decoded, printed };
    },
    async close() {
      if (closed) return;
      closed = true;
      settleReady();
      for (const job of queue.drain()) {
        job.printed?.(null);
        job.reject(closedError());
      }
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
    ready() {
      return new Promise<void>((resolve, reject) => {
        readyWaiters.push({ resolve, reject });
        settleReady();
      });
    },
    stats() {
      return { threads: slots.length, busy: slots.filter((s) => s.job).length, queued: queue.size };
    },
    keyStats(key) {
      return { running: runningOf(key), queued: queue.sizeOf(key) };
    },
  };
}

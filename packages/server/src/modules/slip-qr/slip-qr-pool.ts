import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AppError } from '../../errors.js';
import { metrics } from '../../lib/metrics.js';
import { usableCores } from '../../lib/usable-cores.js';
import { screenImage, withEndOfImage } from './image-gate.js';
import { childCpuMs } from './run-clock.js';
import type { PrintedRead } from './slip-qr-amount.js';
import { DEFAULT_DECODE_BUDGET_MS, type DecodeResult } from './slip-qr-decoder.js';
import { FairQueue } from './slip-qr-fair-queue.js';
import type { WorkerRequest, WorkerResponse } from './slip-qr-worker.js';

/** Nice value of decoder processes (0 = the service's own; higher = yields to it). */
const DECODER_NICENESS = 5;

/**
 * Running time after which a decode is stopped for real (its process SIGKILLed and replaced): the
 * cascade's own 600 ms budget plus the one pass that may be running when it runs out (a full-size
 * pass on a 24 MP image on a slow CPU). The budget is only checked between passes, and libvips cannot
 * be interrupted inside a call: this is the bound that holds whatever the image. Running time is the
 * decoder's CPU time (run-clock.ts), read from /proc where the pool runs on Linux, else wall time.
 */
export const DEFAULT_DECODE_KILL_MS = DEFAULT_DECODE_BUDGET_MS + 1400;
/**
 * How long past the kill limit, in wall time, a decoder kept off the CPU may still take: a machine
 * loaded by other processes or a container's CPU quota slows a decode down without making it
 * hostile, and killing it lost the slip's answer (an edited slip's amount unread). A decoder that has
 * not run its limit by then is stopped all the same: the customer is better told to send the slip
 * again than kept waiting on a node that cannot decode.
 */
export const STARVED_GRACE_MS = 6000;
// Shortest wait before a starved decoder's running time is read again.
const RECHECK_MIN_MS = 20;
// Decode time a shop has used decays with this time constant (its fairness charge, see pickNext).
const USAGE_DECAY_MS = 10_000;
// After three start-up deaths in a row the pool reports itself down and tries one start this often.
const RESTART_RETRY_MS = 30_000;

export interface SlipDecoderPoolOptions {
  /** Decoder processes; default: one per CPU the process may use (usableCores: the cores, or the container's CPU quota). */
  threads?: number;
  /**
   * Jobs waiting for a free decoder before decode() refuses with DECODER_BUSY; default 16 per decoder.
   * Shared fairly between keys (shops): when it is full, a key below its share (maxQueue / keys
   * waiting) takes the newest place of the key holding the most, which is refused instead.
   */
  maxQueue?: number;
  /**
   * Jobs of one key (shop) decoding at the same time; default: every decoder on 1-2 decoders, one
   * less than the decoders above that (one always stays for other shops). With fewer, a free
   * decoder goes to the waiting key with the fewest running jobs first.
   */
  maxRunningPerKey?: number;
  /**
   * A decode running longer than this (its decoder's CPU time; waiting for a CPU counts only past
   * STARVED_GRACE_MS more) is stopped: its process is SIGKILLed and replaced, and the image is
   * answered UNREADABLE_IMAGE. Default DEFAULT_DECODE_KILL_MS (2 s).
   */
  jobTimeoutMs?: number;
  /**
   * Wall time past `jobTimeoutMs` a decoder kept off the CPU may take before it is stopped all the same;
   * default STARVED_GRACE_MS (6 s). Tests of what a starved decoder reads raise it (a full run's load
   * beside a throttled decoder is not theirs to bound); the test of the stop lowers it.
   */
  starvedGraceMs?: number;
  /** Start each decoder's OCR engine while it loads (the service reads printed amounts: SLIP_EDIT_MODE). */
  warmReader?: boolean;
  /**
   * Budget of one image in a decoder in running time, decode and reading together (default
   * IMAGE_BUDGET_MS, inside the 2 s kill limit). Raised, with a `jobTimeoutMs` above it, where the
   * answer matters more than answering at once: `slipcheck read` (20 s), and tests about what is read
   * rather than about the budget.
   */
  imageBudgetMs?: number;
  /** Decoder script; tests substitute their own. Default: slip-qr-worker.ts beside this file. */
  workerUrl?: URL;
  /**
   * The byte-level image gate (image-gate.ts) runs before a job is queued; default on. Off only for
   * pool tests whose stand-in decoders read commands, not images.
   */
  screen?: boolean;
}

export interface DecodeCallOptions {
  /**
   * By default the image's memory is taken over by the pool and the caller's Buffer is left empty
   * (no second copy of the image stays on the main thread). Set `copy` to keep it usable.
   */
  copy?: boolean;
  /**
   * The caller keeps its Buffer and leaves it unchanged until the answer: the pool reads it where it
   * is (the IPC message is the one copy). For a caller that holds the image anyway (the verify
   * pipeline keeps it for the checker): no second copy of it to make and collect.
   */
  keep?: boolean;
  /** Whose image this is (the shop id): the queue is shared fairly between keys. Default: one shared key. */
  key?: string;
}

/**
 * A decode that also reads the printed amount (issue 20). `decoded` arrives as soon as the QR is
 * decoded; `printed` later, from the same job on the same decoder (so the reading stays inside the
 * image's hard time limit and the shop's fair share). `printed` never rejects: null when nothing was
 * read (decode failed, budget spent, the decoder was stopped).
 */
export interface DecodeAndRead {
  decoded: DecodeResult;
  printed: Promise<PrintedRead | null>;
}

export interface SlipDecoderPool {
  decode(image: Buffer, options?: DecodeCallOptions): Promise<DecodeResult>;
  decodeAndRead(image: Buffer, options?: DecodeCallOptions): Promise<DecodeAndRead>;
  close(): Promise<void>;
  /** Resolves once every decoder has loaded (the first decode then pays no start-up cost). */
  ready(): Promise<void>;
  /** Snapshot for health/metrics: busy decoders and queued jobs. */
  stats(): { threads: number; busy: number; queued: number };
  /** Running and waiting jobs of one key (tests and diagnostics). */
  keyStats(key: string): { running: number; queued: number; usedMs: number };
  /** Readiness: `down` while decoders cannot be started (three start-up deaths in a row, retried every 30 s). */
  health(): { status: 'up' | 'down'; decoders: number; pids: number[] };
}

interface Job {
  id: number;
  key: string;
  image: Uint8Array;
  resolve: (r: DecodeResult) => void;
  reject: (e: Error) => void;
  /** Set for decodeAndRead: the job holds its decoder until the printed amount is read. */
  printed?: (p: PrintedRead | null) => void;
  /** The decode was answered; the job still runs while the amount is read. */
  decoded?: boolean;
  /** `image` is a JPEG the gate found without its end marker, with it added (the decoder checks it is complete). */
  endAdded?: boolean;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** When the running job's decode time started (sent to a ready decoder, or the decoder said ready). */
  startedAt?: number;
  /** The decoder's CPU time (ms) when its last job ended or it said ready: the running job's CPU counts from here. */
  cpuBase?: number;
  /** Set when the pool SIGKILLed this decoder for overrunning its job's time; 'starved' when it had not run it. */
  overran?: 'ran' | 'starved';
  exited?: boolean;
}

/** The metric's reason for a decoder that ended during a job. */
const stopReason = (slot: Slot) => (slot.overran === 'ran' ? 'overrun' : (slot.overran ?? 'crash'));

/**
 * A .ts decoder (development and tests) is started with tsx's ESM loader, resolved from this package
 * (not the cwd); the compiled build forks dist/modules/slip-qr/slip-qr-worker.js under plain node.
 */
function childArgs(url: URL): string[] {
  if (!url.pathname.endsWith('.ts')) return [];
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  return ['--import', loader];
}

/** Takes the image's memory without copying when the Buffer owns all of it; else copies (pooled small Buffers, slices). */
function ownBytes(image: Buffer, copy: boolean, keep: boolean): Uint8Array {
  if (keep) return new Uint8Array(image.buffer, image.byteOffset, image.byteLength);
  const whole = image.byteOffset === 0 && image.byteLength === image.buffer.byteLength;
  if (!copy && whole && image.buffer instanceof ArrayBuffer) {
    // structuredClone with transfer moves the memory and detaches the caller's ArrayBuffer.
    return new Uint8Array(structuredClone(image.buffer, { transfer: [image.buffer] }));
  }
  return new Uint8Array(image);
}

const closedError = () => new AppError('DECODER_CLOSED', 503, 'slip decoder is shut down');
const unavailableError = () => new AppError('DECODER_UNAVAILABLE', 503, 'slip decoder could not start');
const unreadable = (message: string) => ({ ok: false as const, errorCode: 'UNREADABLE_IMAGE' as const, message });

export function createSlipDecoderPool(options: SlipDecoderPoolOptions = {}): SlipDecoderPool {
  const threads = Math.max(1, Math.floor(options.threads ?? usableCores()));
  const maxQueue = Math.max(0, Math.floor(options.maxQueue ?? threads * 16));
  const jobTimeoutMs = options.jobTimeoutMs ?? DEFAULT_DECODE_KILL_MS;
  const starvedGraceMs = options.starvedGraceMs ?? STARVED_GRACE_MS;
  const maxRunningPerKey = Math.max(1, Math.floor(options.maxRunningPerKey ?? (threads <= 2 ? threads : threads - 1)));
  const screen = options.screen ?? true;
  // The compiled build (dist/*.js) forks the compiled decoder directly: no TypeScript loader in production.
  const workerUrl = options.workerUrl ?? new URL(`./slip-qr-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  const workerPath = fileURLToPath(workerUrl);
  const execArgv = childArgs(workerUrl);
  const queue = new FairQueue<Job>();
  // Jobs each key has on a decoder right now; a key leaves the map at zero.
  const running = new Map<string, number>();
  const runningOf = (key: string) => running.get(key) ?? 0;
  // When each key last had a job started (a sequence number): ties between keys go to the longest idle.
  // Forgotten once a key has nothing running or waiting, so the map stays as small as the load.
  const lastStart = new Map<string, number>();
  let startSeq = 0;
  // Decode time each key used, decaying (USAGE_DECAY_MS): its fairness charge. A shop whose images
  // ran to the kill limit waits behind shops that used less, among keys with as many jobs running.
  const usage = new Map<string, { ms: number; at: number }>();
  const usageOf = (key: string, now = performance.now()) => {
    const u = usage.get(key);
    return u ? u.ms * Math.exp(-(now - u.at) / USAGE_DECAY_MS) : 0;
  };
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;
  // Decoders that died before saying ready, in a row: a broken install must not respawn forever.
  let startFailures = 0;
  let broken = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  function settleReady(): void {
    if (readyWaiters.length === 0) return;
    const waiters = readyWaiters;
    if (broken || closed) {
      readyWaiters = [];
      for (const w of waiters) w.reject(broken ? unavailableError() : closedError());
    } else if (slots.length >= threads && slots.every((s) => s.ready)) {
      readyWaiters = [];
      for (const w of waiters) w.resolve();
    }
    holdStarting();
  }

  /**
   * A caller awaiting ready() holds the starting decoders, as a caller awaiting a job holds its
   * decoder: otherwise a CLI that awaits ready() before its first job has nothing keeping its event
   * loop alive and Node exits 13 mid-await (`slipcheck decode` and `read` printed nothing).
   */
  function holdStarting(): void {
    for (const s of slots) if (!s.job && !s.exited) hold(s, readyWaiters.length > 0 && !s.ready);
  }

  /** Idle decoders never hold the process open (an unclosed pool in a CLI or test). */
  function hold(slot: Slot, on: boolean): void {
    const channel = slot.child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (on) {
      slot.child.ref();
      channel?.ref?.();
    } else {
      slot.child.unref();
      channel?.unref?.();
    }
  }

  function spawn(): void {
    let child: ChildProcess;
    try {
      child = fork(workerPath, [], {
        execArgv,
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: {
          ...process.env,
          SLIPCHECK_DECODER_CHILD: '1',
          ...(options.warmReader ? { SLIPCHECK_DECODER_WARM_READER: '1' } : {}),
          ...(options.imageBudgetMs ? { SLIPCHECK_DECODER_IMAGE_BUDGET_MS: String(options.imageBudgetMs) } : {}),
        },
      });
    } catch {
      // fork itself failed (no memory, process limit): counts as a start-up death.
      startFailed();
      return;
    }
    // Decoders run a step below the service's own process: on a node where they fill every core, the
    // event loop still gets the CPU at once for a replay, GET /quota or an upload (issue 24: GET
    // /quota p99 while 32 verifies decode). Decoding keeps every cycle nobody else wants.
    if (child.pid)
      try {
        setPriority(child.pid, DECODER_NICENESS);
      } catch {
        /* not allowed here (a container without the capability): equal priority, as before */
      }
    const slot: Slot = { child, ready: false };
    slots.push(slot);
    hold(slot, readyWaiters.length > 0);
    child.on('message', (msg: WorkerResponse) => {
      if ('ready' in msg) {
        slot.cpuBase = msg.cpuMs;
        slot.ready = true;
        startFailures = 0;
        if (broken) {
          // A retry after start-up failures worked: back to full strength.
          broken = false;
          while (slots.length < threads) spawn();
        }
        if (slot.job) {
          armTimer(slot); // the decode's own time starts now
          send(slot);
        }
        settleReady();
        return;
      }
      const job = slot.job;
      if (!job || msg.id !== job.id) return;
      if ('result' in msg && job.printed && msg.result.ok) {
        // Decoded: answer now, keep the decoder (and the shop's slot) until the amount is read.
        job.decoded = true;
        job.resolve(msg.result);
        return;
      }
      finish(slot);
      slot.cpuBase = msg.cpuMs;
      if ('printed' in msg) job.printed?.(msg.printed);
      else {
        job.printed?.(null);
        // A decoder that threw (it should not: the cascade answers every bad image) gets the same
        // answer as any image the decoder could not process: INVALID, free, never a 500.
        job.resolve('result' in msg ? msg.result : unreadable('image could not be decoded'));
      }
      pump();
    });
    // A spawn error (or a failed kill) may come without 'exit'; exited() runs once either way.
    child.on('error', () => {
      child.kill('SIGKILL'); // never leave a process behind a slot the pool forgets
      exited(slot);
    });
    child.on('exit', () => exited(slot));
  }

  function startFailed(): void {
    if (++startFailures < 3) {
      spawn();
      return;
    }
    broken = true;
    for (const queued of queue.drain()) {
      queued.printed?.(null);
      queued.reject(unavailableError());
    }
    settleReady();
    // Retry now and then, so a passing shortage (memory, process limit) does not end decoding for good.
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      if (!closed && broken && slots.length < threads) spawn();
    }, RESTART_RETRY_MS);
    retryTimer.unref();
  }

  function exited(slot: Slot): void {
    if (slot.exited) return;
    slot.exited = true;
    const job = slot.job;
    const startedAt = slot.startedAt;
    finish(slot);
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    if (closed) {
      job?.printed?.(null);
      job?.reject(closedError());
      settleReady();
      return;
    }
    if (job && !slot.ready) {
      // The decoder died while starting, before it saw the image: not the image's doing. The job
      // goes back to the front of its shop's queue for the replacement (or DECODER_UNAVAILABLE).
      queue.pushFront(job.key, job);
    } else if (job?.decoded) {
      // Stopped while reading the printed amount: the decode was answered already; nothing was read,
      // which concludes nothing.
      metrics.decoderStopped.inc({ reason: stopReason(slot) });
      job.printed?.(null);
    } else if (job) {
      metrics.decoderStopped.inc({ reason: stopReason(slot) });
      job.printed?.(null);
      const ms = startedAt === undefined ? 0 : Math.round(performance.now() - startedAt);
      job.resolve({
        ...unreadable(
          slot.overran === 'ran'
            ? `image took longer than ${jobTimeoutMs} ms to decode (stopped after ${ms} ms)`
            : slot.overran === 'starved'
              ? `the server is overloaded: the image waited ${ms} ms for its decode; send it again`
              : 'image could not be decoded',
        ),
        stopped: true,
      });
    }
    if (!slot.ready) startFailed();
    else spawn();
    pump();
  }

  function finish(slot: Slot): void {
    // Every way a job ends (answer, error, kill, decoder death) comes through here: the key's slot is
    // free again and the key is charged the decode time it used.
    if (slot.job) {
      const key = slot.job.key;
      const n = runningOf(key) - 1;
      if (n > 0) running.set(key, n);
      else running.delete(key);
      if (slot.startedAt !== undefined) {
        const now = performance.now();
        usage.set(key, { ms: usageOf(key, now) + (now - slot.startedAt), at: now });
      }
      if (n <= 0 && queue.sizeOf(key) === 0) {
        lastStart.delete(key);
        // Forget charges that have decayed to nothing: the map stays as small as the recent load.
        for (const [k] of usage) if (runningOf(k) === 0 && queue.sizeOf(k) === 0 && usageOf(k) < 1) usage.delete(k);
      }
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.startedAt = undefined;
    if (!slot.exited) hold(slot, false);
  }

  /**
   * The kill limit measures decoding, not start-up: a job handed to a decoder that is still loading
   * (a replacement, a loaded machine) gets a start-up allowance on top, and the timer restarts at
   * `jobTimeoutMs` once the decoder says ready.
   */
  function armTimer(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.ready) slot.startedAt = performance.now();
    slot.timer = setTimeout(() => (slot.ready ? checkOverrun(slot) : kill(slot, 'ran')), slot.ready ? jobTimeoutMs : jobTimeoutMs + 30_000);
  }

  /**
   * At the limit in wall time: a decoder that has run its limit is stopped; one that spent part of
   * that time waiting for a CPU gets the rest of its running time, read again when it could have run
   * it, up to starvedGraceMs past the limit. The decoder's CPU is read from /proc only here, not per
   * job: where it cannot be read (not Linux, a stand-in decoder that reports none), the limit is wall time.
   */
  function checkOverrun(slot: Slot): void {
    const now = childCpuMs(slot.child.pid ?? 0);
    const ran = now === null || slot.cpuBase === undefined ? null : now - slot.cpuBase;
    const waited = performance.now() - (slot.startedAt ?? 0);
    const graceLeft = jobTimeoutMs + starvedGraceMs - waited;
    if (ran === null || ran >= jobTimeoutMs) return kill(slot, 'ran');
    if (graceLeft <= 0) return kill(slot, 'starved');
    slot.timer = setTimeout(() => checkOverrun(slot), Math.min(graceLeft, Math.max(RECHECK_MIN_MS, jobTimeoutMs - ran)));
  }

  function kill(slot: Slot, why: 'ran' | 'starved'): void {
    // SIGKILL cannot be caught or delayed by libvips; 'exit' answers the job and replaces the decoder.
    slot.overran = why;
    slot.child.kill('SIGKILL');
  }

  function start(slot: Slot, job: Job): void {
    slot.job = job;
    running.set(job.key, runningOf(job.key) + 1);
    lastStart.set(job.key, ++startSeq);
    // Keep the process alive while a caller waits on this job.
    hold(slot, true);
    armTimer(slot);
    // A starting decoder gets the image once it says ready: a message sent before its listener
    // exists would be lost.
    if (slot.ready) send(slot);
  }

  function send(slot: Slot): void {
    const job = slot.job!;
    // The job keeps its image until it ends: a decoder that dies while starting hands it back.
    const msg: WorkerRequest = {
      id: job.id,
      image: job.image,
      read: job.printed !== undefined,
      ...(job.endAdded ? { endAdded: true } : {}),
    };
    slot.child.send(msg, (err) => {
      // The decoder went away before the image reached it: 'exit' answers the job.
      if (err) slot.child.kill('SIGKILL');
    });
  }

  function pump(): void {
    for (const slot of slots) {
      if (queue.size === 0) return;
      if (slot.job || slot.exited) continue;
      const now = performance.now();
      const next = queue.next(
        runningOf,
        maxRunningPerKey,
        (k) => lastStart.get(k) ?? 0,
        (k) => usageOf(k, now),
      );
      if (!next) return;
      start(slot, next.job);
    }
  }

  const busyError = () => {
    metrics.decoderRejected.inc();
    return new AppError('DECODER_BUSY', 503, 'slip decoder is busy, retry shortly');
  };

  for (let i = 0; i < threads; i++) spawn();

  function submit(image: Buffer, callOptions: DecodeCallOptions, printed?: (p: PrintedRead | null) => void): Promise<DecodeResult> {
    if (closed) return Promise.reject(closedError());
    if (broken) return Promise.reject(unavailableError());
    if (!Buffer.isBuffer(image)) return Promise.reject(new TypeError('image must be a Buffer'));
    let endAdded = false;
    if (screen) {
      // Refused from its bytes in milliseconds, without a decoder or a place in the queue.
      const gate = screenImage(image);
      if (!gate.ok) {
        metrics.imageGateRefusals.inc({ format: gate.format });
        return Promise.resolve(unreadable(gate.message));
      }
      // A copy with the end marker added: the caller's bytes (hashed, kept for a retry) stay as sent.
      if (gate.eoiMissing) [image, endAdded] = [withEndOfImage(image), true];
    }
    const key = callOptions.key ?? '';
    const free = runningOf(key) < maxRunningPerKey ? slots.find((s) => !s.job && !s.exited) : undefined;
    if (!free && queue.size >= maxQueue) {
      // Full: a key below its share takes the place of the biggest holder's newest job.
      const evicted = queue.evictFor(key, maxQueue);
      if (!evicted) return Promise.reject(busyError());
      evicted.printed?.(null);
      evicted.reject(busyError());
    }
    return new Promise<DecodeResult>((resolve, reject) => {
      const job: Job = {
        id: nextId++,
        key,
        image: endAdded ? ownBytes(image, false, false) : ownBytes(image, callOptions.copy ?? false, callOptions.keep ?? false),
        ...(endAdded ? { endAdded } : {}),
        resolve,
        reject,
        printed,
      };
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
      clearTimeout(retryTimer);
      settleReady();
      for (const job of queue.drain()) {
        job.printed?.(null);
        job.reject(closedError());
      }
      await Promise.all(
        slots.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.exited || s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
              // Held until it exits: close() awaited on idle (unref'd) decoders alone let Node exit 13.
              s.child.ref();
              s.child.once('exit', () => resolve());
              s.child.kill('SIGKILL');
            }),
        ),
      );
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
      return { running: runningOf(key), queued: queue.sizeOf(key), usedMs: Math.round(usageOf(key)) };
    },
    health() {
      return {
        status: broken || closed ? 'down' : 'up',
        decoders: slots.filter((s) => s.ready && !s.exited).length,
        pids: slots.filter((s) => !s.exited && s.child.pid !== undefined).map((s) => s.child.pid!),
      };
    },
  };
}

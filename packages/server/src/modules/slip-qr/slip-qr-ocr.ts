import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

/**
 * The OCR engine behind the printed-amount reader: tesseract.js (LSTM only) with the English
 * "best_int" model from @tesseract.js-data/eng, read from node_modules. `langPath` is a local
 * folder and `cacheMethod` 'none', so the engine never downloads anything and never writes a cache
 * file (tesseract.js otherwise falls back to a CDN, unreachable here and wrong in production).
 * The folder ships gzipped traineddata (the package's own `gzip: true`).
 */
const require = createRequire(import.meta.url);
export const ENG_DATA_DIR = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

/** Characters an amount line can hold: digits, separators and the currency marks the eng model knows. */
export const AMOUNT_WHITELIST = '0123456789.,THB';

/** Characters of the printed time ("14:30"). */
export const TIME_WHITELIST = '0123456789:';

/** One recognised character: its confidence (0-100), glyph height and left/right edge in pixels. */
export interface OcrSymbol {
  text: string;
  confidence: number;
  height: number;
  x0?: number;
  x1?: number;
}

export interface OcrWord {
  symbols: OcrSymbol[];
}

export interface OcrEngine {
  /** One text line (PSM 7) of a greyscale PNG, word by word, symbol by symbol (default: AMOUNT_WHITELIST). */
  readLine(png: Buffer, whitelist?: string): Promise<OcrWord[]>;
  close(): Promise<void>;
}

let shared: Promise<Worker> | undefined;
/** The whitelist the shared engine is set to (the printed-fields reader switches it per line). */
let currentWhitelist = AMOUNT_WHITELIST;

async function startWorker(): Promise<Worker> {
  const worker = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: ENG_DATA_DIR,
    cachePath: ENG_DATA_DIR,
    cacheMethod: 'none',
    gzip: true,
  });
  await worker.setParameters({
    tessedit_pageseg_mode: PSM.SINGLE_LINE,
    tessedit_char_whitelist: AMOUNT_WHITELIST,
    // Crops are scaled to a known glyph height; without a DPI tesseract warns and guesses.
    user_defined_dpi: '300',
  });
  return worker;
}

/** One engine per thread (the decoder worker's), started on first use and kept. */
export function ocrEngine(): OcrEngine {
  return {
    async readLine(png, whitelist = AMOUNT_WHITELIST) {
      if (!shared) {
        shared = startWorker();
        currentWhitelist = AMOUNT_WHITELIST;
      }
      const worker = await shared;
      if (whitelist !== currentWhitelist) {
        await worker.setParameters({ tessedit_char_whitelist: whitelist });
        currentWhitelist = whitelist;
      }
      const r = await worker.recognize(png, {}, { text: true, blocks: true });
      const words: OcrWord[] = [];
      for (const b of r.data.blocks ?? [])
        for (const p of b.paragraphs)
          for (const l of p.lines)
            for (const w of l.words)
              // Symbol confidences, not the word's: with a whitelist tesseract.js reports word confidence 0.
              words.push({
                symbols: w.symbols.map((s) => ({
                  text: s.text,
                  confidence: s.confidence,
                  height: s.bbox.y1 - s.bbox.y0,
                  x0: s.bbox.x0,
                  x1: s.bbox.x1,
                })),
              });
      return words;
    },
    async close() {
      const w = shared;
      shared = undefined;
      if (w) await (await w).terminate();
    },
  };
}

/**
 * Starts the engine ahead of the first slip (the decoder worker calls it while loading). The first
 * recognition pays for setting up the LSTM (~0.5 s): one tiny line is read here so no slip does.
 */
export async function warmOcr(): Promise<void> {
  if (!shared) {
    shared = startWorker();
    currentWhitelist = AMOUNT_WHITELIST;
  }
  const worker = await shared;
  // A bar on white (an empty page makes tesseract print its statistics to stdout).
  const bar = await sharp({ create: { width: 30, height: 16, channels: 3, background: '#000000' } })
    .png()
    .toBuffer();
  const png = await sharp({ create: { width: 80, height: 40, channels: 3, background: '#ffffff' } })
    .composite([{ input: bar, left: 25, top: 12 }])
    .png()
    .toBuffer();
  await worker.recognize(png);
}

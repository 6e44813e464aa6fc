import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes, type ZXingReaderModule } from 'zxing-wasm/reader';

export type Binarizer = 'LocalAverage' | 'GlobalHistogram' | 'FixedThreshold';

export interface ScanOptions {
  tryHarder?: boolean;
  tryRotate?: boolean;
  tryInvert?: boolean;
  tryDownscale?: boolean;
  tryDenoise?: boolean;
  binarizer?: Binarizer;
  /** Also report symbols that were located but not decoded (for the region-upscale pass). */
  returnErrors?: boolean;
  maxNumberOfSymbols?: number;
}

export interface ScanHit {
  text: string;
  valid: boolean;
  /** Bounding box of the symbol in the scanned image, in pixels. */
  box: { left: number; top: number; right: number; bottom: number };
  /** Direction of the symbol's top edge in degrees (0 upright, 90 turned clockwise, +-180 upside down). */
  angle: number;
}

/** An 8-bit, one-channel image: what every pass of the cascade scans. */
export interface LumaImage {
  data: Uint8Array;
  width: number;
  height: number;
}

const BINARIZER_INDEX: Record<Binarizer, number> = { LocalAverage: 0, GlobalHistogram: 1, FixedThreshold: 2 };

let modulePromise: Promise<ZXingReaderModule> | undefined;

/**
 * Loads the reader .wasm from node_modules (never from the CDN the library defaults to), once
 * per thread. Safe to call many times.
 */
export function loadZXing(): Promise<ZXingReaderModule> {
  if (!modulePromise) {
    const require = createRequire(import.meta.url);
    const bytes = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
    const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    modulePromise = prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
    modulePromise.catch(() => {
      modulePromise = undefined;
    });
  }
  return modulePromise;
}

interface RawPosition {
  topLeft: { x: number; y: number };
  topRight: { x: number; y: number };
  bottomLeft: { x: number; y: number };
  bottomRight: { x: number; y: number };
}
interface RawResult {
  text: string;
  isValid: boolean;
  position: RawPosition;
}
interface RawVector {
  size(): number;
  get(i: number): RawResult;
  delete?: () => void;
}
interface WasmHeap {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  readBarcodesFromPixmap?: (ptr: number, width: number, height: number, options: Record<string, unknown>) => RawVector;
}

function zxingOptions(o: ScanOptions): Record<string, unknown> {
  // Mirrors zxing-wasm's own readerOptionsToZXingReaderOptions (3.1.x) for the options we use.
  return {
    formats: 'QRCode',
    tryHarder: o.tryHarder ?? false,
    tryRotate: o.tryRotate ?? false,
    tryInvert: o.tryInvert ?? false,
    tryDownscale: o.tryDownscale ?? false,
    tryDenoise: o.tryDenoise ?? false,
    binarizer: BINARIZER_INDEX[o.binarizer ?? 'LocalAverage'],
    isPure: false,
    downscaleFactor: 3,
    downscaleThreshold: 500,
    minLineCount: 2,
    maxNumberOfSymbols: o.maxNumberOfSymbols ?? 4,
    validateOptionalChecksum: false,
    returnErrors: o.returnErrors ?? false,
    eanAddOnSymbol: 0,
    textMode: 2, // HRI
    characterSet: 0,
    tryCode39ExtendedMode: true,
  };
}

function toHit(r: RawResult): ScanHit {
  const p = r.position;
  const xs = [p.topLeft.x, p.topRight.x, p.bottomLeft.x, p.bottomRight.x];
  const ys = [p.topLeft.y, p.topRight.y, p.bottomLeft.y, p.bottomRight.y];
  return {
    text: r.text,
    valid: r.isValid,
    box: { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) },
    angle: (Math.atan2(p.topRight.y - p.topLeft.y, p.topRight.x - p.topLeft.x) * 180) / Math.PI,
  };
}

/**
 * Scans a greyscale image. The wasm module's pixmap entry point takes luminance directly, which
 * spares the RGBA round trip the public ImageData path makes (a few ms per pass on a slip).
 */
export async function scanLuma(img: LumaImage, options: ScanOptions = {}): Promise<ScanHit[]> {
  const mod = (await loadZXing()) as unknown as WasmHeap;
  const read = mod.readBarcodesFromPixmap;
  if (typeof read !== 'function') return scanViaPublicApi(img, options);
  const ptr = mod._malloc(img.data.byteLength);
  if (!ptr) throw new Error('zxing: out of wasm memory');
  let vec: RawVector;
  try {
    mod.HEAPU8.set(img.data, ptr);
    vec = read.call(mod, ptr, img.width, img.height, zxingOptions(options));
  } finally {
    mod._free(ptr);
  }
  const hits: ScanHit[] = [];
  for (let i = 0; i < vec.size(); i++) hits.push(toHit(vec.get(i)));
  vec.delete?.();
  return hits;
}

/** Fallback through the documented API (RGBA ImageData), should the binding ever change. */
async function scanViaPublicApi(img: LumaImage, o: ScanOptions): Promise<ScanHit[]> {
  const rgba = new Uint8ClampedArray(img.width * img.height * 4);
  for (let i = 0, j = 0; i < img.data.length; i++, j += 4) {
    const v = img.data[i];
    rgba[j] = v;
    rgba[j + 1] = v;
    rgba[j + 2] = v;
    rgba[j + 3] = 255;
  }
  const results = await readBarcodes({ data: rgba, width: img.width, height: img.height, colorSpace: 'srgb' } as ImageData, {
    formats: ['QRCode'],
    tryHarder: o.tryHarder ?? false,
    tryRotate: o.tryRotate ?? false,
    tryInvert: o.tryInvert ?? false,
    tryDownscale: o.tryDownscale ?? false,
    tryDenoise: o.tryDenoise ?? false,
    binarizer: o.binarizer ?? 'LocalAverage',
    returnErrors: o.returnErrors ?? false,
    maxNumberOfSymbols: o.maxNumberOfSymbols ?? 4,
  });
  return results.map((r) => toHit(r as unknown as RawResult));
}

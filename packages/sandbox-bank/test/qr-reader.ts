import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

// The wasm comes from node_modules: zxing-wasm's default would fetch it from a CDN.
const require = createRequire(import.meta.url);
const wasmPath = require.resolve('zxing-wasm/reader').replace(/dist\/.*$/, 'dist/reader/zxing_reader.wasm');
let ready: Promise<unknown> | undefined;

export async function readQrTexts(image: Buffer): Promise<string[]> {
  ready ??= prepareZXingModule({
    overrides: { wasmBinary: readFileSync(wasmPath).buffer as ArrayBuffer },
    fireImmediately: true,
  });
  await ready;
  const results = await readBarcodes(new Uint8Array(image), { tryHarder: true, formats: ['QRCode'], maxNumberOfSymbols: 4 });
  return results.filter((r) => r.isValid).map((r) => r.text);
}

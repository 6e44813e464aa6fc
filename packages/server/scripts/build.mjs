// `npm run build -w packages/server`: dist/ for the production start (`npm run start:prod`), file for
// file from src/, with source maps. esbuild transpiles: it is the compiler tsx already runs these
// sources through in development and in every test, so the build runs exactly the JavaScript that was
// tested, in about a second (tsc took ~20 s of `npm test`). Types are checked by `npm run typecheck`
// (CI runs it before the tests), not here.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const entryPoints = fs
  .readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
  .map((f) => path.join(src, f));
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints,
  outdir: path.join(root, 'dist'),
  outbase: src,
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});

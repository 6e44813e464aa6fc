// `npm run build -w packages/sdk`: the published package, dist/esm (import) and dist/cjs (require),
// each with its own .d.ts. Plain tsc run twice: no bundler dependency, and the output is the
// sources file for file, easy to read in a stack trace. dist/cjs gets a package.json saying
// "commonjs" so Node (and TypeScript) read those .js/.d.ts files as CommonJS inside this ESM package.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
// The two compilations are independent: side by side they take the time of one on two cores.
await Promise.all(
  ['tsconfig.build.json', 'tsconfig.cjs.json'].map((project) =>
    promisify(execFile)(process.execPath, [tsc, '-p', path.join(root, project)]).catch((e) => {
      process.stderr.write(`${e.stdout ?? ''}${e.stderr ?? ''}`);
      throw new Error(`tsc -p ${project} failed`);
    }),
  ),
);
fs.writeFileSync(path.join(root, 'dist/cjs/package.json'), JSON.stringify({ type: 'commonjs' }) + '\n');

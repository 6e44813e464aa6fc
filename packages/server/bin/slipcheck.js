#!/usr/bin/env node
// The operator CLI entry. Production installs (NODE_ENV=production, or no tsx because dev
// dependencies were omitted) run the compiled build in dist/ when `npm run build` made one:
// no TypeScript loader, no ~1.7 s tsx start. Development runs the sources through tsx, so a
// stale dist/ never shadows the code being edited.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const CONDITION = '--conditions=slipcheck-dist';
const compiled = new URL('../dist/cli/cli.js', import.meta.url);
const hasTsx = () => {
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
};
const useDist = fs.existsSync(compiled) && (process.env.NODE_ENV === 'production' || !hasTsx());

if (useDist && !process.execArgv.includes(CONDITION)) {
  // Workspace packages (the sdk) resolve to their compiled files only under the `slipcheck-dist`
  // export condition, which is a node flag: run ourselves once more with it (a module resolve
  // hook would do it in-process but costs ~1 s of cross-thread resolving on every CLI call).
  const child = spawn(process.execPath, [...process.execArgv, CONDITION, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  // Our parent gone (npx -> sh -> here, sh killed): pass on the SIGTERM that never reached us. The
  // child watches its own parent (this process), which is still alive. Changed, not "is 1": containers.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) child.kill('SIGTERM');
  }, 500).unref();
  // A child ended by a signal exits as a shell reports it, 128 + the signal's number (SIGINT 130,
  // SIGKILL 137, SIGTERM 143): a SIGKILLed worker (OOM killer, kill -9) must not read as a SIGTERM.
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + os.constants.signals[signal] : 1);
  });
} else {
  let runCli;
  if (useDist) {
    ({ runCli } = await import(compiled.href));
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    ({ runCli } = await import('../src/cli/cli.ts'));
  }
  process.exitCode = await runCli(process.argv.slice(2));
}

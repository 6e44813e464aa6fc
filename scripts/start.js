// `npm start`: the embedded default on one machine: build the dashboard if needed, start the sandbox
// bank (development checker) and the sandbox LINE platform (with its chat simulator) beside the
// service, then the service on SQLite in ./data. Production starts neither sandbox.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { startPlan } from './start-plan.js';

// SLIPCHECK_EXIT_WITH_PARENT: the service stops when this script is gone (the sandboxes always do),
// so a killed `npm start` never leaves a process holding its port.
const env = { ...process.env, SLIPCHECK_EXIT_WITH_PARENT: '1' };
const plan = startPlan(env);
const children = [];

if (fs.existsSync('packages/web/index.html') && !fs.existsSync('packages/web/dist/index.html')) {
  const r = spawnSync('npm', ['run', 'build', '-w', 'packages/web'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (plan.sandboxBank) {
  children.push(spawn(process.execPath, ['--import', 'tsx', 'packages/sandbox-bank/src/main.ts'], { stdio: 'inherit', env }));
}
if (plan.sandboxLine) {
  children.push(spawn(process.execPath, ['--import', 'tsx', 'packages/sandbox-line/src/main.ts'], { stdio: 'inherit', env }));
}
const server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], { stdio: 'inherit', env });
children.push(server);

let exitCode = null;
const running = () => children.filter((c) => c.exitCode === null && c.signalCode === null);
// Exit once every child has: leaving before them would orphan them.
const exitWhenDone = () => {
  if (exitCode !== null && running().length === 0) process.exit(exitCode);
};
const stop = (sig, code = 0) => {
  if (exitCode === null) exitCode = code;
  for (const c of running()) c.kill(sig);
  exitWhenDone();
};
for (const c of children) c.on('exit', exitWhenDone);
// SIGHUP (the terminal closed) becomes SIGTERM for the children: the service reads SIGHUP as "reload TLS files".
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGHUP', () => stop('SIGTERM'));
server.on('exit', (code) => stop('SIGTERM', code ?? 0));
// `npm start` is npm -> sh -> this script: a SIGTERM to npm may stop at sh. When our parent is gone
// (it changed: a container's parent 1 is normal), stop as on SIGTERM.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 500).unref();

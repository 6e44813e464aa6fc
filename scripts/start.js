// `npm start`: the embedded default on one machine: build the dashboard if needed, start the sandbox
// bank (development checker) and the sandbox LINE platform (with its chat simulator) beside the
// service, then the service on SQLite in ./data. Production starts neither sandbox.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';

const env = { ...process.env };
const production = env.NODE_ENV === 'production';
const children = [];

if (fs.existsSync('packages/web/index.html') && !fs.existsSync('packages/web/dist/index.html')) {
  const r = spawnSync('npm', ['run', 'build', '-w', 'packages/web'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const checker = env.CHECKER ?? 'sandbox';
if (!production && checker.split(',').includes('sandbox') && env.SANDBOX_AUTOSTART !== 'false') {
  children.push(spawn(process.execPath, ['--import', 'tsx', 'packages/sandbox-bank/src/main.ts'], { stdio: 'inherit', env }));
}
if (!production && env.SANDBOX_LINE_AUTOSTART !== 'false') {
  children.push(spawn(process.execPath, ['--import', 'tsx', 'packages/sandbox-line/src/main.ts'], { stdio: 'inherit', env }));
}
const server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], { stdio: 'inherit', env });
children.push(server);

const stop = (sig) => {
  for (const c of children) c.kill(sig);
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
server.on('exit', (code) => {
  stop('SIGTERM');
  process.exit(code ?? 0);
});

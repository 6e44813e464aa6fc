// `npm test`: build the dashboard (the end-to-end test serves the built files), then run every package's tests.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', shell: false });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (fs.existsSync('packages/web/index.html')) run('npm', ['run', 'build', '-w', 'packages/web']);
run('npx', ['vitest', 'run', ...process.argv.slice(2)]);

// `npm test`: build the dashboard (the end-to-end test serves the built files), then run every
// package's tests, and close with one plain summary line ("N passed, N failed, N skipped").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', shell: false }).status ?? 1;

if (fs.existsSync('packages/web/index.html')) {
  const built = run('npm', ['run', 'build', '-w', 'packages/web']);
  if (built !== 0) process.exit(built);
}
const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-test-')), 'report.json');
const status = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
]);
try {
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  console.log(`\nslipcheck: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + (r.numTodoTests ?? 0)} skipped`);
} catch {
  // no report (the run crashed before writing it): vitest's own output and the exit code tell why
}
process.exit(status);

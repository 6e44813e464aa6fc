// `npm test`: build the packages (the browser tests serve the dashboard's files, the production test
// starts the compiled service), then run every
// package's tests, and close with one plain summary line ("N passed, N failed, N skipped").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', shell: false }).status ?? 1;

// Build everything once, before any test runs: the production-start test used to run `npm run build`
// itself, and the dashboard build empties packages/web/dist while the browser tests serve it.
const built = run('npm', ['run', 'build']);
if (built !== 0) process.exit(built);
process.env.SLIPCHECK_TEST_REUSE_BUILD = '1';
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

// Writes scripts/test-durations.json (seconds per test file, the order test-sequencer.js starts files
// in) from the JSON report of a full `npm test` run: node scripts/test-durations.js REPORT.json
import fs from 'node:fs';
import path from 'node:path';

const report = process.argv[2];
if (!report) {
  console.error('usage: node scripts/test-durations.js REPORT.json (the path `npm test` prints)');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '..');
const { testResults } = JSON.parse(fs.readFileSync(report, 'utf8'));
const out = Object.fromEntries(
  testResults
    .map((t) => [path.relative(root, t.name), Math.round((t.endTime - t.startTime) / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
fs.writeFileSync(new URL('./test-durations.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`${Object.keys(out).length} files written to scripts/test-durations.json`);

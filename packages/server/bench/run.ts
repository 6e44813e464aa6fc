// `npm run bench`: every benchmark, one after the other, printing markdown for docs/benchmarks.md.
import os from 'node:os';
import { formatBenchTable, runDecodeBench } from './decode-bench.js';
import { formatE2e, runE2eBench } from './e2e-bench.js';

const only = process.argv[2];
console.log(
  `# slipcheck benchmarks\n\nMachine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. Command: \`${process.env.BENCH_COMPILED ? 'npm run bench' : 'npm run bench:src'}\`${process.env.BENCH_COMPILED ? ' (the service under test runs the compiled dist/ under plain node, as start:prod does)' : ' (the service under test runs the TypeScript sources through tsx)'}.\n`,
);
if (!only || only === 'decode') {
  console.log('## Decoding: the cascade against zxing-wasm tryHarder and jsQR on a real-traffic corpus (one thread)\n');
  console.log(formatBenchTable(await runDecodeBench({ log: (l) => process.stderr.write(`${l}\n`) })));
}
if (!only || only === 'e2e') {
  console.log('\n## End to end: POST /api/v1/verify against the sandbox bank (zero latency)\n');
  console.log(formatE2e(await runE2eBench()));
  // The product's default reads every slip's printed amount in the decoder job, so the part above
  // compares verifies with decode-and-read-only jobs. Issue 24 asks for 80 % of decode-only
  // throughput: with the reader off a verify's decoder work is exactly a decode-only job, and that
  // comparison is printed and judged too (it fails on this project's host; docs/benchmarks.md).
  const parts = process.env.E2E_PARTS?.split(',');
  if (!process.env.SLIP_EDIT_MODE && (!parts || parts.includes('uncached'))) {
    console.log('\n## End to end with the reader off (SLIP_EDIT_MODE=off): uncached verify against decode-only\n');
    process.env.SLIP_EDIT_MODE = 'off';
    console.log(formatE2e(await runE2eBench({ parts: ['uncached'] })));
    delete process.env.SLIP_EDIT_MODE;
  }
}
if (!only || only === 'webhooks') {
  const mod = await import('./webhook-bench.js').catch(() => null);
  if (mod?.runWebhookBench) {
    console.log('\n## Webhook delivery\n');
    const r = await mod.runWebhookBench();
    console.log(
      typeof mod.formatWebhookBench === 'function' ? mod.formatWebhookBench(r) : typeof r === 'string' ? r : JSON.stringify(r, null, 2),
    );
  }
}
if (!only || only === 'fairness') {
  const { formatFairness, runFairnessBench } = await import('./fairness-bench.js');
  console.log('\n## Decoder fairness: one shop floods, another checks slips\n');
  console.log(formatFairness(await runFairnessBench()));
}
if (!only || only === 'export') {
  const { formatExportBench, runExportBench } = await import('./export-bench.js');
  console.log('\n## Transactions export: CSV and XLSX streamed from SQLite (memory over the baseline while streaming)\n');
  console.log(formatExportBench(await runExportBench()));
}
if (only === 'edited') {
  // Not in the default run: 2,000+ renders with OCR take a long while on a shared machine.
  const { formatEditedBench, runEditedBench } = await import('./edited-bench.js');
  console.log('\n## Edited slips: reading the printed amount (issue 20)\n');
  console.log(formatEditedBench(await runEditedBench()));
}
if (only === 'real-slips') {
  // Not in the default run: real slips are third-party pictures an operator keeps outside the repo.
  const { formatRealSlips, runRealSlipsBench } = await import('./real-slips.js');
  console.log('\n## Edited slips: real bank-app slips (REAL_SLIPS_DIR)\n');
  console.log(formatRealSlips(await runRealSlipsBench()));
}
process.exit(0);

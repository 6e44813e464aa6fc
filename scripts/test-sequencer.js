// The order `npm test` starts its files in: longest first, so the last files to start are short and
// no worker sits idle while another runs a 40 s browser suite to the end.
//
// Vitest orders by the durations of its previous run, kept in node_modules/.vite: a fresh clone (CI,
// a new machine) has none, and vitest then orders by file size, which put the dashboard's browser
// suite mid-run. test-durations.json holds one full run's durations per file
// (`node scripts/test-durations.js REPORT.json`, from the report `npm test` writes); a local run's own
// cache wins where it has a file. Stale figures only change the order, never a result.
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer } from 'vitest/node';

const DURATIONS = JSON.parse(fs.readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'));

export class LongestFirstSequencer extends BaseSequencer {
  async sort(files) {
    const root = this.ctx.config.root;
    const weight = new Map(
      files.map((f) => {
        const rel = path.relative(root, f.moduleId);
        const cached = this.ctx.cache.getFileTestResults(`${f.project.name}:${rel}`);
        return [f, { failed: cached?.failed ?? false, ms: cached?.duration ?? (DURATIONS[rel] ?? 0) * 1000 }];
      }),
    );
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      // One project after another, as vitest's own order: a worker that changes project loads its
      // modules again (with files interleaved, the run spent 46 s importing instead of 14-27 s).
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const wa = weight.get(a);
      const wb = weight.get(b);
      // A file that failed last time first, as vitest does: its answer matters most.
      if (wa.failed !== wb.failed) return wa.failed ? -1 : 1;
      return wb.ms - wa.ms;
    });
  }
}

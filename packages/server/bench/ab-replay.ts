// `npm run bench:ab`: cached replays on two compiled builds side by side, to tell whether a change to
// the replay path helps. Usage, from the repository root:
//   npm run build && cp -r packages/server/dist packages/server/dist-before   # on the commit to compare with
//   (make the change)
//   A_ROOT=packages/server/dist-before B_ROOT=packages/server/dist npm run bench:ab   # builds, then measures
// A_ROOT / B_ROOT: the builds' dist folders, inside packages/server (their imports resolve from its
// node_modules; dist-*/ is ignored by git). Optional: AB_ROUNDS (20), AB_N replays a round (1,500),
// AB_ENV_A / AB_ENV_B (JSON: extra environment of one side, e.g. '{"REPLAY_MEMORY_MS":"0"}').
//
// Why a tool of its own (issue 24, docs/benchmarks.md): on the bench hosts two runs of one build differ
// by 20-40 %, and so can two processes of one build started a minute apart, so figures from separate
// runs compare nothing. Here both services run at once against one sandbox bank and take turns in
// short rounds (A then B, B then A, ...); each round's CPU is read from the scheduler's own count
// (/proc/<pid>/task/*/schedstat, nanoseconds, every thread) rather than the 10 ms ticks of
// /proc/<pid>/stat. What to read is the median of the per-round ratios B/A and in how many rounds B
// was lower: run it twice with the sides swapped, and once with the same build on both sides (an
// A/A run should give about 1.0 and about half the rounds either way).
import fs from 'node:fs';
import path from 'node:path';
import { phoneSlips } from './bench-slips.js';
import { startSandboxProcess, startServer } from './e2e-bench.js';
import { createRawHttpClient } from './raw-http-client.js';

const roots = [process.env.A_ROOT, process.env.B_ROOT];
if (!roots[0] || !roots[1]) {
  console.error('A_ROOT and B_ROOT name the two builds (dist folders) to compare; see the head of bench/ab-replay.ts');
  process.exit(2);
}
process.env.BENCH_COMPILED = '1'; // both sides are compiled builds, started as start:prod runs the service
const rounds = Number(process.env.AB_ROUNDS ?? 20);
const perRound = Number(process.env.AB_N ?? 1500);

/** CPU ms the process has run, all threads, from the scheduler (Linux). */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const t of fs.readdirSync(`/proc/${pid}/task`))
    ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const bank = await startSandboxProcess();
const sides: Array<{ name: string; pid: number; kill: () => void; send: () => Promise<void>; cpu: number[]; rate: number[] }> = [];
try {
  const [image] = await phoneSlips(bank.url, 1);
  for (const [i, root] of roots.entries()) {
    const env = JSON.parse((i === 0 ? process.env.AB_ENV_A : process.env.AB_ENV_B) ?? '{}') as Record<string, string>;
    const server = await startServer(bank.url, { ...env, BENCH_ROOT: path.resolve(root!) });
    const client = createRawHttpClient(server.port);
    const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/octet-stream' };
    sides.push({
      name: `${i === 0 ? 'A' : 'B'} ${root}`,
      pid: server.child.pid!,
      kill: () => {
        client.close();
        server.child.kill('SIGTERM');
      },
      // The same request each time: the first verifies the image, every later one is a replay.
      send: async () => {
        const r = await client.request('POST', '/api/v1/verify?amount=100.00&clientRef=order-0', headers, image);
        if (r.status !== 200) throw new Error(`${r.status} ${r.body.toString('utf8').slice(0, 200)}`);
      },
      cpu: [],
      rate: [],
    });
  }
  const burst = async (side: (typeof sides)[number], n: number) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (sent++ < n) await side.send();
      }),
    );
  };
  for (const side of sides) {
    await side.send();
    await burst(side, 3000); // warm-up: the JIT, the key's authentication copy
  }
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 ? [...sides].reverse() : sides) {
      const c0 = cpuMs(side.pid);
      const t0 = performance.now();
      await burst(side, perRound);
      side.rate.push(perRound / ((performance.now() - t0) / 1000));
      side.cpu.push((cpuMs(side.pid) - c0) / perRound);
    }
  }
  for (const s of sides)
    console.log(`${s.name}: median ${median(s.cpu).toFixed(3)} ms CPU per replay, ${median(s.rate).toFixed(0)} replays a second`);
  const cpuRatio = sides[1].cpu.map((b, i) => b / sides[0].cpu[i]);
  const rateRatio = sides[1].rate.map((b, i) => b / sides[0].rate[i]);
  console.log(
    `B/A per round (${rounds} rounds of ${perRound} at concurrency 32): CPU ${median(cpuRatio).toFixed(3)}, lower in ${cpuRatio.filter((x) => x < 1).length}; rate ${median(rateRatio).toFixed(3)}, higher in ${rateRatio.filter((x) => x > 1).length}`,
  );
} finally {
  for (const s of sides) s.kill();
  bank.child.kill();
  fs.rmSync(bank.dataDir, { recursive: true, force: true });
}
process.exit(0);

// `npm run bench:ab`: cached replays on two compiled builds side by side, to tell whether a change to
// the replay path helps. Usage, from the repository root:
//   npm run build && cp -r packages/server/dist packages/server/dist-before   # on the commit to compare with
//   (make the change)
//   A_ROOT=packages/server/dist-before B_ROOT=packages/server/dist npm run bench:ab   # builds, then measures
// A_ROOT / B_ROOT: the builds' dist folders, inside packages/server (their imports resolve from its
// node_modules; dist-*/ is ignored by git). Optional: AB_PAIRS pairs of fresh processes (4), AB_ROUNDS
// rounds a pair (8), AB_N replays a round (1,500), AB_ENV_A / AB_ENV_B (JSON: extra environment of one
// side, e.g. '{"REPLAY_MEMORY_MS":"0"}').
//
// Why a tool of its own (issue 24, docs/benchmarks.md): on the bench hosts two runs of one build differ
// by 20-40 %, and so can two processes of one build started a minute apart (by up to half, for as long
// as they live), so figures from separate runs compare nothing. Here both services run at once against
// one sandbox bank and take turns in short rounds (A then B, B then A, ...), on several pairs of fresh
// processes; each round's CPU is read from the scheduler's own count (/proc/<pid>/task/*/schedstat,
// nanoseconds, every thread) rather than the 10 ms ticks of /proc/<pid>/stat. What to read is the
// median of the pairs' ratios B/A and in how many pairs B was lower; an A/A run (the same build on both
// sides) shows how far apart two processes of one build land.
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
const rounds = Number(process.env.AB_ROUNDS ?? 8);
const perRound = Number(process.env.AB_N ?? 1500);

/** CPU ms the process has run, all threads, from the scheduler (Linux). */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const t of fs.readdirSync(`/proc/${pid}/task`))
    ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const pairs = Math.max(1, Number(process.env.AB_PAIRS ?? 4));

type Side = { pid: number; kill: () => void; send: () => Promise<void>; cpu: number[]; rate: number[] };
const bank = await startSandboxProcess();
const results = roots.map(() => ({ cpu: [] as number[], rate: [] as number[] }));
const ratios = { cpu: [] as number[], rate: [] as number[] };
const pairMedians: string[] = [];
try {
  const [image] = await phoneSlips(bank.url, 1);
  const start = async (i: number): Promise<Side> => {
    const env = JSON.parse((i === 0 ? process.env.AB_ENV_A : process.env.AB_ENV_B) ?? '{}') as Record<string, string>;
    const server = await startServer(bank.url, { ...env, BENCH_ROOT: path.resolve(roots[i]!) });
    const client = createRawHttpClient(server.port);
    const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/octet-stream' };
    return {
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
    };
  };
  const burst = async (side: Side, n: number) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (sent++ < n) await side.send();
      }),
    );
  };
  // Fresh processes for every pair, started in turn A first and B first: two processes of one build
  // differ by up to half on these hosts for as long as they live, so one pair measures its two
  // processes, not the builds.
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 ? [1, 0] : [0, 1];
    const sides: Side[] = [];
    try {
      for (const i of order) sides[i] = await start(i);
      for (const i of order) {
        await sides[i]!.send();
        await burst(sides[i]!, 3000); // warm-up: the JIT, the key's authentication copy
      }
      for (let r = 0; r < rounds; r++) {
        for (const i of r % 2 ? [...order].reverse() : order) {
          const side = sides[i]!;
          const c0 = cpuMs(side.pid);
          const t0 = performance.now();
          await burst(side, perRound);
          side.rate.push(perRound / ((performance.now() - t0) / 1000));
          side.cpu.push((cpuMs(side.pid) - c0) / perRound);
        }
      }
    } finally {
      for (const s of sides) s?.kill();
    }
    const [a, b] = sides as [Side, Side];
    for (const [i, s] of [a, b].entries()) {
      results[i]!.cpu.push(...s.cpu);
      results[i]!.rate.push(...s.rate);
    }
    const cpu = median(b.cpu) / median(a.cpu);
    const rate = median(b.rate) / median(a.rate);
    ratios.cpu.push(cpu);
    ratios.rate.push(rate);
    pairMedians.push(
      `pair ${p + 1} (${order[0] ? 'B' : 'A'} started first): A ${median(a.cpu).toFixed(3)} ms ${median(a.rate).toFixed(0)}/s, B ${median(b.cpu).toFixed(3)} ms ${median(b.rate).toFixed(0)}/s; B/A CPU ${cpu.toFixed(3)}, rate ${rate.toFixed(3)}`,
    );
    console.log(pairMedians.at(-1));
  }
  for (const [i, r] of results.entries())
    console.log(
      `${i ? 'B' : 'A'} ${roots[i]}: median ${median(r.cpu).toFixed(3)} ms CPU per replay, ${median(r.rate).toFixed(0)} replays a second`,
    );
  console.log(
    `B/A per pair of processes (${pairs} pairs, ${rounds} rounds of ${perRound} at concurrency 32 each): CPU ${median(ratios.cpu).toFixed(3)}, lower in ${ratios.cpu.filter((x) => x < 1).length}; rate ${median(ratios.rate).toFixed(3)}, higher in ${ratios.rate.filter((x) => x > 1).length}`,
  );
} finally {
  bank.child.kill();
  fs.rmSync(bank.dataDir, { recursive: true, force: true });
}
process.exit(0);

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** The cgroup files that hold a CPU quota, as read (undefined where absent). */
export interface CgroupCpu {
  /** cgroup v2 `cpu.max`: "max 100000" (no quota) or "150000 100000" (1.5 CPUs). */
  cpuMax?: string;
  /** cgroup v1 `cpu.cfs_quota_us` (-1: no quota) and `cpu.cfs_period_us`. */
  cfsQuotaUs?: string;
  cfsPeriodUs?: string;
}

/** The CPUs a quota allows, rounded up (1.5 -> 2); null when there is no quota or it cannot be read. */
export function quotaCores(c: CgroupCpu): number | null {
  let quota = NaN;
  let period = NaN;
  if (c.cpuMax !== undefined) {
    const [q, p] = c.cpuMax.trim().split(/\s+/);
    quota = q === 'max' ? NaN : Number(q);
    period = Number(p);
  } else if (c.cfsQuotaUs !== undefined && c.cfsPeriodUs !== undefined) {
    quota = Number(c.cfsQuotaUs.trim());
    period = Number(c.cfsPeriodUs.trim());
  }
  if (!(quota > 0) || !(period > 0)) return null;
  return Math.max(1, Math.ceil(quota / period));
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * The CPUs this process may use: the cores it may run on (availableParallelism), or fewer when its
 * container has a CPU quota. Node counts only the cores: in a container held to 1 CPU on a 16-core
 * host it said 16, and the service started 16 decoder processes to share one CPU, each slowed to a
 * sixteenth (the decoder's limits count running time, so slips were still read, only late). Read from
 * the cgroup as the container sees it (its own cgroup namespace: /sys/fs/cgroup is its own), v2 first.
 */
export function usableCores(files: CgroupCpu = readCgroupCpu()): number {
  const cores = availableParallelism();
  const quota = quotaCores(files);
  return quota === null ? cores : Math.min(cores, quota);
}

function readCgroupCpu(): CgroupCpu {
  const cpuMax = read('/sys/fs/cgroup/cpu.max');
  if (cpuMax !== undefined) return { cpuMax };
  for (const dir of ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct']) {
    const cfsQuotaUs = read(`${dir}/cpu.cfs_quota_us`);
    if (cfsQuotaUs !== undefined) return { cfsQuotaUs, cfsPeriodUs: read(`${dir}/cpu.cfs_period_us`) };
  }
  return {};
}

import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { quotaCores, usableCores } from './usable-cores.js';

describe('the CPUs the decoder pool sizes itself to', () => {
  it('reads a cgroup v2 quota, rounding up, and "max" as none', () => {
    expect(quotaCores({ cpuMax: '100000 100000\n' })).toBe(1);
    expect(quotaCores({ cpuMax: '150000 100000' })).toBe(2);
    expect(quotaCores({ cpuMax: '50000 100000' })).toBe(1);
    expect(quotaCores({ cpuMax: '400000 100000' })).toBe(4);
    expect(quotaCores({ cpuMax: 'max 100000' })).toBeNull();
  });
  it('reads a cgroup v1 quota, and -1 as none', () => {
    expect(quotaCores({ cfsQuotaUs: '200000\n', cfsPeriodUs: '100000\n' })).toBe(2);
    expect(quotaCores({ cfsQuotaUs: '-1\n', cfsPeriodUs: '100000\n' })).toBeNull();
  });
  it('treats unreadable or malformed files as no quota', () => {
    expect(quotaCores({})).toBeNull();
    expect(quotaCores({ cpuMax: '' })).toBeNull();
    expect(quotaCores({ cpuMax: 'garbage' })).toBeNull();
    expect(quotaCores({ cfsQuotaUs: '100000' })).toBeNull();
    expect(quotaCores({ cpuMax: '100000 0' })).toBeNull();
  });
  it('is the cores, or fewer under a quota, never more', () => {
    const cores = availableParallelism();
    expect(usableCores({})).toBe(cores);
    expect(usableCores({ cpuMax: '100000 100000' })).toBe(1);
    expect(usableCores({ cpuMax: `${(cores + 8) * 100000} 100000` })).toBe(cores);
    // This machine's own cgroup: whatever it says, a whole number between 1 and the cores.
    const own = usableCores();
    expect(Number.isInteger(own) && own >= 1 && own <= cores).toBe(true);
  });
});

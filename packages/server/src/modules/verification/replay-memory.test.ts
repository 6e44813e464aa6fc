import { describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import { createReplayMemory, REPLAY_MEMORY_MAX_MS } from './replay-memory.js';

// The node's memory of replay answers on its own (the pipeline's use of it, on two nodes and a real
// database, is test/verify/replay-memory.test.ts).
const record = (id: string) => ({ id, status: 'SUCCESS', cached: true }) as unknown as TransactionRecord;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replay memory', () => {
  let now = Date.parse('2026-11-26T03:00:00Z');
  const clock = () => now;
  const key = (shopId: string, requestKey: string, until = now + 3_600_000) => ({ shopId, scope: 'live', requestKey, until });

  it('answers a kept record for its shop, scope and request key only, and never longer than the limit', async () => {
    const m = createReplayMemory({ ms: 40, now: clock });
    m.keep(m.begin(), key('shop_a', 'k1'), record('txn_1'));
    expect(m.get('shop_a', 'live', 'k1')?.id).toBe('txn_1');
    expect(m.get('shop_a', 'test', 'k1')).toBeUndefined();
    expect(m.get('shop_b', 'live', 'k1')).toBeUndefined();
    expect(m.get('shop_a', 'live', 'k2')).toBeUndefined();
    await sleep(45);
    expect(m.get('shop_a', 'live', 'k1')).toBeUndefined();
  });

  it('never answers after the replay window ends, however recently it was kept', () => {
    const m = createReplayMemory({ now: clock });
    m.keep(m.begin(), key('shop_a', 'k1', now + 10), record('txn_1'));
    expect(m.get('shop_a', 'live', 'k1')?.id).toBe('txn_1');
    now += 10;
    expect(m.get('shop_a', 'live', 'k1')).toBeUndefined();
  });

  it("a shop's change drops its records at once, and a load that was reading meanwhile is not kept", () => {
    const m = createReplayMemory({ now: clock });
    m.keep(m.begin(), key('shop_a', 'k1'), record('txn_1'));
    m.keep(m.begin(), key('shop_b', 'k1'), record('txn_2'));
    const reading = m.begin();
    m.forgetShop('shop_a');
    expect(m.get('shop_a', 'live', 'k1')).toBeUndefined();
    expect(m.get('shop_b', 'live', 'k1')?.id).toBe('txn_2');
    m.keep(reading, key('shop_a', 'k2'), record('txn_3'));
    expect(m.get('shop_a', 'live', 'k2')).toBeUndefined();
    m.keep(m.begin(), key('shop_a', 'k2'), record('txn_3'));
    expect(m.get('shop_a', 'live', 'k2')?.id).toBe('txn_3');
  });

  it('0 keeps nothing; the limit is capped at one second; kept records cannot be changed by a caller', () => {
    const off = createReplayMemory({ ms: 0, now: clock });
    off.keep(off.begin(), key('shop_a', 'k1'), record('txn_1'));
    expect(off.get('shop_a', 'live', 'k1')).toBeUndefined();
    expect(REPLAY_MEMORY_MAX_MS).toBe(1000);
    const m = createReplayMemory({ ms: 60_000, now: clock });
    const load = m.begin();
    m.keep({ ...load, at: load.at - 1001 }, key('shop_a', 'k1'), record('txn_1'));
    expect(m.get('shop_a', 'live', 'k1')).toBeUndefined();
    m.keep(m.begin(), key('shop_a', 'k2'), record('txn_2'));
    expect(() => {
      (m.get('shop_a', 'live', 'k2') as { status: string }).status = 'FRAUD';
    }).toThrow(TypeError);
  });

  it('holds at most 2,000 records, dropping the oldest first', () => {
    const m = createReplayMemory({ now: clock });
    for (let i = 0; i < 2001; i++) m.keep(m.begin(), key('shop_a', `k${i}`), record(`txn_${i}`));
    expect(m.get('shop_a', 'live', 'k0')).toBeUndefined();
    expect(m.get('shop_a', 'live', 'k1')?.id).toBe('txn_1');
    expect(m.get('shop_a', 'live', 'k2000')?.id).toBe('txn_2000');
  });
});

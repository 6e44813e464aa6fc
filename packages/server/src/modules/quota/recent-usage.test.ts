import { describe, expect, it } from 'vitest';
import { createRecentUsage } from './recent-usage.js';

// The node's copy of live counters on its own, on a clock the test moves (the replay answers that
// report it, on two nodes and a real database, are test/verify/replay-memory.test.ts).
describe('recent usage (the counter a replay from memory reports)', () => {
  const setup = (ms = 1000) => {
    const clock = { t: 10_000 };
    return { clock, u: createRecentUsage({ ms, now: () => clock.t }) };
  };

  it('answers a kept counter for its shop and period only, and never once it is as old as the limit', () => {
    const { clock, u } = setup();
    u.keep('shop_a', '2026-11', 7, u.begin());
    expect(u.get('shop_a', '2026-11')).toBe(7);
    expect(u.get('shop_b', '2026-11')).toBeUndefined();
    expect(u.get('shop_a', '2026-12')).toBeUndefined(); // a new month reads its own counter
    clock.t += 999;
    expect(u.get('shop_a', '2026-11')).toBe(7);
    clock.t += 1;
    expect(u.get('shop_a', '2026-11')).toBeUndefined();
  });

  it("drops the copy at this node's write, at once", () => {
    const { u } = setup();
    u.keep('shop_a', '2026-11', 7, u.begin());
    u.keep('shop_b', '2026-11', 3, u.begin());
    u.wrote('shop_a');
    expect(u.get('shop_a', '2026-11')).toBeUndefined();
    expect(u.get('shop_b', '2026-11')).toBe(3);
  });

  it("keeps no load that began before this node's write or within the limit after it (its transaction may not have committed)", () => {
    const { clock, u } = setup();
    const before = u.begin();
    clock.t += 5;
    u.wrote('shop_a');
    clock.t += 5;
    u.keep('shop_a', '2026-11', 7, before); // read while the write was made: may be the old value
    expect(u.get('shop_a', '2026-11')).toBeUndefined();
    clock.t += 900;
    u.keep('shop_a', '2026-11', 7, u.begin()); // begun 905 ms after the write: still refused
    expect(u.get('shop_a', '2026-11')).toBeUndefined();
    clock.t += 95;
    const late = u.begin(); // the limit after the write
    u.keep('shop_a', '2026-11', 8, late);
    expect(u.get('shop_a', '2026-11')).toBe(8);
    // Another shop's write refuses nothing of this one.
    u.wrote('shop_b');
    expect(u.get('shop_a', '2026-11')).toBe(8);
  });

  it('keeps nothing when off (REPLAY_MEMORY_MS=0)', () => {
    const { u } = setup(0);
    u.keep('shop_a', '2026-11', 7, u.begin());
    expect(u.get('shop_a', '2026-11')).toBeUndefined();
  });

  it("loses no write's mark to its size bound: a full map is emptied and refuses every load older than the limit after that", () => {
    const { clock, u } = setup();
    const before = u.begin();
    u.wrote('shop_x');
    for (let i = 0; i < 10_000; i++) u.keep(`shop_${i}`, '2026-11', i, u.begin());
    // shop_x's mark went with the clearing; its load, begun before its write, is still refused.
    u.keep('shop_x', '2026-11', 1, before);
    expect(u.get('shop_x', '2026-11')).toBeUndefined();
    clock.t += 1000;
    u.keep('shop_x', '2026-11', 2, u.begin());
    expect(u.get('shop_x', '2026-11')).toBe(2);
  });
});

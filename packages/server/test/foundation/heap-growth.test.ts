import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyHeapGrowth } from '../../src/lib/heap-growth.js';

// The effect itself (one full collection per ~1,000 verifies instead of one per ~30 on two cores) is a
// figure of `npm run bench`, which prints the service's full collections next to its verify rate.
describe('HEAP_GROWING_PERCENT', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives V8 the percentage at start-up', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    applyHeapGrowth(100);
    expect(set).toHaveBeenCalledWith('--heap-growing-percent=100');
  });

  it('0 leaves the heap limit to V8', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    applyHeapGrowth(0);
    expect(set).not.toHaveBeenCalled();
  });
});

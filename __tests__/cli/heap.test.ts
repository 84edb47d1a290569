import { describe, expect, it } from '@jest/globals';
import { HEAP_GROWING_PERCENT, boundHeapGrowth } from '../../src/cli/heap.js';

describe('the heap growth bound set at start', () => {
  it('is set when node was started without a heap flag', () => {
    expect(HEAP_GROWING_PERCENT).toBe(20);
    expect(boundHeapGrowth([], '')).toBe(true);
    expect(boundHeapGrowth(['--enable-source-maps'], '--no-warnings')).toBe(true);
  });

  it.each([
    [['--max-old-space-size=2048'], ''],
    [['--max_old_space_size', '2048'], ''],
    [['--heap-growing-percent=50'], ''],
    [['--max-heap-size=1024'], ''],
    [[], '--enable-source-maps --max-old-space-size=1024'],
  ])("leaves the user's own choice alone: node %j, NODE_OPTIONS %j", (execArgv, nodeOptions) => {
    expect(boundHeapGrowth(execArgv, nodeOptions)).toBe(false);
  });
});

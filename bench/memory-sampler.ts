/**
 * Preloaded into a process under test (`node --import ./dist/bench/memory-sampler.js ...`): samples
 * process.memoryUsage() every 50 ms and, at exit, writes the peak of each figure (and when it
 * happened) as JSON to the file named by SVC_MEMORY_SAMPLES. Tells whether a process's peak RSS is
 * JavaScript heap, external memory (Buffers, ArrayBuffers) or neither.
 */
import { writeFileSync } from 'node:fs';
import { getHeapCodeStatistics, getHeapSpaceStatistics } from 'node:v8';

const file = process.env.SVC_MEMORY_SAMPLES;
if (file) {
  const started = performance.now();
  type Figure = 'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers';
  const peak: Record<Figure, { bytes: number; atMs: number; rssThen: number }> = {
    rss: { bytes: 0, atMs: 0, rssThen: 0 },
    heapTotal: { bytes: 0, atMs: 0, rssThen: 0 },
    heapUsed: { bytes: 0, atMs: 0, rssThen: 0 },
    external: { bytes: 0, atMs: 0, rssThen: 0 },
    arrayBuffers: { bytes: 0, atMs: 0, rssThen: 0 },
  };
  /** A second apart: ms, RSS, heap used, external, array buffers, and the sizes of new space, old space and large objects. */
  const timeline: number[][] = [];
  /** Peak size of each V8 heap space (new, old, code, large objects ...): which part of the heap grew. */
  const spaces: Record<string, number> = {};
  let code = 0;
  const sample = (): void => {
    const m = process.memoryUsage();
    const at = Math.round(performance.now() - started);
    for (const k of Object.keys(peak) as Figure[]) if (m[k] > peak[k].bytes) peak[k] = { bytes: m[k], atMs: at, rssThen: m.rss };
    const now: Record<string, number> = {};
    for (const s of getHeapSpaceStatistics()) {
      now[s.space_name] = s.space_size;
      spaces[s.space_name] = Math.max(spaces[s.space_name] ?? 0, s.space_size);
    }
    const c = getHeapCodeStatistics();
    code = Math.max(code, c.code_and_metadata_size + c.bytecode_and_metadata_size);
    if (timeline.length === 0 || at - (timeline[timeline.length - 1]?.[0] ?? 0) >= 1000)
      timeline.push([at, m.rss, m.heapUsed, m.external, m.arrayBuffers, now.new_space ?? 0, now.old_space ?? 0, (now.large_object_space ?? 0) + (now.new_large_object_space ?? 0)]);
  };
  const timer = setInterval(sample, 50);
  timer.unref();
  process.on('exit', () => {
    sample();
    writeFileSync(file, JSON.stringify({ peak, spaces, code, endMs: Math.round(performance.now() - started), timeline }));
  });
}

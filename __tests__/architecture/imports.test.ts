import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { folderCycles, readImportGraph, ROOMS, specifiersOf, violation, type ImportEdge } from './importGraph.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

describe('the import graph of src/', () => {
  const edges = readImportGraph(SRC);

  it('is read from every file (a reader that finds nothing would pass anything)', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(edges).toContainEqual({ from: 'sync/mirror/engine.ts', to: 'model/ports.ts' });
  });

  it('has no edge against the house rules', () => {
    expect(edges.map(violation).filter((v): v is string => v !== undefined)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it.each(Object.keys(ROOMS))('names every room of %s/ (a new room states its rules)', (folder) => {
    const rooms = fs
      .readdirSync(path.join(SRC, folder), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(rooms.sort()).toEqual(
      Object.keys(ROOMS[folder] ?? {})
        .filter((r) => r !== '')
        .sort(),
    );
  });

  it('holds the webhook rooms apart: no edge between the receiver and the worker', () => {
    const between = edges.filter((e) => /^webhook\/(receiver|worker)\//.test(e.from) && /^webhook\/(receiver|worker)\//.test(e.to) && e.from.split('/')[1] !== e.to.split('/')[1]);
    expect(between).toEqual([]);
    expect(edges.some((e) => e.from.startsWith('webhook/receiver/') && e.to.startsWith('webhook/queue/'))).toBe(true);
    expect(edges.some((e) => e.from.startsWith('webhook/worker/') && e.to.startsWith('webhook/queue/'))).toBe(true);
  });

  it('builds platform, Salesforce and engine in sync/compose.ts alone', () => {
    const builders = edges.filter((e) => /^(platform|crm)\//.test(e.to) && !/^(platform|crm)\//.test(e.from)).map((e) => e.from);
    expect([...new Set(builders)]).toEqual(['sync/compose.ts']);
  });
});

describe('the rule checker', () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, to });

  it.each([
    ['mapping/map.ts', 'platform/client.ts', 'mapping/ may import only model, mapping'],
    ['mapping/map.ts', 'crm/sink.ts', 'mapping/ may import only model, mapping'],
    ['model/refs.ts', 'mapping/schema.ts', 'model/ may import only model'],
    ['platform/source.ts', 'sync/report/report.ts', 'platform/ may import only model, config, platform'],
    ['platform/source.ts', 'crm/sink.ts', 'platform/ may import only model, config, platform'],
    ['crm/sink.ts', 'platform/client.ts', 'crm/ may import only model, mapping, config, crm'],
    ['crm/sink.ts', 'webhook/queue.ts', 'crm/ may import only model, mapping, config, crm'],
    ['sync/mirror/engine.ts', 'crm/sink.ts', 'sync/ may import only model, mapping, config, sync'],
    ['cli/commands/doctor.ts', 'crm/doctor.ts', 'cli/ may import only model, config, sync, webhook, cli'],
    ['cli/commands/object.ts', 'sync/mirror/engine.ts', 'cli/ builds no engine'],
    ['webhook/worker/processor.ts', 'platform/client.ts', 'webhook/ may import only model, config, sync, webhook'],
    ['webhook/worker/processor.ts', 'sync/mirror/engine.ts', 'webhook/ builds no engine'],
    ['webhook/worker/worker.ts', 'webhook/receiver/routing.ts', 'webhook/worker/ may import of webhook/ only queue/, itself'],
    ['webhook/worker/queueFaults.ts', 'webhook/receiver/intake.ts', 'webhook/worker/ may import of webhook/ only queue/'],
    ['webhook/receiver/server.ts', 'webhook/worker/worker.ts', 'webhook/receiver/ may import of webhook/ only queue/'],
    ['webhook/receiver/server.ts', 'webhook/status/statusRoute.ts', 'webhook/receiver/ may import of webhook/ only queue/'],
    ['webhook/worker/lanes.ts', 'webhook/metrics.ts', 'webhook/worker/ may import of webhook/ only queue/'],
    ['webhook/queue/store.ts', 'webhook/worker/workerTypes.ts', 'webhook/queue/ may import of webhook/ only itself'],
    ['webhook/status/statusRoute.ts', 'webhook/receiver/server.ts', 'webhook/status/ may import of webhook/ only queue/, receiver/signInLimit.ts, worker/'],
    ['webhook/status/statusPage.ts', 'webhook/serve.ts', 'webhook/status/ may import of webhook/'],
    ['webhook/hooks/a.ts', 'webhook/queue/store.ts', 'webhook/hooks/ is not a room of webhook/'],
    ['sync/run/state.ts', 'sync/audit/audit.ts', 'sync/run/ may import of sync/ only report/, itself'],
    ['sync/run/runLog.ts', 'sync/mirror/engine.ts', 'sync/run/ may import of sync/ only report/'],
    ['sync/mirror/engine.ts', 'sync/audit/audit.ts', 'sync/mirror/ may import of sync/ only run/, report/, audit/orphanCandidates.ts'],
    ['lib/util.ts', 'model/refs.ts', 'not a folder of the house'],
  ])('refuses %s -> %s', (from, to, why) => {
    expect(violation(edge(from, to))).toContain(why);
  });

  it.each([
    ['mapping/map.ts', 'model/apiRecords.ts'],
    ['sync/compose.ts', 'crm/sink.ts'],
    ['sync/compose.ts', 'platform/source.ts'],
    ['sync/mirror/engine.ts', 'mapping/link.ts'],
    ['webhook/worker/processor.ts', 'sync/compose.ts'],
    ['cli/runner.ts', 'webhook/serve.ts'],
    ['webhook/receiver/intake.ts', 'webhook/queue/store.ts'],
    ['webhook/worker/queueFaults.ts', 'webhook/queue/publicReason.ts'],
    ['webhook/status/statusRoute.ts', 'webhook/receiver/signInLimit.ts'],
    ['webhook/status/statusPage.ts', 'webhook/worker/worker.ts'],
    ['webhook/serve.ts', 'webhook/receiver/server.ts'],
    ['webhook/lanes.ts', 'webhook/worker/worker.ts'],
    ['webhook/metrics.ts', 'webhook/receiver/server.ts'],
    ['sync/mirror/incremental.ts', 'sync/audit/orphanCandidates.ts'],
    ['sync/audit/auditFix.ts', 'sync/compose.ts'],
    ['sync/audit/audit.ts', 'sync/run/cache.ts'],
    ['sync/run/runLog.ts', 'sync/report/report.ts'],
  ])('allows %s -> %s', (from, to) => {
    expect(violation(edge(from, to))).toBeUndefined();
  });

  it('finds a cycle between folders', () => {
    expect(folderCycles([edge('sync/a.ts', 'webhook/b.ts'), edge('webhook/b.ts', 'sync/c.ts')])).toEqual(['sync -> webhook -> sync']);
  });

  it('reads every form of import and re-export', () => {
    const source = [
      "import a from './a.js';",
      "import type { B } from '../b.js';",
      "import {\n  c,\n  type D,\n} from './c.js';",
      "export { e } from './e.js';",
      "export * from './f.js';",
      "import './g.js';",
      "const h = await import('./h.js');",
      "import got from 'got';",
    ].join('\n');
    expect(specifiersOf(source).sort()).toEqual(['../b.js', './a.js', './c.js', './e.js', './f.js', './g.js', './h.js', 'got']);
  });
});

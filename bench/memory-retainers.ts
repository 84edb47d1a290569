/**
 * What holds memory in a full backfill, from a heap snapshot rather than a guess. Runs the built
 * CLI's `sync --all` (optionally with --json) on a generated site (bench/sites.ts, ~2 % dangling
 * parents) under `node --heapsnapshot-signal`, signals it each time the fake platform has served a
 * given share of the run's list pages (a heap snapshot collects garbage first, so it shows what is
 * live then), and analyses each snapshot: the dominator tree (Lengauer-Tarjan over the snapshot's
 * strong edges) gives each object's retained size; for the largest, the shortest chain of
 * references from the GC roots is printed, edge names included. Run it at two sizes: what grows
 * in proportion to the site is what doubles when the site does.
 *
 *   npx tsc -p tsconfig.json && node --max-old-space-size=4096 dist/bench/memory-retainers.js [--size 20000] [--json] [--heavy] [--run second|audit|fix] [--at 0.5,1] [--top 25] [--show SyncEngine,RunReport]
 *   node --max-old-space-size=4096 dist/bench/memory-retainers.js --snapshot FILE.heapsnapshot   # analyse an existing snapshot
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN } from '../fixtures/cli.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { changeShare, siteFor } from './sites.js';

interface Args {
  size: number;
  json: boolean;
  /** The heavy site shape (bench/sites.ts, fixtures/platform/site.ts `heavy`). */
  heavy: boolean;
  /**
   * The run observed: a first `sync --all` (none), or after an unobserved first sync and 5 % of the
   * records changed, a second `sync --all`, `audit` or `audit --fix` (backfill.js --shape heavy's runs).
   */
  run?: 'second' | 'audit' | 'fix';
  /** Shares of all list pages of the run (ascending): one snapshot when each is reached. */
  at: number[];
  top: number;
  /** Constructors whose every instance is listed with its retained size (the run's own holders). */
  show: string[];
  snapshot?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    size: 20_000,
    json: false,
    heavy: false,
    at: [0.5, 1],
    top: 25,
    show: ['SyncEngine', 'RunReport', 'RecordCache', 'PlatformSource', 'PlatformClient', 'SalesforceSink', 'StateFile'],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--size') args.size = Number(argv[++i]);
    else if (a === '--json') args.json = true;
    else if (a === '--heavy') args.heavy = true;
    else if (a === '--run') {
      const run = argv[++i];
      if (run !== 'second' && run !== 'audit' && run !== 'fix') throw new Error(`--run: second, audit or fix, not ${JSON.stringify(run)}`);
      args.run = run;
    } else if (a === '--at')
      args.at = String(argv[++i])
        .split(',')
        .map(Number)
        .sort((x, y) => x - y);
    else if (a === '--top') args.top = Number(argv[++i]);
    else if (a === '--snapshot') args.snapshot = argv[++i];
    else if (a === '--show') args.show = String(argv[++i]).split(',');
    else throw new Error(`unknown argument ${JSON.stringify(a)} (see the header of bench/memory-retainers.ts)`);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------
// The snapshot format (V8 .heapsnapshot): flat integer arrays described by snapshot.meta.

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Graph {
  count: number;
  type: Uint8Array;
  name: Uint32Array;
  selfSize: Float64Array;
  firstEdge: Uint32Array;
  edgeType: Uint8Array;
  edgeName: Uint32Array;
  edgeTo: Uint32Array;
  nodeTypes: string[];
  edgeTypes: string[];
  strings: string[];
}

function graphOf(raw: RawSnapshot): Graph {
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [nType, nName, nSize, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f)) as [number, number, number, number];
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
  const count = raw.nodes.length / nf;
  const g: Graph = {
    count,
    type: new Uint8Array(count),
    name: new Uint32Array(count),
    selfSize: new Float64Array(count),
    firstEdge: new Uint32Array(count + 1),
    edgeType: new Uint8Array(raw.edges.length / ef),
    edgeName: new Uint32Array(raw.edges.length / ef),
    edgeTo: new Uint32Array(raw.edges.length / ef),
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    strings: raw.strings,
  };
  let edge = 0;
  for (let i = 0; i < count; i++) {
    g.type[i] = raw.nodes[i * nf + nType] as number;
    g.name[i] = raw.nodes[i * nf + nName] as number;
    g.selfSize[i] = raw.nodes[i * nf + nSize] as number;
    g.firstEdge[i] = edge;
    edge += raw.nodes[i * nf + nEdges] as number;
  }
  g.firstEdge[count] = edge;
  for (let e = 0; e < g.edgeTo.length; e++) {
    g.edgeType[e] = raw.edges[e * ef + eType] as number;
    g.edgeName[e] = raw.edges[e * ef + eName] as number;
    g.edgeTo[e] = (raw.edges[e * ef + eTo] as number) / nf;
  }
  return g;
}

/** Weak edges do not retain; the dominator tree and the root paths ignore them, as DevTools does. */
function strong(g: Graph, e: number): boolean {
  return g.edgeTypes[g.edgeType[e] as number] !== 'weak';
}

/** Immediate dominators (Lengauer-Tarjan, iterative) and retained sizes, from node 0 (the snapshot's root). */
function dominators(g: Graph): { idom: Int32Array; retained: Float64Array; reachable: number } {
  const n = g.count;
  const dfnum = new Int32Array(n).fill(-1);
  const vertex = new Int32Array(n);
  const parent = new Int32Array(n).fill(-1);
  // Iterative DFS.
  let order = 0;
  const stack = new Int32Array(g.edgeTo.length + 1);
  const stackParent = new Int32Array(g.edgeTo.length + 1);
  let sp = 0;
  stack[sp] = 0;
  stackParent[sp++] = -1;
  while (sp > 0) {
    sp--;
    const v = stack[sp] as number;
    if (dfnum[v] !== -1) continue;
    dfnum[v] = order;
    vertex[order++] = v;
    parent[v] = stackParent[sp] as number;
    for (let e = (g.firstEdge[v + 1] as number) - 1; e >= (g.firstEdge[v] as number); e--) {
      if (!strong(g, e)) continue;
      const w = g.edgeTo[e] as number;
      if (dfnum[w] === -1) {
        stack[sp] = w;
        stackParent[sp++] = v;
      }
    }
  }
  const reachable = order;
  // Predecessors of reachable nodes (CSR).
  const predCount = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (dfnum[v] === -1) continue;
    for (let e = g.firstEdge[v] as number; e < (g.firstEdge[v + 1] as number); e++) if (strong(g, e)) predCount[(g.edgeTo[e] as number) + 1]++;
  }
  for (let i = 0; i < n; i++) predCount[i + 1] = (predCount[i + 1] as number) + (predCount[i] as number);
  const preds = new Int32Array(predCount[n] as number);
  const fill = predCount.slice();
  for (let v = 0; v < n; v++) {
    if (dfnum[v] === -1) continue;
    for (let e = g.firstEdge[v] as number; e < (g.firstEdge[v + 1] as number); e++) {
      if (!strong(g, e)) continue;
      const w = g.edgeTo[e] as number;
      preds[fill[w]++ as number] = v;
    }
  }
  const semi = new Int32Array(n);
  for (let v = 0; v < n; v++) semi[v] = dfnum[v] as number;
  const ancestor = new Int32Array(n).fill(-1);
  const label = new Int32Array(n);
  for (let v = 0; v < n; v++) label[v] = v;
  const idom = new Int32Array(n).fill(-1);
  const bucketHead = new Int32Array(n).fill(-1);
  const bucketNext = new Int32Array(n).fill(-1);
  const path: number[] = [];
  const evalNode = (v: number): number => {
    if (ancestor[v] === -1) return v;
    // Path compression, iteratively.
    path.length = 0;
    let u = v;
    while (ancestor[ancestor[u] as number] !== -1) {
      path.push(u);
      u = ancestor[u] as number;
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const x = path[i] as number;
      const a = ancestor[x] as number;
      if ((semi[label[a] as number] as number) < (semi[label[x] as number] as number)) label[x] = label[a] as number;
      ancestor[x] = ancestor[a] as number;
    }
    return label[v] as number;
  };
  for (let i = reachable - 1; i >= 1; i--) {
    const w = vertex[i] as number;
    for (let k = predCount[w] as number; k < (predCount[w + 1] as number); k++) {
      const u = evalNode(preds[k] as number);
      if ((semi[u] as number) < (semi[w] as number)) semi[w] = semi[u] as number;
    }
    const s = vertex[semi[w] as number] as number;
    bucketNext[w] = bucketHead[s] as number;
    bucketHead[s] = w;
    const p = parent[w] as number;
    ancestor[w] = p;
    for (let v = bucketHead[p] as number; v !== -1; v = bucketNext[v] as number) {
      const u = evalNode(v);
      idom[v] = (semi[u] as number) < (semi[v] as number) ? u : p;
    }
    bucketHead[p] = -1;
  }
  for (let i = 1; i < reachable; i++) {
    const w = vertex[i] as number;
    if (idom[w] !== vertex[semi[w] as number]) idom[w] = idom[idom[w] as number] as number;
  }
  const retained = new Float64Array(n);
  for (let i = reachable - 1; i >= 0; i--) {
    const w = vertex[i] as number;
    retained[w] = (retained[w] as number) + (g.selfSize[w] as number);
    if (i > 0) retained[idom[w] as number] = (retained[idom[w] as number] as number) + (retained[w] as number);
  }
  return { idom, retained, reachable };
}

/** Shortest strong-edge path from the root to every node (BFS): [parent node, edge] per node. */
function rootPaths(g: Graph): { from: Int32Array; via: Int32Array } {
  const from = new Int32Array(g.count).fill(-1);
  const via = new Int32Array(g.count).fill(-1);
  const queue = new Int32Array(g.count);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  from[0] = 0;
  while (head < tail) {
    const v = queue[head++] as number;
    for (let e = g.firstEdge[v] as number; e < (g.firstEdge[v + 1] as number); e++) {
      if (!strong(g, e)) continue;
      const w = g.edgeTo[e] as number;
      if (from[w] !== -1) continue;
      from[w] = v;
      via[w] = e;
      queue[tail++] = w;
    }
  }
  return { from, via };
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function nodeLabel(g: Graph, v: number): string {
  const type = g.nodeTypes[g.type[v] as number] as string;
  const name = (g.strings[g.name[v] as number] ?? '').replace(/\s+/g, ' ').slice(0, 60);
  return type === 'object' || type === 'closure' ? name : `(${type}) ${name}`;
}

function edgeLabel(g: Graph, e: number): string {
  const type = g.edgeTypes[g.edgeType[e] as number];
  const name = g.edgeName[e] as number;
  return type === 'element' || type === 'hidden' ? `[${name}]` : `.${g.strings[name] ?? name}`;
}

export function analyse(file: string, top: number, show: string[]): void {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as RawSnapshot;
  const g = graphOf(raw);
  const { idom, retained, reachable } = dominators(g);
  const { from, via } = rootPaths(g);
  let total = 0;
  for (let v = 0; v < g.count; v++) total += g.selfSize[v] as number;
  console.log(`snapshot ${path.basename(file)}: ${g.count} nodes (${reachable} reachable), ${g.edgeTo.length} edges, ${mib(total)} in all, ${mib(retained[0] as number)} reachable`);

  // Self size per constructor / type.
  const groups = new Map<string, { count: number; size: number }>();
  for (let v = 0; v < g.count; v++) {
    const type = g.nodeTypes[g.type[v] as number] as string;
    const key = type === 'object' || type === 'closure' ? (g.strings[g.name[v] as number] ?? '?') : `(${type})`;
    const e = groups.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += g.selfSize[v] as number;
    groups.set(key, e);
  }
  console.log('\nlargest groups by self size (objects by constructor; strings, arrays and code by kind)');
  for (const [key, e] of [...groups].sort((a, b) => b[1].size - a[1].size).slice(0, 15)) console.log(`  ${mib(e.size).padStart(10)}  ${String(e.count).padStart(9)}  ${key}`);

  // The run's own holders, whatever their size: each instance, its retained size, and what it holds most.
  console.log("\nthe run's holders (retained size; its largest direct references)");
  for (let v = 1; v < g.count; v++) {
    if (g.nodeTypes[g.type[v] as number] !== 'object' || !show.includes(g.strings[g.name[v] as number] ?? '')) continue;
    const parts: Array<[string, number]> = [];
    for (let e = g.firstEdge[v] as number; e < (g.firstEdge[v + 1] as number); e++) {
      if (!strong(g, e) || g.edgeTypes[g.edgeType[e] as number] !== 'property') continue;
      const w = g.edgeTo[e] as number;
      if (idom[w] === v) parts.push([`${edgeLabel(g, e)} ${nodeLabel(g, w)}`, retained[w] as number]);
    }
    parts.sort((a, b) => b[1] - a[1]);
    console.log(
      `  ${mib(retained[v] as number).padStart(10)}  ${nodeLabel(g, v)}: ${parts
        .slice(0, 6)
        .map(([n, r]) => `${n} ${mib(r)}`)
        .join(', ')}`,
    );
  }

  // The largest retainers: objects (not the synthetic roots) by retained size, skipping one that
  // merely passes most of its retained size on to a single child already listed below it.
  const candidates: number[] = [];
  for (let v = 1; v < g.count; v++) {
    const type = g.nodeTypes[g.type[v] as number];
    if (type === 'synthetic' || type === 'hidden' || from[v] === -1) continue;
    if ((retained[v] as number) >= (retained[0] as number) * 0.01) candidates.push(v);
  }
  candidates.sort((a, b) => (retained[b] as number) - (retained[a] as number));
  console.log(`\nlargest retainers (retained size = what the GC would free without it), with the shortest reference chain from the GC roots`);
  for (const v of candidates.slice(0, top)) {
    const chain: string[] = [];
    for (let u = v; u !== 0 && chain.length < 14; u = from[u] as number) chain.push(`${edgeLabel(g, via[u] as number)} -> ${nodeLabel(g, u)}`);
    const dom = idom[v] as number;
    console.log(
      `\n  ${mib(retained[v] as number).padStart(10)}  ${nodeLabel(g, v)} (self ${(g.selfSize[v] as number).toFixed(0)} B, ${g.firstEdge[v + 1]! - g.firstEdge[v]!} edges; dominated by ${nodeLabel(g, dom)} ${mib(retained[dom] as number)})`,
    );
    console.log(`      ${chain.reverse().join('\n      ')}`);
  }
}

/** An unobserved first `sync --all` into the org, then 5 % of the records changed: the command to observe. */
async function prepare(stack: Stack, run: 'second' | 'audit' | 'fix'): Promise<string[]> {
  // A directory of its own, as backfill.js gives each run: the observed run finds no state file.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-first-'));
  const child = spawn(process.execPath, [BIN, 'sync', '--all'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...stack.env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`the first sync --all exited ${code}`);
  changeShare(stack, 0.05, 1);
  // --max-fix 100%: a fix that writes (5 % of a large object passes the default guard).
  return run === 'second' ? ['sync', '--all'] : run === 'audit' ? ['audit'] : ['audit', '--fix', '--max-fix', '100%'];
}

async function capture(args: Args): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-heap-'));
  const options = siteFor(args.size, 0.02, args.heavy);
  const stack = await startStack({ site: options });
  try {
    // Every collection is scanned once in 100-record pages (users too, as owners' details).
    const pages = Object.values(stack.platform.site).reduce((n, list) => n + Math.ceil(list.length / 100), 0);
    const command = args.run === undefined ? ['sync', '--all'] : await prepare(stack, args.run);
    stack.platform.resetCounts();
    const child = spawn(process.execPath, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`, BIN, ...(args.json ? ['--json'] : []), ...command], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...stack.env },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const points = [...args.at];
    const taken: string[] = [];
    const timer = setInterval(() => {
      const at = points[0];
      if (at !== undefined && stack.platform.requests.listTotal >= Math.min(pages, Math.ceil(pages * at))) {
        points.shift();
        taken.push(`${Math.round(at * 100)} %`);
        child.kill('SIGUSR2');
      }
    }, 10);
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    clearInterval(timer);
    // Written in order, named with a sequence number: sort by it.
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.heapsnapshot'))
      .sort((a, b) => Number(/\.(\d+)\.heapsnapshot$/.exec(a)?.[1] ?? 0) - Number(/\.(\d+)\.heapsnapshot$/.exec(b)?.[1] ?? 0));
    if (files.length === 0) throw new Error(`no snapshot written (exit ${code})`);
    const kept = files.map((f, i) => {
      const keep = path.join(os.tmpdir(), `svc-sync-${args.size}${args.json ? '-json' : ''}-${(taken[i] ?? String(i)).replace(' %', 'pct')}-${Date.now()}.heapsnapshot`);
      renameSync(path.join(dir, f), keep);
      return keep;
    });
    const records = Object.values(stack.platform.site).reduce((n, l) => n + l.length, 0);
    console.log(`${command.join(' ')}${args.json ? ' --json' : ''} of ${records} records (exit ${code}); snapshots when ${taken.join(', ')} of the ${pages} list pages were served:`);
    for (const f of kept) console.log(`  ${f} (${mib(statSync(f).size)})`);
    return kept;
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = parseArgs(process.argv.slice(2));
const files = args.snapshot !== undefined ? [args.snapshot] : await capture(args);
for (const file of files) {
  console.log('');
  analyse(file, args.top, args.show);
}

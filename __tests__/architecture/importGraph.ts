/**
 * The import graph of src/ and the house rules it must obey (docs/development.md "Layout"). Read from the
 * source text, so the rules hold for type-only imports too: a type import is a dependency of the
 * design even when it vanishes from the built JavaScript.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ImportEdge {
  /** Importing file, relative to src/ (e.g. sync/engine.ts). */
  from: string;
  /** Imported file, relative to src/. */
  to: string;
}

/** Every `import ... from`, `import '...'`, `export ... from` and `import('...')` specifier of a file. */
export function specifiersOf(source: string): string[] {
  const out: string[] = [];
  const patterns = [/\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1] as string);
  return out;
}

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** The edges between files of src/ (packages such as got or node:fs are not edges of the house). */
export function readImportGraph(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of tsFiles(srcDir)) {
    for (const spec of specifiersOf(fs.readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
      edges.push({ from: path.relative(srcDir, file).split(path.sep).join('/'), to: path.relative(srcDir, target).split(path.sep).join('/') });
    }
  }
  return edges;
}

export type Folder = 'model' | 'config' | 'mapping' | 'platform' | 'crm' | 'sync' | 'webhook' | 'cli';

/** What each folder may import besides itself: data flows CLI -> plan -> fetch -> map -> link -> write -> report. */
export const MAY_IMPORT: Readonly<Record<Folder, readonly Folder[]>> = {
  model: [],
  config: ['model'],
  mapping: ['model'],
  platform: ['model', 'config'],
  crm: ['model', 'mapping', 'config'],
  sync: ['model', 'mapping', 'config'],
  webhook: ['model', 'config', 'sync'],
  cli: ['model', 'config', 'sync', 'webhook'],
};

/** The composition root: the one file that builds the platform client, the Salesforce sink and the engine. */
export const COMPOSE = 'sync/compose.ts';
/** Folders only the composition root may reach. */
const BUILT_BY_COMPOSE: readonly Folder[] = ['platform', 'crm'];
/** The doors: they call sync/compose and never build an engine themselves. */
const DOORS: readonly Folder[] = ['cli', 'webhook'];

const folderOf = (file: string): string => file.split('/')[0] as string;

/**
 * The rooms inside a folder and what each may import of its folder's other rooms ('' is the
 * folder's own top level; a path such as 'audit/orphanCandidates.ts' admits that one file alone).
 * webhook/: the queue is the one thing the receiver and the worker share; the worker never imports
 * the receiver, nor the receiver the worker; status (the page served beside the receiver) reads
 * the worker's snapshot, the receiver's sign-in limit and the queue; serve.ts, lanes.ts and
 * metrics.ts join them and no room imports them back.
 * sync/: mirror/ (engine, desired state, writer, incremental runs) stands on run/ (state, run
 * lock, run log, profile file, cache: bookkeeping that needs only report/'s shape) and report/,
 * and reaches into audit/ only for the orphan candidates an incremental scan records; input/
 * (replay input, webhook messages) and report/ import no other room; gifts/ knows nothing of the
 * engine; audit/ stands on compose.ts and the mirror; compose.ts at the top joins them.
 */
export const ROOMS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  webhook: {
    queue: [],
    receiver: ['queue'],
    worker: ['queue'],
    status: ['queue', 'receiver/signInLimit.ts', 'worker'],
    '': ['queue', 'receiver', 'worker', 'status'],
  },
  sync: {
    report: [],
    input: [],
    run: ['report'],
    mirror: ['run', 'report', 'audit/orphanCandidates.ts'],
    audit: ['', 'run', 'mirror', 'report'],
    // The gift projection's writer: it gets a GiftSink, and knows nothing of the engine.
    gifts: ['report'],
    // keys qualify: a walk over the org's keys and updates by Id; it reports as a run does.
    keys: ['', 'run', 'report'],
    '': ['run', 'mirror', 'gifts', 'report'],
  },
};

/** The room of a file inside its folder ('' for the folder's top level), e.g. webhook/worker/worker.ts -> worker. */
export function roomOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? (parts[1] as string) : '';
}

/** Why an edge between two rooms of one folder breaks the rules, or undefined. */
function roomViolation(edge: ImportEdge, folder: string): string | undefined {
  const rooms = ROOMS[folder];
  if (rooms === undefined) return undefined;
  const from = roomOf(edge.from);
  const to = roomOf(edge.to);
  const fromName = from === '' ? `${folder}/ (top level)` : `${folder}/${from}/`;
  if (!(from in rooms)) return `${edge.from}: ${folder}/${from}/ is not a room of ${folder}/`;
  if (!(to in rooms)) return `${edge.from} -> ${edge.to}: ${folder}/${to}/ is not a room of ${folder}/`;
  if (from === to) return undefined;
  const inFolder = edge.to.slice(folder.length + 1);
  const allowed = rooms[from] as readonly string[];
  if (allowed.includes(to) || allowed.includes(inFolder)) return undefined;
  const names = allowed.map((r) => (r === '' ? 'its top level' : r.endsWith('.ts') ? r : `${r}/`));
  return `${edge.from} -> ${edge.to}: ${fromName} may import of ${folder}/ only ${[...names, 'itself'].join(', ')}`;
}

/** Why an edge breaks the rules, or undefined when it is allowed. */
export function violation(edge: ImportEdge): string | undefined {
  const from = folderOf(edge.from);
  const to = folderOf(edge.to);
  if (!(from in MAY_IMPORT)) return `${edge.from}: src/${from}/ is not a folder of the house`;
  if (!(to in MAY_IMPORT)) return `${edge.from} -> ${edge.to}: src/${to}/ is not a folder of the house`;
  if (from === to) return roomViolation(edge, from);
  if (edge.from === COMPOSE && BUILT_BY_COMPOSE.includes(to as Folder)) return undefined;
  if (DOORS.includes(from as Folder) && edge.to === 'sync/mirror/engine.ts') return `${edge.from} -> ${edge.to}: ${from}/ builds no engine, it calls ${COMPOSE}`;
  if (!MAY_IMPORT[from as Folder].includes(to as Folder)) return `${edge.from} -> ${edge.to}: ${from}/ may import only ${[...MAY_IMPORT[from as Folder], from].join(', ')}`;
  return undefined;
}

/** Import cycles between folders (a -> b -> a) would make the one-way flow a lie even when each edge looks fine. */
export function folderCycles(edges: ImportEdge[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a !== b) next.set(a, (next.get(a) ?? new Set()).add(b));
  }
  const cycles: string[] = [];
  const walk = (start: string, at: string, trail: string[]): void => {
    for (const b of next.get(at) ?? []) {
      if (b === start) cycles.push([...trail, b].join(' -> '));
      else if (!trail.includes(b) && b > start) walk(start, b, [...trail, b]);
    }
  };
  for (const a of next.keys()) walk(a, a, [a]);
  return cycles;
}

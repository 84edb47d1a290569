#!/usr/bin/env node
// Thin shim: the CLI is the bundled build (npm run build writes dist/cli.js).
// Checked before anything is loaded: on an older Node, the bundle or a package could fail to load
// with a stack trace; this says what is needed in one line.
const FLOOR = [22, 19];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < FLOOR[0] || (major === FLOOR[0] && minor < FLOOR[1])) {
  process.stderr.write(`svc-sync needs Node.js ${FLOOR.join('.')}+ (this is ${process.versions.node}): get it at https://nodejs.org\n`);
  process.exit(2);
}

// Node's own modules as CommonJS objects, not ES imports: an ES import of node:fs makes Node read
// every export once to build its module facade, and fs.ReadStream's getter loads the streams (a
// tenth of `--help`'s start).
const fs = process.getBuiltinModule('node:fs');
const module = process.getBuiltinModule('node:module');
const os = process.getBuiltinModule('node:os');
const path = process.getBuiltinModule('node:path');
const { debuglog } = process.getBuiltinModule('node:util');

const debug = debuglog('svc-sync');

/** V8's young generation cap for commands that read records, in MiB per semi-space (bench/README, "Memory by Node"). */
const SEMI_SPACE_MB = 4;
const RECORD_COMMANDS = new Set(['sync', 'replay', 'audit', 'serve']);
const HELP_FLAGS = new Set(['--help', '-h', '--version', '-V']);
/**
 * glibc's malloc settings for the restarted process, each unless the user set it; other C
 * libraries ignore them. Arenas: by default up to eight per core for Node's threads, and memory
 * freed into them stays in RSS (300,000 records on Node 24 grew by 170 bytes a record with them,
 * 75 with two; peak 260 -> 250 MiB). The mmap threshold fixed at 128 KiB: glibc otherwise raises
 * it each time a large block is freed, until a page's body or a Bulk upload comes from the heap
 * and leaves it fragmented (the 98k heavy site on Node 24 crept to 208 MiB, 183 with it).
 */
const MALLOC = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
/** Node flags by which the user chose the young generation's size: their choice is kept. */
const YOUNG_CHOSEN = /^--(max|min)[-_]semi[-_]space[-_]size(=|$)|^--semi[-_]space[-_]growth[-_]factor(=|$)/;

/**
 * The young generation (V8's new space) grows with the allocation rate up to a cap that Node 24
 * raised to 128 MiB and Node 26 to 64 MiB (Node 22: 32): a batch tool's short-lived garbage then
 * holds 80-110 MiB of RSS that a smaller nursery frees at no measured CPU cost. V8 reads the cap
 * only when the process starts (v8.setFlagsFromString has no effect on it later), so a command
 * that reads records starts itself again once with --max-semi-space-size, through execve: the
 * same process (pid, stdio, signals), no child to forward anything to. Where execve is missing
 * (Windows), or the user set the young generation's size, it runs as started. 4 MiB, not 8: on
 * Node 24 and 26 new space grows to about four times the flag, and a heavy site's batches were
 * promoted half-made into old space; 20,000 heavy records peaked 14-24 MiB lower on every Node
 * (bench/README, "A fourth look"), and 2 MiB no lower than 4.
 */
function boundYoungGeneration() {
  if (typeof process.execve !== 'function') return;
  const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => YOUNG_CHOSEN.test(a));
  const args = process.argv.slice(2);
  // Help and the version read no records: they never pay a second start.
  const helpOnly = args[0] === 'help' || args.some((a) => HELP_FLAGS.has(a));
  if (chosen || helpOnly || !args.some((a) => RECORD_COMMANDS.has(a))) return;
  try {
    const env = { ...MALLOC, ...process.env };
    process.execve(process.execPath, [process.execPath, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...process.execArgv, ...process.argv.slice(1)], env);
  } catch (err) {
    debug(`young generation left as it is: execve failed (${err.code ?? err})`);
  }
}

boundYoungGeneration();

/**
 * Why `dir` cannot hold code this user runs, if it cannot: not a folder of theirs (a symlink, or
 * another owner), or others may write to it or to a folder above it without the sticky bit (they
 * could swap it). Every folder above must be the user's or root's.
 */
function unsafeFolder(dir, uid) {
  const own = fs.lstatSync(dir);
  if (own.isSymbolicLink() || !own.isDirectory()) return 'not a folder (a symlink?)';
  if (own.uid !== uid) return `owned by uid ${own.uid}, not ${uid}`;
  const mode = (own.mode & 0o777).toString(8);
  if ((own.mode & 0o022) !== 0) return `others may write to it (mode ${mode})`;
  if ((own.mode & 0o077) !== 0) return `others may read it (mode ${mode}); it must be 0700`;
  for (let up = path.dirname(fs.realpathSync(dir)); ; up = path.dirname(up)) {
    const st = fs.lstatSync(up);
    if (st.uid !== uid && st.uid !== 0) return `${up} is owned by uid ${st.uid}`;
    if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return `others may write to ${up} (mode ${(st.mode & 0o777).toString(8)})`;
    if (up === path.dirname(up)) return undefined;
  }
}

/**
 * Node 22+ keeps V8's compiled code for the bundle between runs (checked against the source): a
 * start compiles the CLI once, not every time. That code runs as whoever starts svc-sync, so it
 * is kept in the user's own cache folder (0700, checked), never Node's default in the shared temp
 * folder, where another user can create the folder first and plant an entry. A folder that fails
 * the check is not used (NODE_DEBUG=svc-sync says why). NODE_COMPILE_CACHE, set by the user, is
 * Node's own and already in force before this runs.
 */
function enableCompileCache() {
  const uid = process.getuid?.();
  if (typeof module.enableCompileCache !== 'function' || uid === undefined || process.env.NODE_COMPILE_CACHE) return;
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
  const xdg = process.env.XDG_CACHE_HOME;
  const dir = path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'svc-sync', 'compile-cache');
  let why;
  try {
    // A relative HOME would put it below the working folder.
    if (!path.isAbsolute(dir)) why = 'not an absolute path (HOME?)';
    else fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    why ??= unsafeFolder(dir, uid);
  } catch (err) {
    why = `cannot be made (${err.code ?? err})`;
  }
  if (why === undefined) module.enableCompileCache(dir);
  else debug(`compile cache off: ${dir}: ${why}`);
}

enableCompileCache();

const entry = new URL('../dist/cli.js', import.meta.url);

let cli;
try {
  cli = await import(entry.href);
} catch (err) {
  // A package the CLI imports at start is missing from the install: named, as lazyModule does.
  const pkg = err && err.code === 'ERR_MODULE_NOT_FOUND' ? /^Cannot find package '([^']+)'/.exec(String(err.message))?.[1] : undefined;
  if (pkg !== undefined) {
    // Unwrapped (the CLI that wraps to 80 columns did not load): kept short.
    process.stderr.write(`svc-sync: package ${pkg} is not installed (npm install ${pkg}, or reinstall)\n`);
    process.exit(2);
  }
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli.js')) {
    process.stderr.write('svc-sync: not built yet: run `npm run build` in the package folder first\n');
    process.exit(2);
  }
  throw err;
}

process.exitCode = await cli.main(process.argv);

/**
 * The package as a user gets it. `npm pack` in a copy of the sources without dist/ (its prepack
 * builds), the tarball's file list, then one install of it as docs/deploy/Dockerfile does it:
 * `npm install --global` into a temporary prefix, dev dependencies omitted, as a non-root user
 * (`nobody` when the suite runs as root) with only the npm registry reachable. From that install:
 * `--version`, `doctor` and an exact `sync --all` against the local stack, and the Dockerfile's
 * remaining steps without a container runtime: `serve` as its CMD says from a data folder, and its
 * HEALTHCHECK command against it. Everything the installed copy runs, runs as that user.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { expectFullMirror, totals, type Envelope } from '../e2e/helpers.js';
import { dockerSteps } from '../support/dockerfile.js';

const ROOT = packageRoot();
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// One pack (a full build) and one install (the registry, today a native addon's compile): minutes
// on a busy machine. A last guard, not an expected duration.
const SETUP_MS = 20 * 60_000;

/** What `npm pack` needs from a clone: the sources, not dist/ (prepack builds it) nor .git. */
const CLONE = ['package.json', 'package-lock.json', 'tsconfig.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'bin', 'src', 'fixtures', 'bench', 'scripts', 'docs'];

/** The user that installs and runs the package: `nobody` when this runs as root, else this user. */
interface Runner {
  uid: number;
  gid: number;
  name: string;
}

function runnerUser(): Runner {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? uid, name: os.userInfo().username };
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'));
  if (line === undefined) throw new Error('running as root, and /etc/passwd has no user nobody to install the package as');
  const [, , u, g] = line.split(':');
  return { uid: Number(u), gid: Number(g), name: 'nobody' };
}

// npm's own variables for the script running this suite (npm test) would steer the npm run here.
const NPM_OWN = /^npm_(package_|lifecycle_|config_(local_prefix|global_prefix|prefix|cache|userconfig)$|command$|execpath$|node_execpath$)/;
const baseEnv = (): Record<string, string> => Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !NPM_OWN.test(e[0])));

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function finished(child: ChildProcess): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const run = (cmd: string, args: string[], opts: SpawnOptions): Promise<Ran> => finished(spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts }));

/** Dockerfile instructions in order: [INSTRUCTION, rest]. */
const steps = dockerSteps(fs.readFileSync(path.join(ROOT, 'docs', 'deploy', 'Dockerfile'), 'utf8')).map((s): [string, string] => [s.word, s.rest]);
const only = (word: string): string => {
  const all = steps.filter(([w]) => w === word);
  if (all.length !== 1) throw new Error(`Dockerfile: ${all.length} ${word} instructions, one expected`);
  return all[0]![1];
};
/** An exec-form (JSON array) argument of an instruction. */
const execForm = (text: string): string[] => JSON.parse(text) as string[];
const INSTALL = steps.findIndex(([w, rest]) => w === 'RUN' && / npm install /.test(` ${rest} `));
/** The install command of the Dockerfile's RUN, alone (what follows `&&` is image clean-up). */
const INSTALL_ARGS = (steps[INSTALL]?.[1] ?? '').split('&&')[0]!.trim().split(/\s+/);
const HEALTHCHECK = execForm(only('HEALTHCHECK').replace(/^.*?CMD\s+/, ''));
const CMD = execForm(only('CMD'));
/** serve's port and the health check's: the image's SVC_PORT. */
const PORT =
  /^SVC_PORT=(\d+)$/.exec(
    steps
      .filter(([w]) => w === 'ENV')
      .map(([, rest]) => rest)
      .find((e) => e.startsWith('SVC_PORT=')) ?? '',
  )?.[1] ?? '';

let work: string;
let runner: Runner;
let stack: Stack;
let tarball: string;
let packed: string[];
let bin: string;
let env: Record<string, string>;
/** Spawn options that run a child as the runner (nothing to change when it is this user). */
const as = (): SpawnOptions => (runner.uid === process.getuid?.() ? {} : { uid: runner.uid, gid: runner.gid });

/** A folder the runner owns. */
function owned(name: string): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { mode: 0o755 });
  fs.chownSync(dir, runner.uid, runner.gid);
  return dir;
}

/**
 * The Node running this suite, where the runner can execute it: the registry's Node builds live
 * in root's cache, which `nobody` cannot enter. A link (or copy) in a root-owned folder.
 */
function nodeForRunner(): string {
  if (runner.uid === (process.getuid?.() ?? runner.uid)) return path.dirname(process.execPath);
  const dir = path.join(work, 'node', 'bin');
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  try {
    fs.linkSync(process.execPath, path.join(dir, 'node'));
  } catch {
    fs.copyFileSync(process.execPath, path.join(dir, 'node'));
    fs.chmodSync(path.join(dir, 'node'), 0o755);
  }
  return dir;
}

/**
 * The npm settings that reach the registry and build packages, from this user's npm config, for
 * a runner who cannot read this user's .npmrc (root's home). Secrets (auth tokens) are not copied.
 */
function npmSettings(): Record<string, string> {
  if (runner.uid === (process.getuid?.() ?? runner.uid)) return {};
  const list = spawnSync('npm', ['config', 'list', '--json'], { encoding: 'utf8', env: baseEnv() });
  const config = JSON.parse(list.stdout) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const key of ['registry', 'cafile', 'proxy', 'https-proxy', 'noproxy', 'strict-ssl', 'nodedir']) {
    const v = config[key];
    if (typeof v === 'string' || typeof v === 'boolean') out[`npm_config_${key.replace(/-/g, '_')}`] = String(v);
  }
  return out;
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-release-'));
  fs.chmodSync(work, 0o755);
  runner = runnerUser();

  // A clone's sources, node_modules shared read-only: npm pack runs prepack (the build) there.
  const clone = path.join(work, 'clone');
  for (const entry of CLONE) fs.cpSync(path.join(ROOT, entry), path.join(clone, entry), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
  const pack = path.join(work, 'pack');
  fs.mkdirSync(pack, { mode: 0o755 });
  const packing = await run('npm', ['pack', '--pack-destination', pack, '--loglevel=error'], { cwd: clone, env: baseEnv() });
  if (packing.code !== 0) throw new Error(`npm pack exited ${packing.code}:\n${packing.stderr}`);
  tarball = path.join(pack, `svc-sync-${VERSION}.tgz`);
  packed = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);

  // The Dockerfile's install, as the runner: its prefix and the tarball are this test's.
  const home = owned('home');
  const prefix = owned('prefix');
  const nodeDir = nodeForRunner();
  env = { ...baseEnv(), ...npmSettings(), HOME: home, PATH: `${nodeDir}:${process.env.PATH ?? ''}`, npm_config_cache: path.join(home, '.npm') };
  const [npm, ...npmArgs] = INSTALL_ARGS.map((a) => (a === '/opt/svc-sync' ? prefix : a.endsWith('.tgz') ? tarball : a));
  // --prefer-offline: what npm's cache holds is not asked again (the runner's own cache when it is this user).
  const installing = await run(npm!, [...npmArgs, '--prefer-offline', '--loglevel=error'], { cwd: home, env, ...as() });
  if (installing.code !== 0) throw new Error(`${INSTALL_ARGS.join(' ')} exited ${installing.code}:\n${installing.stderr}`);
  bin = path.join(prefix, 'bin', 'svc-sync');

  stack = await startStack({ site: { segments: 1, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 30, newsletterSubscriptions: 5 } });
}, SETUP_MS);

afterAll(async () => {
  await stack?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The installed svc-sync, as the runner, in a folder of its own; stderr read whole (not wrapped). */
function installed(args: string[], cwd: string, extra: Record<string, string> = {}): Promise<Ran> {
  return run(bin, args, { cwd, env: { ...env, COLUMNS: '1000', ...stack.env, ...extra }, ...as() });
}

describe('npm pack', () => {
  it('holds the CLI as built, its docs and licence, and no test, fixture, bench, source or CI file', () => {
    expect(packed.every((p) => p.startsWith('package/'))).toBe(true);
    const files = packed.map((p) => p.slice('package/'.length)).sort();
    expect(files.filter((f) => /^(__tests__|fixtures|bench|\.ci|src|scripts)\//.test(f) || f.includes('/fixtures/'))).toEqual([]);
    // The entry, got's bundle and the chunks of the split bundle (each command's work, and what they share).
    const dist = files.filter((f) => f.startsWith('dist/'));
    expect(dist.filter((f) => f !== 'dist/cli.js' && f !== 'dist/vendor/got.js' && !/^dist\/chunks\/[A-Za-z]+-[A-Z0-9]+\.js$/.test(f))).toEqual([]);
    expect(dist).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/vendor/got.js', expect.stringMatching(/^dist\/chunks\/syncRun-/)]));
    for (const f of ['bin/svc-sync.js', 'package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'docs/operations.md', 'docs/deploy/Dockerfile', 'docs/deploy/svc-sync.service']) {
      expect({ f, packed: files.includes(f) }).toEqual({ f, packed: true });
    }
  });
});

describe(`npm install -g of svc-sync-${VERSION}.tgz, dev dependencies omitted, as a non-root user`, () => {
  it('installs as a user other than root, without the dev dependencies', () => {
    expect(runner.uid).not.toBe(0);
    const modules = path.join(path.dirname(bin), '..', 'lib', 'node_modules', 'svc-sync', 'node_modules');
    expect(fs.statSync(path.join(modules, '..', 'package.json')).uid).toBe(runner.uid);
    expect(['typescript', 'jest', 'esbuild', 'eslint'].filter((dev) => fs.existsSync(path.join(modules, dev)))).toEqual([]);
  });

  it('installs every dependency at the exact version package.json names', () => {
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const modules = path.join(path.dirname(bin), '..', 'lib', 'node_modules', 'svc-sync', 'node_modules');
    const have = Object.fromEntries(Object.keys(dependencies).map((d) => [d, (JSON.parse(fs.readFileSync(path.join(modules, d, 'package.json'), 'utf8')) as { version: string }).version]));
    expect(have).toEqual(dependencies);
  });

  it(`--version prints ${VERSION}`, async () => {
    const res = await installed(['--version'], owned('version'));
    expect({ code: res.code, stdout: res.stdout, stderr: res.stderr }).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('doctor finds the local stack ready', async () => {
    const res = await installed(['--json', 'doctor'], owned('doctor'));
    const body = JSON.parse(res.stdout) as { status: number };
    expect({ code: res.code, status: body.status }).toEqual({ code: 0, status: 0 });
  });

  it('sync --all makes the org an exact mirror of the site', async () => {
    const cwd = owned('sync');
    const res = await installed(['--json', 'sync', '--all'], cwd);
    const body = JSON.parse(res.stdout) as Envelope;
    expect({ code: res.code, failed: totals(body.result).failed }).toEqual({ code: 0, failed: 0 });
    expect(totals(body.result).inserted).toBeGreaterThan(30);
    expectFullMirror(stack, stack.platform.site);
    // The run lock (SQLite) was opened: the database driver works from the install.
    expect(fs.statSync(path.join(cwd, '.svc-sync', 'run.lock')).uid).toBe(runner.uid);
  });
});

describe('docs/deploy/Dockerfile, replayed without a container runtime', () => {
  it('is a slim Node 24 image, installs and runs as a non-root user, keeps state in /data, checks /healthz with node', () => {
    // Every stage on the one pinned Node 24 image (dockerfile.test.ts reads the rest).
    expect(new Set(steps.filter(([w]) => w === 'FROM').map(([, rest]) => rest.split(' ')[0]))).toEqual(new Set(['${NODE_IMAGE}']));
    expect(only('ARG')).toMatch(/^NODE_IMAGE=node:24\.\d+\.\d+-bookworm-slim$/);
    const users = steps.map(([w, rest], i) => [w, rest, i] as const).filter(([w]) => w === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.every(([, u]) => !/^(root|0)(:|$)/.test(u))).toBe(true);
    expect(users[0]![2]).toBeLessThan(INSTALL);
    expect(INSTALL_ARGS.slice(0, 3)).toEqual(['npm', 'install', '--global']);
    expect(INSTALL_ARGS).toContain('--omit=dev');
    expect(only('WORKDIR')).toBe('/data');
    expect(execForm(only('VOLUME'))).toEqual(['/data']);
    expect(PORT).toBe('8080');
    expect(only('EXPOSE')).toBe('${SVC_PORT}');
    expect(HEALTHCHECK[0]).toBe('node');
    expect(HEALTHCHECK.join(' ')).toContain("'http://127.0.0.1:' + process.env.SVC_PORT + '/healthz'");
    const entry = execForm(only('ENTRYPOINT'));
    expect(entry.slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    expect(entry.slice(2)).toEqual(['svc-sync']);
    expect(CMD.slice(0, 1)).toEqual(['serve']);
  });

  it('serve from the data folder passes the HEALTHCHECK; stopped by SIGTERM it exits 143 and the check fails', async () => {
    const data = owned('data');
    // Loopback and a free port here: a container has its own network, this machine does not.
    // SVC_PORT=0: a free port, which serve takes from the image's setting (CMD names none).
    const child = spawn(bin, [...CMD, '--host', '127.0.0.1'], {
      cwd: data,
      env: { ...env, COLUMNS: '1000', ...stack.env, SVC_PORT: '0', SVC_WEBHOOK_SECRET: randomBytes(12).toString('hex') },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...as(),
    });
    const done = finished(child);
    try {
      const port = await new Promise<string>((resolve, reject) => {
        let err = '';
        const guard = setTimeout(() => reject(new Error(`serve did not listen within 2 minutes:\n${err}`)), 120_000);
        child.stderr?.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code} before listening:\n${err}`)));
        void done.then(() => clearTimeout(guard));
      });
      const check = HEALTHCHECK;
      const healthy = await run(check[0]!, check.slice(1), { cwd: data, env: { ...env, SVC_PORT: port }, ...as() });
      expect({ code: healthy.code, stderr: healthy.stderr }).toEqual({ code: 0, stderr: '' });
      // State and queue in the data folder, the runner's.
      expect(fs.statSync(path.join(data, '.svc-sync', 'queue.db')).uid).toBe(runner.uid);

      child.kill('SIGTERM');
      expect((await done).code).toBe(143);
      const after = await run(check[0]!, check.slice(1), { cwd: data, env: { ...env, SVC_PORT: port }, ...as() });
      expect(after.code).toBe(1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 180_000);
});

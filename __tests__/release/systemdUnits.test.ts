/**
 * The systemd units shipped in docs/deploy/: read with a parser of this test's own for what an
 * admin relies on (an [Install] section, a non-root User=, the state folder writable under
 * ProtectSystem=strict, the exit codes the product gives), then checked by systemd's own
 * `systemd-analyze verify` and `security` where the machine has systemd-analyze. No test starts
 * them under systemd.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';
import { EXIT } from '../../src/model/errors.js';

const ROOT = packageRoot();
const DEPLOY = path.join(ROOT, 'docs', 'deploy');
const SERVE = 'svc-sync.service';
const SYNC = 'svc-sync-sync.service';
const TIMER = 'svc-sync-sync.timer';
/** Where the units expect the CLI: `npm install -g` with Node's usual prefix. */
const INSTALLED_BIN = '/usr/local/bin/svc-sync';

/** section -> key -> every value given (a key may repeat; an empty value resets a list). */
type Unit = Map<string, Map<string, string[]>>;

/** systemd's unit file syntax: sections, Key=Value lines, `#`/`;` comments, `\` continuations. */
function parseUnit(text: string, file: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[([A-Za-z]+)\]$/.exec(line);
    if (head) {
      if (unit.has(head[1]!)) throw new Error(`${file}:${i + 1}: section [${head[1]}] twice`);
      section = new Map();
      unit.set(head[1]!, section);
      continue;
    }
    const eq = line.indexOf('=');
    if (section === undefined || eq < 1) throw new Error(`${file}:${i + 1}: not a Key=Value line in a section: ${line}`);
    const key = line.slice(0, eq).trim();
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return unit;
}

const units = new Map([SERVE, SYNC, TIMER].map((f) => [f, parseUnit(fs.readFileSync(path.join(DEPLOY, f), 'utf8'), f)]));

/** The one value of a key (the last, as systemd reads a single-valued key). */
function value(file: string, section: string, key: string): string | undefined {
  return units.get(file)?.get(section)?.get(key)?.at(-1);
}

/** A space-separated list key, all its lines joined. */
const words = (file: string, section: string, key: string): string[] => (units.get(file)?.get(section)?.get(key) ?? []).flatMap((v) => v.split(/\s+/).filter(Boolean));

/** Hardening both services carry; each is known to leave Node and svc-sync working. */
const HARDENING: Record<string, string> = {
  NoNewPrivileges: 'yes',
  ProtectSystem: 'strict',
  ProtectHome: 'yes',
  PrivateTmp: 'yes',
  PrivateDevices: 'yes',
  ProtectKernelTunables: 'yes',
  ProtectKernelModules: 'yes',
  ProtectControlGroups: 'yes',
  RestrictNamespaces: 'yes',
  RestrictSUIDSGID: 'yes',
  LockPersonality: 'yes',
  CapabilityBoundingSet: '',
  UMask: '0077',
};

/** The options of a command in command-snapshot.json, with the top-level (global) ones. */
function flagsOf(command: string): string[] {
  const snapshot = JSON.parse(fs.readFileSync(path.join(ROOT, 'command-snapshot.json'), 'utf8')) as Array<{ command: string; options: Array<{ flags: string }> }>;
  return snapshot.filter((c) => c.command === 'svc-sync' || c.command === `svc-sync ${command}`).flatMap((c) => c.options.flatMap((o) => o.flags.split(/[ ,]+/).filter((f) => f.startsWith('-'))));
}

describe.each([
  [SERVE, 'serve'],
  [SYNC, 'sync'],
])('%s', (file, command) => {
  it(`runs svc-sync ${command} as a non-root user from the state folder`, () => {
    const [bin, sub, ...args] = value(file, 'Service', 'ExecStart')!.split(/\s+/);
    expect({ bin, sub }).toEqual({ bin: INSTALLED_BIN, sub: command });
    const known = flagsOf(command);
    expect(args.filter((a) => a.startsWith('-') && !known.includes(a))).toEqual([]);
    expect(value(file, 'Service', 'User')).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(value(file, 'Service', 'User')).not.toBe('root');
    const state = value(file, 'Service', 'StateDirectory');
    expect(state).toBe('svc-sync');
    // The state folder is the working directory (svc-sync keeps .svc-sync/ there) and writable.
    expect(value(file, 'Service', 'WorkingDirectory')).toBe(`/var/lib/${state}`);
    expect(words(file, 'Service', 'ReadWritePaths')).toContain(`/var/lib/${state}`);
    expect(value(file, 'Service', 'EnvironmentFile')).toMatch(/^\/etc\//);
  });

  it('carries the hardening, and nothing that stops V8 (MemoryDenyWriteExecute)', () => {
    const have = Object.fromEntries(Object.keys(HARDENING).map((k) => [k, value(file, 'Service', k)]));
    expect(have).toEqual(HARDENING);
    expect(value(file, 'Service', 'MemoryDenyWriteExecute')).toBeUndefined();
  });
});

describe('the units', () => {
  it('serve: enabled at boot, stopped by SIGTERM with its exit code counted a success, not restarted over a setting', () => {
    expect(words(SERVE, 'Install', 'WantedBy')).toEqual(['multi-user.target']);
    expect(value(SERVE, 'Service', 'Type')).toBe('exec');
    expect(value(SERVE, 'Service', 'KillSignal')).toBe('SIGTERM');
    expect(words(SERVE, 'Service', 'SuccessExitStatus')).toEqual([String(EXIT.TERMINATED)]);
    expect(value(SERVE, 'Service', 'Restart')).toBe('on-failure');
    expect(words(SERVE, 'Service', 'RestartPreventExitStatus')).toEqual([String(EXIT.USAGE)]);
  });

  it('sync: a oneshot whose stdout is the JSON Lines log, a busy state (75) or SIGTERM not a failure', () => {
    expect(value(SYNC, 'Service', 'Type')).toBe('oneshot');
    expect(value(SYNC, 'Service', 'ExecStart')).toMatch(/ --json-lines -q$/);
    expect(value(SYNC, 'Service', 'StandardOutput')).toBe('append:/var/lib/svc-sync/sync.jsonl');
    expect(words(SYNC, 'Service', 'SuccessExitStatus').sort()).toEqual([String(EXIT.LOCKED), String(EXIT.TERMINATED)].sort());
  });

  it('the timer starts the sync service every 15 minutes and is enabled with timers.target', () => {
    expect(value(TIMER, 'Timer', 'Unit')).toBe(SYNC);
    expect(value(TIMER, 'Timer', 'OnCalendar')).toBe('*:0/15');
    expect(words(TIMER, 'Install', 'WantedBy')).toEqual(['timers.target']);
    expect([...units.get(TIMER)!.keys()]).toEqual(['Unit', 'Timer', 'Install']);
  });

  it('the parser refuses what systemd would not read as a setting', () => {
    expect(() => parseUnit('User=x\n', 'bad')).toThrow('bad:1: not a Key=Value line in a section: User=x');
    expect(() => parseUnit('[Service]\nUser\n', 'bad')).toThrow('bad:2:');
    expect(value(SERVE, 'Service', 'User')).toBe('svc-sync');
  });
});

/** systemd-analyze's version (252 for "systemd 252 (...)"), undefined when it is not installed. */
function systemdAnalyze(): number | undefined {
  const run = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? Number(/systemd (\d+)/.exec(run.stdout)?.[1] ?? 0) : undefined;
}
const analyzeVersion = systemdAnalyze();
// `security --offline` came with systemd 250.
const withAnalyze = analyzeVersion !== undefined ? it : it.skip;
const withOffline = analyzeVersion !== undefined && analyzeVersion >= 250 ? it : it.skip;

describe(`systemd-analyze (${analyzeVersion === undefined ? 'not installed here: skipped' : `systemd ${analyzeVersion}`})`, () => {
  // verify checks that ExecStart's program exists: the copies name this checkout's bin/svc-sync.js
  // (what `npm install -g` links as /usr/local/bin/svc-sync); every other line is as shipped.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-units-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const copies = [SERVE, SYNC, TIMER].map((f) => {
    const text = fs.readFileSync(path.join(DEPLOY, f), 'utf8').replaceAll(`${INSTALLED_BIN} `, `${path.join(ROOT, 'bin', 'svc-sync.js')} `);
    fs.writeFileSync(path.join(dir, f), text);
    return path.join(dir, f);
  });

  withAnalyze('verify: the units load with no warning about them', () => {
    const run = spawnSync('systemd-analyze', ['verify', ...copies], { encoding: 'utf8', cwd: dir });
    const aboutOurs = `${run.stdout}${run.stderr}`.split('\n').filter((l) => l.includes('svc-sync'));
    expect({ status: run.status, aboutOurs }).toEqual({ status: 0, aboutOurs: [] });
  });

  withOffline('security: each service is rated "OK" (exposure 2.0 or less of 10)', () => {
    for (const unit of copies.filter((c) => c.endsWith('.service'))) {
      // --threshold is on systemd's 0-100 scale: 20 is 2.0.
      const run = spawnSync('systemd-analyze', ['security', '--offline=yes', '--threshold=20', '--no-pager', unit], { encoding: 'utf8' });
      const level = /Overall exposure level for \S+: ([\d.]+)/.exec(run.stdout)?.[1];
      expect({ unit: path.basename(unit), status: run.status, ok: Number(level) <= 2 }).toEqual({ unit: path.basename(unit), status: 0, ok: true });
    }
  });
});

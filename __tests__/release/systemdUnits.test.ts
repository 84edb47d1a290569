/**
 * The systemd units `svc-sync deploy systemd` writes for the install that runs it: read with a
 * parser of this test's own for what an admin relies on (an [Install] section, a non-root User=,
 * the state folder writable under ProtectSystem=strict, the exit codes the product gives, the
 * install's Node and CLI by absolute path), checked by systemd's own `systemd-analyze verify` and
 * `security`, their ExecStart run under systemd's PATH on this machine, whose /usr/bin/node is
 * older than the floor. docs/deploy/ ships the same units written for an example install.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, packageRoot } from '../../fixtures/cli.js';
import { EXIT } from '../../src/model/errors.js';

const ROOT = packageRoot();
const DEPLOY = path.join(ROOT, 'docs', 'deploy');
const SERVE = 'svc-sync.service';
const SYNC = 'svc-sync-sync.service';
const TIMER = 'svc-sync-sync.timer';
/** The example install docs/deploy's units are written for: Node and `npm install -g` under /usr/local. */
const EXAMPLE = { node: '/usr/local/bin/node', cli: '/usr/local/lib/node_modules/svc-sync/bin/svc-sync.js' };
/** This install, as the units name it. */
const INSTALL = { node: process.execPath, cli: fs.realpathSync(BIN) };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-units-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const written = spawnSync(process.execPath, [BIN, 'deploy', 'systemd', '--out', dir], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, COLUMNS: '1000' } });
if (written.status !== 0) throw new Error(`svc-sync deploy systemd: exit ${written.status}\n${written.stderr}`);
const generated = (f: string): string => fs.readFileSync(path.join(dir, f), 'utf8');

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

const units = new Map([SERVE, SYNC, TIMER].map((f) => [f, parseUnit(generated(f), f)]));

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
    const [node, cli, sub, ...args] = value(file, 'Service', 'ExecStart')!.split(/\s+/);
    expect({ node, cli, sub }).toEqual({ ...INSTALL, sub: command });
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

describe('the units as systemd runs them', () => {
  const copies = [SERVE, SYNC, TIMER].map((f) => path.join(dir, f));

  it('verify: the units load with no warning about them (systemd-analyze is on this machine)', () => {
    const run = spawnSync('/usr/bin/systemd-analyze', ['verify', ...copies], { encoding: 'utf8', cwd: dir });
    expect(run.error).toBeUndefined();
    const aboutOurs = `${run.stdout}${run.stderr}`.split('\n').filter((l) => l.includes('svc-sync'));
    expect({ status: run.status, aboutOurs }).toEqual({ status: 0, aboutOurs: [] });
  });

  it('security: each service is rated "OK" (exposure 2.0 or less of 10)', () => {
    for (const unit of copies.filter((c) => c.endsWith('.service'))) {
      // --threshold is on systemd's 0-100 scale: 20 is 2.0.
      const run = spawnSync('/usr/bin/systemd-analyze', ['security', '--offline=yes', '--threshold=20', '--no-pager', unit], { encoding: 'utf8' });
      const level = /Overall exposure level for \S+: ([\d.]+)/.exec(run.stdout)?.[1];
      expect({ unit: path.basename(unit), status: run.status, ok: Number(level) <= 2 }).toEqual({ unit: path.basename(unit), status: 0, ok: true });
    }
  });

  it("ExecStart under systemd's PATH (/usr/bin first, whose node is older) runs the install's Node", () => {
    const systemdPath = ['-i', 'PATH=/usr/bin:/bin'];
    const older = spawnSync('/usr/bin/env', [...systemdPath, 'node', '-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    expect(Number(older.split('.')[0])).toBeLessThan(22);
    for (const file of [SERVE, SYNC]) {
      const [node, cli] = value(file, 'Service', 'ExecStart')!.split(/\s+/);
      const run = spawnSync('/usr/bin/env', [...systemdPath, node!, cli!, '--version'], { encoding: 'utf8' });
      expect({ file, status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
        file,
        status: 0,
        stdout: `${JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`,
        stderr: '',
      });
    }
    // What the units named before (the CLI alone, `#!/usr/bin/env node`) gets the older node there.
    const shebang = spawnSync('/usr/bin/env', [...systemdPath, INSTALL.cli, '--version'], { encoding: 'utf8' });
    expect({ status: shebang.status, stderr: shebang.stderr }).toEqual({ status: EXIT.USAGE, stderr: expect.stringContaining(`(this is ${older})`) });
  });
});

describe('docs/deploy', () => {
  it.each([[SERVE], [SYNC], [TIMER]])('ships %s as `svc-sync deploy systemd` writes it, for an install under /usr/local', (file) => {
    const example = generated(file).replaceAll(INSTALL.node, EXAMPLE.node).replaceAll(INSTALL.cli, EXAMPLE.cli);
    if (process.env.SVC_SYNC_UPDATE_SNAPSHOT === '1') fs.writeFileSync(path.join(DEPLOY, file), example);
    expect(fs.readFileSync(path.join(DEPLOY, file), 'utf8')).toBe(example);
  });
});

describe('deploy systemd, refused input: one line naming it, exit 2, nothing written', () => {
  it.each([
    [['--node', 'node'], '--node node: not an absolute path'],
    [['--node', '/usr/bin/no-such-node'], '--node /usr/bin/no-such-node: not an executable file'],
    [['--cli', '/opt/my svc/bin/svc-sync.js'], '--cli /opt/my svc/bin/svc-sync.js: holds a blank'],
    [['--port', 'http'], '--port "http": must be a port number'],
  ])('%j', (args, line) => {
    const out = path.join(dir, 'refused');
    const run = spawnSync(process.execPath, [BIN, 'deploy', 'systemd', '--out', out, ...args], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, COLUMNS: '1000' } });
    expect({ status: run.status, stdout: run.stdout, written: fs.existsSync(out) }).toEqual({ status: EXIT.USAGE, stdout: '', written: false });
    expect(run.stderr.split('\n').filter((l) => l.includes(line))).toHaveLength(1);
  });
});

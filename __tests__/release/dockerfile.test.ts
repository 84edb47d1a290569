/**
 * Issue 50: docs/deploy/Dockerfile as a container engineer writes it, read statically (no
 * container engine on this machine, so no test builds the image): a pinned base image, the
 * tarball left in a build stage, a non-root user, the health check on the port serve listens on
 * (one setting, SVC_PORT, which serve is shown to read), a .dockerignore that keeps node_modules
 * out of the documented build context, and `docker run` lines with the units' stop timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { cliArgs, outputOf, packageRoot, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { removeDir, tempCwd, waitFor } from '../e2e/helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { dockerSteps } from '../support/dockerfile.js';

const ROOT = packageRoot();
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

const steps = dockerSteps(read('docs/deploy/Dockerfile'));
const last = Math.max(...steps.map((s) => s.stage));
const final = steps.filter((s) => s.stage === last);
const args = Object.fromEntries(steps.filter((s) => s.word === 'ARG' && s.rest.includes('=')).map((s) => s.rest.split('=', 2) as [string, string]));
const expand = (text: string): string => text.replace(/\$\{(\w+)\}/g, (_, name: string) => args[name] ?? `\${${name}}`);
const execForm = (text: string): string[] => JSON.parse(text) as string[];

describe('docs/deploy/Dockerfile', () => {
  it('every stage starts from one exact Node release (or a digest), never a moving tag', () => {
    const images = steps.filter((s) => s.word === 'FROM').map((s) => expand(s.rest.split(/\s+/)[0]!));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toMatch(/^node:\d+\.\d+\.\d+-[a-z]+-slim$|@sha256:[0-9a-f]{64}$/);
  });

  it('the tarball is copied into a build stage only: the image gets the install, not the package file', () => {
    const tarball = steps.filter((s) => /\.tgz\b/.test(s.rest) && (s.word === 'COPY' || s.word === 'ADD'));
    expect(tarball.length).toBeGreaterThan(0);
    expect(tarball.every((s) => s.stage < last)).toBe(true);
    expect(steps.filter((s) => s.word === 'ADD')).toEqual([]);
    expect(final.filter((s) => s.word === 'COPY').every((s) => /^--from=\S+ \/opt\/svc-sync /.test(s.rest))).toBe(true);
  });

  it('the install and the image run as a non-root user', () => {
    for (const stage of new Set(steps.map((s) => s.stage))) {
      const users = steps.filter((s) => s.stage === stage && s.word === 'USER');
      const npm = steps.findIndex((s) => s.stage === stage && s.word === 'RUN' && s.rest.includes('npm install'));
      if (npm >= 0)
        expect(
          steps
            .slice(0, npm)
            .filter((s) => s.stage === stage && s.word === 'USER')
            .at(-1)?.rest,
        ).toBe('node');
      if (stage === last) expect(users.at(-1)?.rest).toBe('node');
    }
  });

  it('serve and the health check take the port from one setting, SVC_PORT, which serve reads', () => {
    const env = final.filter((s) => s.word === 'ENV').map((s) => s.rest);
    expect(env).toContain('SVC_PORT=8080');
    expect(execForm(final.find((s) => s.word === 'CMD')!.rest)).toEqual(['serve']);
    const check = execForm(final.find((s) => s.word === 'HEALTHCHECK')!.rest.replace(/^.*?CMD\s+/, ''));
    expect(check.join(' ')).toContain("'http://127.0.0.1:' + process.env.SVC_PORT + '/healthz'");
    expect(final.find((s) => s.word === 'EXPOSE')?.rest).toBe('${SVC_PORT}');
  });
});

describe('.dockerignore of the documented build context (the clone)', () => {
  /** Docker's rule: the last pattern that matches a path decides; `!` keeps it. */
  const patterns = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const glob = (p: string): RegExp => new RegExp(`^${p.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
  const ignored = (file: string): boolean => patterns.reduce((out, p) => (glob(p.replace(/^!/, '')).test(file) ? !p.startsWith('!') : out), false);

  it('sends the package file alone: node_modules, sources and secrets stay out', () => {
    expect(ignored('svc-sync-1.0.0.tgz')).toBe(false);
    for (const file of ['node_modules/got/package.json', 'src/cli/main.ts', 'dist/cli.js', '.git/HEAD', 'svc-sync.env', 'svc-sync.config.json', '.svc-sync/state.json'])
      expect({ file, ignored: ignored(file) }).toEqual({ file, ignored: true });
  });
});

it('every `docker run -d` line of the docs stops with the same timeout as the systemd unit', () => {
  const unit = /^TimeoutStopSec=(\d+)$/m.exec(read('docs/deploy/svc-sync.service'))?.[1];
  expect(unit).toBe('120');
  const lines = ['docs/deploy/Dockerfile', 'docs/operations.md', 'README.md'].flatMap((f) =>
    read(f)
      .replace(/\\\n#?\s*/g, ' ')
      .split('\n')
      .filter((l) => /docker run\b.* -d\b/.test(l)),
  );
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(line).toContain(`--stop-timeout ${unit}`);
});

describe("SVC_PORT: serve listens where the image's health check asks", () => {
  let stack: Stack;
  let dir: string;
  beforeAll(async () => {
    stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, donations: 2, newsletterSubscriptions: 0 } });
    dir = tempCwd('svc-port');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(dir);
  });

  /** A free loopback port (taken, then closed). */
  const freePort = (): Promise<number> =>
    new Promise((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });

  it('serve with no --port listens on SVC_PORT, and the HEALTHCHECK command passes against it', async () => {
    const port = String(await freePort());
    const env = { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_PORT: port, SVC_WEBHOOK_SECRET: 'hook-secret-5f2a-port' };
    const child = spawn(process.execPath, cliArgs([...execForm(final.find((s) => s.word === 'CMD')!.rest), '--host', '127.0.0.1']), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const url = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
      expect(url).toBe(`http://127.0.0.1:${port}`);
      const check = execForm(final.find((s) => s.word === 'HEALTHCHECK')!.rest.replace(/^.*?CMD\s+/, ''));
      const ran = await outputOf(spawn(process.execPath, check.slice(1), { env: { PATH: process.env.PATH ?? '', SVC_PORT: port }, stdio: ['ignore', 'pipe', 'pipe'] }));
      expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('a SVC_PORT that is not a port: one line naming it, exit 2, before serve probes anything', async () => {
    const env = { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_PORT: '80a' };
    const before = stack.platform.requests.total;
    const ran = await outputOf(spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1']), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(ran.code).toBe(2);
    expect(ran.stderr.split('\n').filter((l) => l.includes('SVC_PORT: "80a": must be a port number from 0 to 65535'))).toHaveLength(1);
    expect(stack.platform.requests.total).toBe(before);
  });
});

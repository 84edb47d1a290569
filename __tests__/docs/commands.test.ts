/**
 * Issue 50: the docs read against the product. Every svc-sync command in a shell block of README
 * and docs/ that the local stack can run is run, as written, in document order (the backfill
 * before what continues it), with `svc-sync` on PATH as `npm link` or `npm install -g` puts it;
 * README's commands to try against `npm run stack` run in a clone as written there. Left out, by
 * rule: `serve` (it runs until stopped: its own tests), `replay --file` (a file the reader
 * writes), and anything with a placeholder (`...`, `<`, `$`). `object` with an example id the
 * generated site lacks may exit 3 (the record is not on the platform), nothing else but 0.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, cliArgs, outputOf, packageRoot, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { removeDir, tempCwd } from '../e2e/helpers.js';

const ROOT = packageRoot();
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface DocCommand {
  where: string;
  command: string;
}

/** The svc-sync commands of a page's sh blocks: each line (continuations joined), up to `&&`, `|` or a comment. */
function blockCommands(page: string): DocCommand[] {
  const out: DocCommand[] = [];
  let lang: string | undefined;
  const lines = fs.readFileSync(path.join(ROOT, page), 'utf8').replace(/\\\n\s*/g, ' ').split('\n');
  for (const [i, line] of lines.entries()) {
    const fence = /^\s*```(\S*)/.exec(line);
    if (fence) lang = lang === undefined ? fence[1]! : undefined;
    else if (lang === 'sh' || lang === 'bash') {
      const command = line.split(/ #|&&|\|/)[0]!.trim();
      if (/^svc-sync( |$)/.test(command)) out.push({ where: `${page}:${i + 1}`, command });
    }
  }
  return out;
}

/** What the stack can run: no placeholder, not `serve`, not a replay of the reader's file. */
const runnable = (c: DocCommand): boolean => !/\.\.\.|[<$]/.test(c.command) && !/ serve\b/.test(c.command) && !/ replay\b/.test(c.command);

/** README's commands to try after `npm run stack`: the inline `node bin/svc-sync.js ...` spans. */
function cloneCommands(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/`(node bin\/svc-sync\.js[^`]*)`/g)].map((m) => m[1]!.replace(/\s+/g, ' '));
}

let stack: Stack;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  stack = await startStack({ site: { seed: 5, segments: 1, projectsPerSegment: 1, donations: 6, newsletterSubscriptions: 1 } });
  dir = tempCwd('docs-commands');
  // `svc-sync` on PATH as `npm link` puts it; node's folder first, as the docs ask.
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(BIN, path.join(bin, 'svc-sync'));
  env = { PATH: [path.dirname(process.execPath), bin, '/usr/bin', '/bin'].join(':'), HOME: dir, ...READ_WHOLE, ...stack.env };
});
afterAll(async () => {
  await stack.close();
  removeDir(dir);
});

/** One command as a shell runs it, in `cwd`. */
const sh = (command: string, cwd: string): ReturnType<typeof outputOf> => outputOf(spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));

describe('the docs against the product', () => {
  const commands = PAGES.flatMap(blockCommands);
  const run = commands.filter(runnable);

  it('finds the commands of README and docs/ (those left out are placeholders, serve and replay)', () => {
    expect(run.length).toBeGreaterThanOrEqual(12);
    expect(commands.filter((c) => !runnable(c)).every((c) => / (serve|replay)\b|\.\.\.|[<$]/.test(c.command))).toBe(true);
  });

  it('every runnable command of a shell block runs against the stack as written', async () => {
    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    const failed: Array<{ where: string; command: string; code: number; stderr: string }> = [];
    for (const c of run) {
      const res = await sh(c.command, work);
      const ok = res.code === 0 || (res.code === 3 && / object /.test(` ${c.command} `));
      if (!ok) failed.push({ ...c, code: res.code, stderr: res.stderr.trim().split('\n').slice(-2).join(' / ') });
    }
    expect(failed).toEqual([]);
  }, 300_000);

  it("README's commands to try against the stack run in a clone, as written", async () => {
    const tried = cloneCommands();
    expect(tried.length).toBeGreaterThanOrEqual(4);
    // A clone: this checkout's bin/ and what it loads, in a folder of its own (its state stays there).
    const clone = path.join(dir, 'clone');
    fs.mkdirSync(clone);
    fs.symlinkSync(path.join(ROOT, 'bin'), path.join(clone, 'bin'));
    const results = [];
    for (const command of tried) {
      const res = await sh(command, clone);
      results.push({ command, code: res.code === 3 && command.includes(' object ') ? 0 : res.code });
    }
    expect(results).toEqual(tried.map((command) => ({ command, code: 0 })));
  }, 300_000);
});

it("docs/development.md's word on the wrap is what the CLI does: on stderr that is no terminal, a message stays one line", async () => {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'development.md'), 'utf8').replace(/\s+/g, ' ');
  expect(page).toContain('Messages on stderr are wrapped only when stderr is a terminal');
  // COLUMNS unset, stderr a pipe: the one error line is longer than 80 columns, unwrapped.
  const res = await outputOf(spawn(process.execPath, cliArgs(['sync', '--since', 'yesterday-ish-at-some-point-in-the-afternoon']), { cwd: dir, env: { PATH: env.PATH!, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] }));
  const lines = res.stderr.trimEnd().split('\n');
  expect({ code: res.code, lines: lines.length }).toEqual({ code: 2, lines: 1 });
  expect([...lines[0]!].length).toBeGreaterThan(80);
});

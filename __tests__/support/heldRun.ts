/**
 * The built CLI started with one of its Salesforce requests held at the emulator (holdNext), so a
 * test acts at a moment it observes rather than one it times: a signal while the run waits there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cliArgs, type CliResult, outputOf, READ_WHOLE } from '../../fixtures/cli.js';
import type { Stack } from '../../fixtures/stack.js';
import { unstamp } from '../e2e/helpers.js';

export interface HeldRun {
  child: ChildProcess;
  cwd: string;
  done: Promise<CliResult>;
  /** What the run has written to stderr so far, timestamps removed. */
  stderr: () => string;
  /** Lets the held request go on. */
  release: () => void;
}

/** Starts `args` in `cwd`; resolves once the first request matching `request` is held, or fails if the run ends first. */
export async function startHeld(salesforce: Stack['salesforce'], request: RegExp, args: string[], cwd: string, env: Record<string, string>): Promise<HeldRun> {
  const gate = salesforce.holdNext(request);
  const child = spawn(process.execPath, cliArgs(args), { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...env }, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = outputOf(child);
  child.stdin.end();
  const ended = done.then((r) => {
    throw new Error(`the run ended (exit ${r.code}) before the held request was sent:\n${r.stderr}`);
  });
  await Promise.race([gate.reached, ended]);
  ended.catch(() => undefined);
  return { child, cwd, done, stderr: () => unstamp(stderr), release: gate.release };
}

/**
 * An error while the spinner runs, in an 80-column terminal (a pty from `script`): the spinner's
 * line is cleared, then the message starts a line of its own. ora erases its line with escape
 * sequences alone: where they are not obeyed (a `script` transcript, a pager, a CI log) the message
 * followed the spinner's text on one line (`⠙ starting · 0:01salesforce log: ...`, 83 columns).
 * Now a carriage return comes first.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { BIN, outputOf } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { tempCwd } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  // No sync log in the org: the run's end says so while the spinner's line is still drawn.
  stack = await startStack({
    site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 3, newsletterSubscriptions: 0 },
    salesforce: { syncLog: false },
  });
});
afterAll(async () => {
  await stack.close();
});

/** The output without escape sequences: what a transcript holds where they are not obeyed. */
const withoutEscapes = (raw: string): string => raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** The text after the last line break or carriage return before each place `marker` begins a message. */
const before = (text: string, marker: string): string[] =>
  text
    .split(marker)
    .slice(0, -1)
    .map((part) => part.split(/[\r\n]/).pop() ?? '');

it('a run stopped by an error: the spinner line is cleared, each message from column 0, none over 80 columns', async () => {
  const cwd = tempCwd('spinner-line');
  // The platform fails every time (an HTML 500): the run retries with the spinner drawn, then stops (exit 69).
  stack.platform.faults.next(100, 'html500', { path: /^\/v1\/segments/ });
  const command = `stty cols 80 rows 24; ${[process.execPath, BIN, 'sync', '--all'].map((w) => `'${w}'`).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, TERM: 'xterm', ...stack.env }, stdio: 'pipe' });
  child.stdin.end();
  const res = await outputOf(child);
  stack.platform.faults.clear();
  // The spinner was drawn (a braille frame), and the run ended on the platform's error.
  expect(res.stdout).toMatch(/[\u2800-\u28ff]/);
  const text = withoutEscapes(res.stdout);
  // Each message starts a line of its own: nothing of the spinner's line before it.
  expect(before(text, 'salesforce log: the sync log is not in the org')).toEqual(['']);
  expect(before(text, 'svc-sync: ')).toEqual(['']);
  // And its lines, wrapped to the terminal, fit 80 columns.
  const message = text.slice(text.indexOf('salesforce log:')).split(/\r?\n/);
  expect(message.filter((l) => [...l].length > 80)).toEqual([]);
}, 120_000);

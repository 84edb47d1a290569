/**
 * The one wrapping rule for what a person reads on stderr: words kept whole, URLs, paths and
 * `next:` commands on a line of their own; and only on a terminal (a log keeps a record one line).
 */
import { describe, expect, it } from '@jest/globals';
import { logText } from '../../src/cli/output.js';
import { messageColumns, wrapLine, wrapLines } from '../../src/cli/render/text.js';

it('a line that fits is left as it is, spaces and all', () => {
  expect(wrapLine('  1. give the  connected user access', 80)).toEqual(['  1. give the  connected user access']);
});

it('a long line wraps at words, continuation lines two spaces further in than the line', () => {
  const text = `  ${'word '.repeat(40).trim()}`;
  const lines = wrapLine(text, 30);
  expect(lines.length).toBeGreaterThan(1);
  for (const l of lines) expect(l.length).toBeLessThanOrEqual(30);
  expect(lines[0]!.startsWith('  word')).toBe(true);
  for (const l of lines.slice(1)) expect(l.startsWith('    word')).toBe(true);
  expect(lines.join(' ').replace(/\s+/g, ' ').trim()).toBe(text.trim());
});

it('a URL or a path in a line that wraps stands on a line of its own, never cut', () => {
  const url = 'https://example.my.salesforce.com/services/data/v62.0/composite/sobjects/Svc_Donation__c/SvcId__c';
  const lines = wrapLine(`svc-sync: Salesforce answered 500 at ${url} after 3 tries; run again later`, 80);
  expect(lines).toContain(`  ${url}`);
  expect(lines.filter((l) => l.length > 80)).toEqual([`  ${url}`]);
  expect(wrapLine('svc-sync: queue file /var/lib/svc-sync/.svc-sync/queue.db: is not an svc-sync queue, use another path', 60)).toEqual([
    'svc-sync: queue file',
    '  /var/lib/svc-sync/.svc-sync/queue.db:',
    '  is not an svc-sync queue, use another path',
  ]);
});

it('a text of several lines wraps each line on its own', () => {
  expect(wrapLines('first line\n  second line that is a little longer than twenty', 24)).toEqual(['first line', '  second line that is a', '    little longer than', '    twenty']);
});

it('a `next:` command is never split: it stays whole on one line, to be pasted', () => {
  for (const columns of [40, 50, 60]) {
    const lines = wrapLine('svc-sync: exit 1: 3 records failed, the rest were written; next: svc-sync sync --all --verbose', columns);
    expect(lines.filter((l) => l.includes('next: svc-sync sync --all --verbose'))).toHaveLength(1);
  }
});

describe('one record, one line: wrapped only where a person reads a terminal', () => {
  const notATerminal = { isTTY: false, columns: 0 } as unknown as NodeJS.WriteStream;
  const terminal = { isTTY: true, columns: 60 } as unknown as NodeJS.WriteStream;
  const record = `svc-sync: ${'a long reason with many words '.repeat(8).trim()}; next: svc-sync sync --all`;

  it('stderr that is a file, a pipe or cron has no width: nothing wraps there', () => {
    expect(messageColumns(notATerminal)).toBeUndefined();
    expect(messageColumns(terminal)).toBe(60);
  });

  it('in a log a long record is one stamped line, whole', () => {
    const text = logText('text', 'error', record, true, undefined);
    expect(text.split('\n')).toHaveLength(1);
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\S+Z svc-sync: a long reason/);
    expect(text.endsWith('; next: svc-sync sync --all')).toBe(true);
  });

  it('on a terminal a record wraps to its width, continuation lines indented and not stamped', () => {
    const lines = logText('text', 'error', record, true, 60).split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z svc-sync: /);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
    for (const l of lines.slice(1)) expect(l).toMatch(/^ {2}\S/);
    expect(lines.at(-1)).toBe('  next: svc-sync sync --all');
  });
});

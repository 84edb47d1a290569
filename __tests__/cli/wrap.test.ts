/** The one wrapping rule for what a person reads on stderr: words kept whole, URLs and paths on a line of their own. */
import { expect, it } from '@jest/globals';
import { wrapLine, wrapLines } from '../../src/cli/render/text.js';

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

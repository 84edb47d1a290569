import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { MAX_LINE_BYTES, MAX_LISTED_BAD_LINES, readReplay, type ReplayStats } from '../../src/sync/input/replayInput.js';
import type { ObjectRef } from '../../src/model/objects.js';

/** Reads `text` (split into small chunks, as a pipe delivers it) and gathers every chunk. */
async function read(text: string | Buffer, chunkSize = 1000): Promise<{ refs: ObjectRef[]; chunks: number; stats: ReplayStats }> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 7) pieces.push(bytes.subarray(i, i + 7));
  const { chunks, stats } = readReplay(Readable.from(pieces), '--file test.csv', chunkSize);
  const refs: ObjectRef[] = [];
  let n = 0;
  for await (const chunk of chunks) {
    n++;
    refs.push(...chunk);
  }
  return { refs, chunks: n, stats };
}

describe('replay input', () => {
  it('reads CSV with a header in any column order, ignoring extra columns', async () => {
    const r = await read('event_type,object_id,object_type\ndonations.update,7,Donation\nteams.move,3,teams\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 7 },
      { type: 'team', id: 3 },
    ]);
    expect(r.stats.badLines).toEqual([]);
  });

  it('reads CSV without a header, quoted cells, CRLF and a BOM', async () => {
    const r = await read('\uFEFF"newsletter-subscriptions","12"\r\naction,5\r\n');
    expect(r.refs).toEqual([
      { type: 'newsletter_subscription', id: 12 },
      { type: 'action', id: 5 },
    ]);
  });

  it('a quoted field with an embedded line break is one field; line numbers still count from where a record starts', async () => {
    const r = await read('object_type,object_id,note\n# a comment\n\ndonation,7,"paid twice,\nrefund one"\nteam,3,"a ""quoted"" word"\nwidget,4,x\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 7 },
      { type: 'team', id: 3 },
    ]);
    expect(r.stats.badLines).toEqual([{ line: 7, reason: 'unknown object type "widget"' }]);
  });

  it('reads JSON lines of webhook bodies, ids as numbers or strings', async () => {
    const r = await read(
      '{"object_type":"donation","object_id":9,"event_type":"donations.update","application":"Kentaa"}\n{"object_type":"Project","object_id":"4","event_type":"projects.create","application":"Kentaa"}\n',
    );
    expect(r.refs).toEqual([
      { type: 'donation', id: 9 },
      { type: 'project', id: 4 },
    ]);
  });

  it('reads a subscription however its type is spelt, in CSV and in JSON lines, as one record', async () => {
    const r = await read(
      [
        'newsletter_subscription,7',
        'NewsletterSubscription,8',
        '" Newsletter Subscriptions ",9',
        'NEWSLETTER-SUBSCRIPTIONS,10',
        '{"object_type":"newsletter_subscriptions","object_id":"11","event_type":"newsletter_subscriptions.update","application":"Kentaa"}',
        '{"object_type":"NewsletterSubscription","object_id":7,"event_type":"newsletter_subscriptions.create","application":"Kentaa"}',
      ].join('\n'),
    );
    expect(r.refs).toEqual([7, 8, 9, 10, 11].map((id) => ({ type: 'newsletter_subscription', id })));
    expect(r.stats.lines - r.refs.length).toBe(1);
    expect(r.stats.badLines).toEqual([]);
  });

  it('lists each record once within a chunk and counts the lines', async () => {
    const r = await read('donation,1\ndonations,1\ndonation,2\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 1 },
      { type: 'donation', id: 2 },
    ]);
    expect(r.stats.lines).toBe(3);
  });

  it('hands the refs out in chunks of the size asked', async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `donation,${i + 1}`).join('\n');
    const r = await read(lines, 10);
    expect(r.chunks).toBe(3);
    expect(r.refs).toHaveLength(25);
  });

  it('reports bad lines with their numbers and keeps the rest', async () => {
    const r = await read('donation,1\nnews,4\n\ndonation,abc\n{broken\n"[1]"\nteam,-2\n# a comment\nteam,8\nconstructor,5\n__proto__,6\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 1 },
      { type: 'team', id: 8 },
    ]);
    expect(r.stats.badLines).toEqual([
      { line: 2, reason: 'unknown object type "news"' },
      { line: 4, reason: 'object id "abc" is not a positive whole number' },
      { line: 5, reason: 'not valid JSON: "{broken"' },
      { line: 6, reason: 'unknown object type "[1]"' },
      { line: 7, reason: 'object id "-2" is not a positive whole number' },
      { line: 10, reason: 'unknown object type "constructor"' },
      { line: 11, reason: 'unknown object type "__proto__"' },
    ]);
  });

  it('JSON lines: a broken line is reported, "__proto__" keys are not read as fields', async () => {
    const r = await read('{"object_type":"donation","object_id":1,"event_type":"donations.update","application":"Kentaa"}\n{broken\n{"__proto__":{"object_type":"donation","object_id":2}}\n');
    expect(r.refs).toEqual([{ type: 'donation', id: 1 }]);
    expect(r.stats.badLines.map((b) => [b.line, b.reason])).toEqual([
      [2, 'not valid JSON: "{broken"'],
      [3, 'object_type is missing'],
    ]);
  });

  it('JSON lines are classified as serve classifies a webhook: ignored events grouped, users.update kept for the owner scan, a line that is not JSON is unreadable', async () => {
    const body = (objectType: string, id: number, event: string): string => JSON.stringify({ object_type: objectType, object_id: id, event_type: event, application: 'Kentaa' });
    const r = await read(
      [
        body('Order', 1, 'orders.update'),
        body('News', 2, 'news.create'),
        'not json',
        body('Action', 3, 'questions.update'),
        body('Donation', 4, 'questions.update'),
        body('User', 77, 'users.update'),
        body('Order', 5, 'orders.update'),
        body('User', 78, 'users.update'),
        body('User', 77, 'users.update'),
        body('constructor', 6, 'constructor.update'),
        JSON.stringify({ object_type: 'Donation', object_id: 7 }),
        '',
        body('Donation', 8, 'donations.refund'),
      ].join('\n'),
    );
    expect(r.refs).toEqual([{ type: 'action', id: 3 }]);
    expect(r.stats.badLines).toEqual([
      { line: 3, reason: 'not valid JSON: "not json"' },
      { line: 11, reason: 'event_type is missing' },
    ]);
    expect(r.stats.ignored).toEqual([
      { reason: 'object type Order is not mirrored', count: 2, lines: [1, 7] },
      { reason: 'object type News is not mirrored', count: 1, lines: [2] },
      { reason: 'questions of Donation are not mirrored', count: 1, lines: [5] },
      { reason: 'object type constructor is not mirrored', count: 1, lines: [10] },
      { reason: 'event donations.refund is not handled', count: 1, lines: [13] },
    ]);
    expect([...r.stats.ownerUsers]).toEqual([77, 78]);
  });

  it('a huge id is quoted cut and escaped, never whole', async () => {
    const id = `9${'1'.repeat(20_000)}`;
    const r = await read(`donation,"${id}\r\nx"\n`);
    const reason = r.stats.badLines[0]?.reason ?? '';
    expect(reason.length).toBeLessThan(200);
    expect(reason).toContain('(20003 characters)');
    expect(reason).not.toMatch(/[\r\n]/);
  });

  it('keeps at most the first bad lines listed, and counts all', async () => {
    const r = await read(Array.from({ length: MAX_LISTED_BAD_LINES + 50 }, () => 'widget,1').join('\n'));
    expect(r.stats.badLines).toHaveLength(MAX_LISTED_BAD_LINES);
    expect(r.stats.badLineCount).toBe(MAX_LISTED_BAD_LINES + 50);
  });

  it.each([
    ['CSV', Buffer.concat([Buffer.from('donation,1\ndonation,'), Buffer.alloc(MAX_LINE_BYTES + 10, 0x31)])],
    ['JSON lines', Buffer.concat([Buffer.from('{"object_type":"donation","object_id":1}\n{"object_id":"'), Buffer.alloc(MAX_LINE_BYTES + 10, 0x31)])],
    ['bytes without a line end (/dev/zero)', Buffer.alloc(MAX_LINE_BYTES * 3, 0)],
  ])('%s: a line past the limit stops the read with one error naming the input', async (_name, bytes) => {
    await expect(read(bytes)).rejects.toThrow(/^--file test\.csv: line \d+ is longer than 64 KiB/);
  });
});

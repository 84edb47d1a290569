import { describe, expect, it } from '@jest/globals';
import { parseReplay } from '../../src/sync/replayInput.js';

describe('replay input', () => {
  it('reads CSV with a header in any column order, ignoring extra columns', () => {
    const r = parseReplay('event_type,object_id,object_type\ndonations.update,7,Donation\nteams.move,3,teams\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 7 },
      { type: 'team', id: 3 },
    ]);
    expect(r.badLines).toEqual([]);
  });

  it('reads CSV without a header, quoted cells, CRLF and a BOM', () => {
    const r = parseReplay('\uFEFF"newsletter-subscriptions","12"\r\naction,5\r\n');
    expect(r.refs).toEqual([
      { type: 'newsletter_subscription', id: 12 },
      { type: 'action', id: 5 },
    ]);
  });

  it('reads JSON lines of webhook bodies, ids as numbers or strings', () => {
    const r = parseReplay('{"object_type":"donation","object_id":9,"event_type":"donations.update"}\n{"object_type":"Project","object_id":"4"}\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 9 },
      { type: 'project', id: 4 },
    ]);
  });

  it('reads a subscription however its type is spelt, in CSV and in JSON lines, as one record', () => {
    const r = parseReplay(
      [
        'newsletter_subscription,7',
        'NewsletterSubscription,8',
        '" Newsletter Subscriptions ",9',
        'NEWSLETTER-SUBSCRIPTIONS,10',
        '{"object_type":"newsletter_subscriptions","object_id":"11","event_type":"newsletter_subscriptions.update"}',
        '{"object_type":"NewsletterSubscription","object_id":7}',
      ].join('\n'),
    );
    expect(r.refs).toEqual([7, 8, 9, 10, 11].map((id) => ({ type: 'newsletter_subscription', id })));
    expect(r.duplicates).toBe(1);
    expect(r.badLines).toEqual([]);
  });

  it('lists each record once and counts the repeats', () => {
    const r = parseReplay('donation,1\ndonations,1\n{"object_type":"donation","object_id":1}\ndonation,2\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 1 },
      { type: 'donation', id: 2 },
    ]);
    expect(r.duplicates).toBe(2);
  });

  it('reports bad lines with their numbers and keeps the rest', () => {
    const r = parseReplay('donation,1\nnews,4\n\ndonation,abc\n{broken\n[1]\nteam,-2\n# a comment\nteam,8\n');
    expect(r.refs).toEqual([
      { type: 'donation', id: 1 },
      { type: 'team', id: 8 },
    ]);
    expect(r.badLines).toEqual([
      { line: 2, reason: 'unknown object type "news"' },
      { line: 4, reason: 'object id "abc" is not a positive whole number' },
      { line: 5, reason: 'not valid JSON' },
      { line: 6, reason: 'unknown object type "[1]"' },
      { line: 7, reason: 'object id "-2" is not a positive whole number' },
    ]);
  });
});

/**
 * Issue: newsletter subscriptions linked whatever form their entity takes, and no record written
 * unlinked without saying so. Through the CLI, against the fake platform and the emulator: a site
 * whose subscriptions mix the nested entity, top-level entity_type/entity_id and the real API's
 * project_id/segment_id, plus subscriptions no sync can link.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiNewsletterSubscription } from '../../src/model/apiRecords.js';
import {
  cli,
  cliJson,
  expectEnvelope,
  expectFullMirror,
  expectLinked,
  keyOf,
  LOOKUPS_OF,
  parseCsv,
  removeDir,
  sfRecord,
  subscriptionEntity,
  tempCwd,
  totals,
  writeCalls,
  type JsonRun,
  type SiteRecord,
} from './helpers.js';

const UNLINKABLE = 7;
const NOT_ON_PLATFORM = 'not found on the platform (deleted or never existed)';

/** The form a subscription names its entity in. */
function formOf(n: ApiNewsletterSubscription): 'nested' | 'top-level' | 'ids' | 'none' {
  if (n.entity) return 'nested';
  if (n.entity_type !== undefined || n.entity_id !== undefined) return 'top-level';
  if (n.project_id !== undefined || n.segment_id !== undefined) return 'ids';
  return 'none';
}

/** Same instant, another spelling: an offset instead of Z, with milliseconds (Salesforce-like or not). */
function respell(ts: unknown, i: number): unknown {
  if (typeof ts !== 'string') return ts;
  if (/^\d{4}-\d{2}-\d{2}$/.test(ts)) return `${ts}T00:00:00${i % 2 ? '+00:00' : '.000Z'}`;
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return ts;
  const forms = [
    (ms: number): string => new Date(ms).toISOString().replace('Z', '+0000'),
    (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00'),
    // Two hours east of UTC: the wall-clock time moves, the instant does not.
    (ms: number): string => `${new Date(ms + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`,
  ];
  return forms[i % forms.length](t);
}

describe('newsletter subscriptions in every form, and records without a parent', () => {
  let stack: Stack;
  let cwd: string;
  let strict: JsonRun;
  let loose: JsonRun;
  let subs: ApiNewsletterSubscription[];
  let unlinkable: ApiNewsletterSubscription[];

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 21, donations: 60, newsletterSubscriptions: 24, unlinkableSubscriptions: UNLINKABLE } });
    cwd = tempCwd('subscriptions');
    subs = stack.platform.site.newsletter_subscription;
    unlinkable = subs.slice(-UNLINKABLE);
    strict = await cliJson(stack, ['sync', '--all', '--strict-parents', '--report', path.join(cwd, 'strict.csv')], cwd);
    loose = await cliJson(stack, ['sync', '--all', '--report', path.join(cwd, 'loose.csv')], cwd);
  }, 120_000);

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('the site mixes the three forms among the findable subscriptions', () => {
    const findable = subs.filter((n) => subscriptionEntity(stack.platform.site, n as unknown as SiteRecord));
    expect(findable).toHaveLength(24);
    expect(new Set(findable.map(formOf))).toEqual(new Set(['nested', 'top-level', 'ids']));
    expect(unlinkable.every((n) => !subscriptionEntity(stack.platform.site, n as unknown as SiteRecord))).toBe(true);
  });

  it('links every findable subscription: direct lookup, inherited Svc_Segment__c, ExternalReference__c from the entity', () => {
    expect(loose.code).toBe(0);
    expectEnvelope(loose, 'sync', false);
    const site = stack.platform.site;
    let withReference = 0;
    for (const n of subs.slice(0, -UNLINKABLE)) {
      expectLinked(stack, site, 'newsletter_subscription', n.id);
      const entity = subscriptionEntity(site, n as unknown as SiteRecord);
      if (!entity) throw new Error(`subscription ${n.id} has no findable entity`);
      const source = (site[entity.type] as Array<{ id: number; external_reference?: string | null }>).find((r) => r.id === entity.id);
      const rec = sfRecord(stack, 'newsletter_subscription', n.id);
      expect({ key: rec.SvcId__c, ref: rec.ExternalReference__c ?? null }).toEqual({ key: keyOf('newsletter_subscription', n.id), ref: source?.external_reference ?? null });
      if (source?.external_reference) withReference++;
      if (entity.type === 'project') expect(rec.Svc_Segment__c).toEqual(expect.stringMatching(/^a0/));
    }
    expect(withReference).toBeGreaterThan(0);
  });

  it('--strict-parents: each unlinkable subscription skipped with its reason, listed in missingParents and in the CSV', () => {
    expect(strict.code).toBe(0);
    const result = strict.body.result;
    expect(result.summary.Svc_NewsletterSubscription__c).toMatchObject({ inserted: 24, skipped: UNLINKABLE, failed: 0 });
    const keys = unlinkable.map((n) => keyOf('newsletter_subscription', n.id));
    expect(result.missingParents.map((m) => m.key).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      const outcome = result.records.find((r) => r.key === key);
      expect({ key, action: outcome?.action }).toEqual({ key, action: 'skip' });
      expect(outcome?.reason).toMatch(/--strict-parents/);
    }
    const csv = parseCsv(fs.readFileSync(path.join(cwd, 'strict.csv'), 'utf8')).slice(1);
    for (const key of keys) {
      const row = csv.find((r) => r[1] === key);
      expect({ key, action: row?.[2] }).toEqual({ key, action: 'skip' });
      expect(row?.[4]).toMatch(/--strict-parents/);
    }
  });

  it('without it: each is written with empty lookups, a warning naming the record and what is wrong, and a missingParents entry', () => {
    const result = loose.body.result;
    expect(result.summary.Svc_NewsletterSubscription__c).toMatchObject({ inserted: UNLINKABLE, unchanged: 24, failed: 0 });
    const byKey = new Map(result.missingParents.map((m) => [m.key, m]));
    expect(result.missingParents).toHaveLength(UNLINKABLE);
    const expected: Array<[string | null, RegExp]> = [
      [null, /unknown entity\.entity_type "Action"/],
      [null, /unknown entity_type "Site"/],
      [null, /malformed entity\.entity_id "12abc"/],
      [null, /entity_type "Segment" has no entity_id/],
      [null, /no entity/],
      [null, /malformed project_id "n\/a"/],
      ['Project_999', new RegExp(NOT_ON_PLATFORM.replace(/[()]/g, '\\$&'))],
    ];
    unlinkable.forEach((n, i) => {
      const key = keyOf('newsletter_subscription', n.id);
      const [parent, reason] = expected[i];
      const m = byKey.get(key);
      expect({ key, object: m?.object, parent: m?.parent }).toEqual({ key, object: 'Svc_NewsletterSubscription__c', parent });
      expect(m?.reason).toMatch(reason);
      expect(loose.body.warnings.some((w) => w.startsWith(`${key}: `) && reason.test(w))).toBe(true);
      const rec = sfRecord(stack, 'newsletter_subscription', n.id);
      for (const f of [...LOOKUPS_OF('newsletter_subscription'), 'ExternalReference__c']) expect({ key, f, value: rec[f] ?? null }).toEqual({ key, f, value: null });
    });
    const csv = parseCsv(fs.readFileSync(path.join(cwd, 'loose.csv'), 'utf8')).slice(1);
    unlinkable.forEach((n, i) => {
      const row = csv.find((r) => r[1] === keyOf('newsletter_subscription', n.id));
      expect(row?.[2]).toBe('insert');
      expect(row?.[7]).toMatch(expected[i][1]);
    });
    // Nothing else lacks a parent: the rest of the site is the exact linked mirror.
    expectFullMirror(stack, stack.platform.site);
  });

  it('the human output lists them under missing parents with the reason', async () => {
    const human = await cli(stack, ['--dry-run', 'sync', '--all'], cwd);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Missing parents \(\d+\), by reason:/);
    // Grouped by reason, each with an example: the record and "(none)", no parent named.
    // The reason may wrap to a second line at 80 columns; the example follows it.
    expect(human.stdout).toMatch(/Svc_NewsletterSubscription__c: unknown entity_type "Site"[^\n]*\n(?: +[^\n]*\n)? +e\.g\. NewsletterSubscription_\d+ -> \(none\)/);
  });

  it('a second sync writes nothing', async () => {
    const before = writeCalls(stack);
    const again = await cliJson(stack, ['sync', '--all'], cwd);
    expect(again.code).toBe(0);
    expect(totals(again.body.result)).toMatchObject({ inserted: 0, updated: 0, failed: 0 });
    expect(again.body.result.records.filter((r) => r.action !== 'skip')).toEqual([]);
    expect(writeCalls(stack)).toBe(before);
    // Still reported: an unlinked record does not become silent the second time.
    expect(again.body.result.missingParents).toHaveLength(UNLINKABLE);
  });

  it('Salesforce answers DateTimes as .000+0000, and a dry-run after the platform respells every timestamp shows nothing', async () => {
    const stored = sfRecord(stack, 'newsletter_subscription', subs[0].id);
    expect(stored.CreatedAt__c).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+0000$/);
    const site = stack.platform.site;
    let i = 0;
    for (const type of ['segment', 'project', 'team', 'company', 'action', 'user', 'donation', 'newsletter_subscription'] as const) {
      for (const r of site[type] as unknown as Array<Record<string, unknown>>) {
        for (const f of ['created_at', 'updated_at', 'end_date', 'payment_status_at', 'birthday']) if (f in r) r[f] = respell(r[f], i++);
        for (const q of (r.questions as Array<Record<string, unknown>> | undefined) ?? []) for (const f of ['created_at', 'updated_at']) q[f] = respell(q[f], i++);
      }
    }
    const before = writeCalls(stack);
    const dry = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd);
    expect(dry.code).toBe(0);
    expect(dry.body.result.records.filter((r) => r.action !== 'skip')).toEqual([]);
    expect(totals(dry.body.result)).toMatchObject({ inserted: 0, updated: 0, failed: 0 });
    const human = await cli(stack, ['--dry-run', 'sync', '--all'], cwd);
    // Only the records the spec's filters leave out, grouped by reason; nothing to write.
    expect(human.stdout).not.toMatch(/Updates \(/);
    expect(human.stdout).toMatch(/Skipped \(\d+\), by reason:/);
    expect(human.stdout).toMatch(/^total\s+0\s+0\s+\d+\s+\d+\s+0$/m);
    expect(writeCalls(stack)).toBe(before);
  });

  it('nor after amounts, counts and checkboxes are respelt ("20.0", "250000", "true")', async () => {
    const site = stack.platform.site;
    const respellNumber = (v: unknown): unknown => (typeof v === 'number' ? `${v}.0` : typeof v === 'string' && /^\d+\.\d$/.test(v) ? `${v}0` : v);
    for (const type of ['segment', 'project', 'team', 'company', 'action', 'donation'] as const) {
      for (const r of site[type] as unknown as Array<Record<string, unknown>>) {
        for (const f of ['target_amount', 'total_amount', 'total_donations', 'donation_amount', 'transaction_costs', 'receivable_amount', 'previous_participations']) {
          if (f in r) r[f] = respellNumber(r[f]);
        }
        for (const f of ['visible', 'closed', 'newsletter', 'countable']) if (typeof r[f] === 'boolean') r[f] = String(r[f]);
      }
    }
    const dry = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd);
    expect(dry.code).toBe(0);
    expect(dry.body.result.records.filter((r) => r.action !== 'skip')).toEqual([]);
  });

  it('a real change is shown with both sides in one DateTime form', async () => {
    const n = subs[0];
    stack.platform.update('newsletter_subscription', n.id, { created_at: '2026-01-05T10:00:00Z' });
    const dry = await cliJson(stack, ['--dry-run', 'object', 'newsletter_subscription', String(n.id)], cwd);
    const outcome = dry.body.result.records.find((r) => r.key === keyOf('newsletter_subscription', n.id));
    expect(outcome?.action).toBe('update');
    const change = outcome?.changes?.CreatedAt__c;
    expect(change?.to).toBe('2026-01-05T10:00:00.000Z');
    expect(change?.from).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // updated_at moved too (the platform bumps it); nothing else is a change.
    expect(Object.keys(outcome?.changes ?? {}).sort()).toEqual(['CreatedAt__c', 'UpdatedAt__c']);
  });
});

describe('replay names subscriptions however the webhook log spells them, and links each in its own entity form', () => {
  let stack: Stack;
  let cwd: string;

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 22, donations: 0, actionsPerParent: 0, newsletterSubscriptions: 12, unlinkableSubscriptions: 2 } });
    cwd = tempCwd('subscriptions-replay');
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('writes each named subscription with its entity (fetched first), and reports the two it cannot link', async () => {
    const subs = stack.platform.site.newsletter_subscription;
    const spellings = ['newsletter_subscription', 'NewsletterSubscription', 'newsletter-subscriptions', 'Newsletter Subscriptions'];
    const lines = subs.map((n, i) =>
      i % 2 === 0
        ? `${spellings[i % spellings.length]},${n.id}`
        : JSON.stringify({ object_type: spellings[i % spellings.length], object_id: String(n.id), event_type: 'newsletter_subscriptions.update', application: 'Kentaa' }),
    );
    const file = path.join(cwd, 'log.txt');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await cliJson(stack, ['replay', '--file', file], cwd);
    expect(run.code).toBe(0);
    expect(run.body.result.input).toMatchObject({ records: subs.length, duplicates: 0, badLines: [] });
    expect(run.body.result.summary.Svc_NewsletterSubscription__c).toMatchObject({ inserted: subs.length, failed: 0 });
    for (const n of subs.slice(0, -2)) expectLinked(stack, stack.platform.site, 'newsletter_subscription', n.id);
    expect(run.body.result.missingParents.map((m) => m.key)).toEqual(subs.slice(-2).map((n) => keyOf('newsletter_subscription', n.id)));
  });
});

/** Which site and org a run acts on, and which source won: the lines a person reads first. */
import { describe, expect, it } from '@jest/globals';
import { whereLines, whereOf } from '../../src/cli/where.js';

describe('where', () => {
  const raw = { SVC_API_URL: 'https://api.fundraising.example', SVC_SITE_ID: '42', SF_CLIENT_ID: 'id', SF_CLIENT_SECRET: 'secret-value-123' };

  it('names the site and the org, and the source only when the config file said otherwise', () => {
    const org = { instanceUrl: 'https://acme.my.salesforce.com', orgId: '00D5g000000EmuA' };
    const quiet = whereOf(raw, { SVC_API_URL: { from: 'environment', alsoFile: false }, SF_CLIENT_ID: { from: 'file', alsoFile: false } }, org);
    expect(whereLines(quiet)).toEqual(['site 42 at api.fundraising.example', 'org 00D5g000000EmuA at acme.my.salesforce.com']);
    const clash = whereOf(raw, { SVC_API_URL: { from: 'flag', alsoFile: true }, SF_CLIENT_ID: { from: 'environment', alsoFile: true } }, org);
    const lines = whereLines(clash);
    expect(lines).toEqual(['site 42 at api.fundraising.example (flag, over the config file)', 'org 00D5g000000EmuA at acme.my.salesforce.com (env, over the config file)']);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(clash.org.from).toEqual({ setting: 'SF_CLIENT_ID', source: 'environment', alsoInFile: true });
  });

  it('an unpinned site and an org id not known are said so', () => {
    const w = whereOf({ SVC_API_URL: 'http://127.0.0.1:4000', SF_INSTANCE_URL: 'http://127.0.0.1:5000' }, {}, undefined);
    expect(w.site.id).toBeNull();
    expect(w.org.orgId).toBeNull();
    expect(whereLines(w)).toEqual(['site ? (SVC_SITE_ID not set) at 127.0.0.1:4000', 'org ? at 127.0.0.1:5000']);
  });

  it('names the connection: in --json always, in the first line unless every line already begins with it', () => {
    const org = { instanceUrl: 'https://north.my.salesforce.com', orgId: '00D5g000000NorA' };
    const w = whereOf(raw, {}, org, 'north');
    expect(w.connection).toBe('north');
    expect(Object.keys(w)[0]).toBe('connection');
    expect(whereLines(w)).toEqual(['connection north: site 42 at api.fundraising.example', 'org 00D5g000000NorA at north.my.salesforce.com']);
    expect(whereLines(w, true)).toEqual(['site 42 at api.fundraising.example', 'org 00D5g000000NorA at north.my.salesforce.com']);
    expect(whereOf(raw, {}, org)).not.toHaveProperty('connection');
  });

  it('SVC_PROJECTION on: a third line says what the run does about gifts, and why when auto chose', () => {
    const org = { instanceUrl: 'https://acme.my.salesforce.com', orgId: '00D5g000000EmuA' };
    const off = whereOf(raw, {}, org, undefined, { setting: 'auto', resolved: 'off', reason: 'key fields not deployed, see doctor' });
    const npc = whereOf(raw, {}, org, undefined, { setting: 'npc', resolved: 'npc', reason: 'the org checked' });
    expect(whereLines(off)[2]).toBe('gifts: off (SVC_PROJECTION=auto: key fields not deployed, see doctor)');
    expect(whereLines(npc)[2]).toBe('gifts: npc');
    for (const reason of ['the org has no GiftTransaction', 'key fields not deployed, see doctor', 'GiftTransaction and key fields found'])
      expect(whereLines(whereOf(raw, {}, org, undefined, { setting: 'auto', resolved: 'npc', reason }))[2]?.length).toBeLessThanOrEqual(80);
    expect(whereLines(whereOf(raw, {}, org))).toHaveLength(2);
    // NPSP: the refund mode the org decided (P2), within the line's 80 columns.
    const npsp = whereOf(raw, {}, org, undefined, { setting: 'auto', resolved: 'npsp', reason: 'NPSP and key fields found', refundMode: 'payments' });
    expect(whereLines(npsp)[2]).toBe('gifts: npsp, refunds: payments (SVC_PROJECTION=auto: NPSP and key fields found)');
    expect(whereLines(npsp)[2]?.length).toBeLessThanOrEqual(80);
    expect(whereLines(whereOf(raw, {}, org, undefined, { setting: 'npsp', resolved: 'npsp', reason: 'the org checked', refundMode: 'stage' }))[2]).toBe('gifts: npsp, refunds: stage');
  });
});

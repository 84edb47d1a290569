/** Several sites in one org (SITES.md): the key format, the setting, and the refusal rules at load and at login. */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { configErrorOf } from '../support/configError.js';
import { isBareKey, isOwnKey, ownBareKey, parseSiteKey, qualifyKey, sitePrefix, sitePrefixFilter, KEY_VALUED_FIELDS } from '../../src/model/siteKeys.js';
import { giftValueFromOrg, giftValueToOrg } from '../../src/model/giftSiteKeys.js';
import { salesforceSettings } from '../../src/config/load.js';
import { loadDeployment } from '../../src/config/connections.js';
import { claimOrg } from '../../src/config/orgRecord.js';
import { tempFolders } from '../support/tempFolders.js';

const tmp = tempFolders('svc-site-keys-');

const TOKEN = { SF_INSTANCE_URL: 'http://127.0.0.1:2', SF_ACCESS_TOKEN: 'tok-abcdef' };

function configIn(data: unknown): string {
  const cwd = tmp();
  fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(data));
  return cwd;
}

/** Two connections on one org (the same instance URL), each with its own site, state and key. */
const shared = (north: Record<string, unknown>, south: Record<string, unknown>, top: Record<string, unknown> = {}): unknown => ({
  SVC_API_URL: 'http://127.0.0.1:1',
  SVC_API_KEY: 'key-both',
  ...top,
  connections: {
    north: { SVC_SITE_ID: 6, SF_INSTANCE_URL: 'https://x.my.salesforce.com', SF_ACCESS_TOKEN: 'tok-n', ...north },
    south: { SVC_SITE_ID: 7, SF_INSTANCE_URL: 'https://X.my.salesforce.com/', SF_ACCESS_TOKEN: 'tok-s', ...south },
  },
});

describe('site-qualified keys', () => {
  it('qualify, parse and tell whose a key is', () => {
    expect(sitePrefix(6)).toBe('6:');
    expect(qualifyKey(6, 'Donation_123')).toBe('6:Donation_123');
    expect(qualifyKey(7, 'ActionQuestion_5.2')).toBe('7:ActionQuestion_5.2');
    expect(parseSiteKey('6:Donation_123')).toEqual({ site: 6, key: 'Donation_123' });
    expect(parseSiteKey('Donation_123')).toEqual({ site: undefined, key: 'Donation_123' });
    // The gift projection's slot key holds a colon after the key, never before it.
    expect(parseSiteKey('Donation_123:fundraiser')).toEqual({ site: undefined, key: 'Donation_123:fundraiser' });
    expect(isBareKey('Donation_1')).toBe(true);
    expect(isBareKey('16:Donation_1')).toBe(false);
    expect(isOwnKey(1, '16:Donation_1')).toBe(false);
    expect(isOwnKey(16, '16:Donation_1')).toBe(true);
    expect(ownBareKey(6, '6:Segment_4')).toBe('Segment_4');
    expect(ownBareKey(6, '7:Segment_4')).toBeUndefined();
    expect(ownBareKey(6, 'Segment_4')).toBeUndefined();
    expect(KEY_VALUED_FIELDS).toEqual(['SvcId__c', 'TargetSvcId__c', 'QuestionSvcId__c']);
  });

  it('a SOQL condition that keeps a read to the site: LIKE on the prefix, refused for anything but a site and a field name', () => {
    expect(sitePrefixFilter(6)).toBe("SvcId__c LIKE '6:%'");
    expect(sitePrefixFilter(12, 'TargetSvcId__c')).toBe("TargetSvcId__c LIKE '12:%'");
    expect(() => sitePrefixFilter(0)).toThrow();
    expect(() => sitePrefixFilter(6, "x' OR Id != null")).toThrow();
  });
});

describe("the gift projection's keys in a shared org", () => {
  it('every key from a platform id carries the site; person, organisation and pool donor keys do not', () => {
    expect(giftValueToOrg(6, 'SvcGiftKey__c', 'Donation_123')).toBe('6:Donation_123');
    expect(giftValueToOrg(6, 'SvcRefundKey__c', 'Donation_123')).toBe('6:Donation_123');
    expect(giftValueToOrg(6, 'SvcSoftCreditKey__c', 'Donation_123:fundraiser')).toBe('6:Donation_123:fundraiser');
    expect(giftValueToOrg(6, 'SvcCampaignKey__c', 'Project_12')).toBe('6:Project_12');
    expect(giftValueToOrg(6, 'SvcDonorKey__c', 'D:Donation_123')).toBe('D:6:Donation_123');
    for (const shared of ['A:6', 'P:jan@x.nl:smit:jan', 'O:acme:jan@x.nl', `H:${'a'.repeat(64)}`]) expect(giftValueToOrg(6, 'SvcDonorKey__c', shared)).toBe(shared);
    expect(giftValueToOrg(6, 'Name', 'Project_12')).toBe('Project_12');
    expect(giftValueToOrg(6, 'SvcGiftKey__c', '')).toBe('');
  });

  it("read back: this site's prefix off; another site's or a bare key stays as the org holds it, never this site's", () => {
    expect(giftValueFromOrg(6, 'SvcGiftKey__c', '6:Donation_123')).toBe('Donation_123');
    expect(giftValueFromOrg(6, 'SvcDonorKey__c', 'D:6:Donation_123')).toBe('D:Donation_123');
    expect(giftValueFromOrg(6, 'SvcGiftKey__c', '7:Donation_123')).toBe('7:Donation_123');
    expect(giftValueFromOrg(6, 'SvcDonorKey__c', 'D:7:Donation_123')).toBe('D:7:Donation_123');
    expect(giftValueFromOrg(6, 'SvcDonorKey__c', 'P:jan@x.nl:smit:jan')).toBe('P:jan@x.nl:smit:jan');
    expect(giftValueFromOrg(16, 'SvcCampaignKey__c', '1:Project_12')).toBe('1:Project_12');
  });
});

describe('SVC_SITE_KEYS', () => {
  it('is off by default; true takes the site id as the prefix, and needs it', () => {
    expect(salesforceSettings(TOKEN).siteKeys).toBeUndefined();
    expect(salesforceSettings({ ...TOKEN, SVC_SITE_KEYS: 'false', SVC_SITE_ID: '6' }).siteKeys).toBeUndefined();
    expect(salesforceSettings({ ...TOKEN, SVC_SITE_KEYS: 'TRUE', SVC_SITE_ID: '6' }).siteKeys).toBe(6);
    expect(configErrorOf(() => salesforceSettings({ ...TOKEN, SVC_SITE_KEYS: 'true' })).message).toMatch(/^SVC_SITE_KEYS is true but SVC_SITE_ID is not set/);
    expect(configErrorOf(() => salesforceSettings({ ...TOKEN, SVC_SITE_KEYS: 'maybe', SVC_SITE_ID: '6' })).message).toBe('SVC_SITE_KEYS: must be true or false');
    // The projection qualifies its own keys too (giftSiteKeys.ts): allowed together.
    expect(salesforceSettings({ ...TOKEN, SVC_SITE_KEYS: 'true', SVC_SITE_ID: '6', SVC_PROJECTION: 'npc' })).toMatchObject({ siteKeys: 6, projection: 'npc' });
  });

  it('connections on one org: accepted when all qualify (per connection or at the top level), else one line naming them', () => {
    expect(loadDeployment({ cwd: configIn(shared({ SVC_SITE_KEYS: true }, { SVC_SITE_KEYS: 'yes' })), env: {} }).connections).toHaveLength(2);
    expect(loadDeployment({ cwd: configIn(shared({}, {}, { SVC_SITE_KEYS: true })), env: {} }).connections).toHaveLength(2);
    expect(configErrorOf(() => loadDeployment({ cwd: configIn(shared({}, { SVC_SITE_KEYS: true })), env: {} })).message).toBe(
      'connections north and south both write the org at "https://x.my.salesforce.com"; set SVC_SITE_KEYS=true on both (north lacks it)',
    );
    // A connection's own value wins over the top level's.
    expect(configErrorOf(() => loadDeployment({ cwd: configIn(shared({ SVC_SITE_KEYS: false }, {}, { SVC_SITE_KEYS: true })), env: {} })).message).toMatch(/\(north lacks it\)$/);
    expect(configErrorOf(() => loadDeployment({ cwd: configIn(shared({ SVC_SITE_KEYS: 'sometimes' }, {})), env: {} })).message).toBe('connection north: SVC_SITE_KEYS: must be true or false');
    // The same site stays refused, keys or not.
    expect(configErrorOf(() => loadDeployment({ cwd: configIn(shared({ SVC_SITE_ID: 7 }, {}, { SVC_SITE_KEYS: true })), env: {} })).message).toMatch(/^connections north and south: both have site 7/);
  });

  it('at login: two connections reaching one org pass when both qualify; one that does not is named', () => {
    const dir = tmp();
    const on = { SVC_SITE_KEYS: 'true' };
    const all = [
      { name: 'north', stateDir: path.join(dir, 'north'), raw: on },
      { name: 'south', stateDir: path.join(dir, 'south'), raw: on },
      { name: 'east', stateDir: path.join(dir, 'east'), raw: {} },
    ];
    const org = { orgId: '00D5g000009ShrdEAC', instanceUrl: 'https://x.example' };
    claimOrg(all, all[0]!, org, true);
    claimOrg(all, all[1]!, org, true);
    claimOrg(all, all[0]!, org, true);
    expect(configErrorOf(() => claimOrg(all, all[2]!, org, true)).message).toBe('connections north and east both log in to org 00D5g000009Shrd; set SVC_SITE_KEYS=true on both (east lacks it)');
  });
});

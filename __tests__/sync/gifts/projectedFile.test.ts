/** The projected-gifts file: digests kept owner-only and whole; anything else in its place ignored with one warning. */
import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ProjectedGifts, projectedBeside } from '../../../src/sync/gifts/projectedFile.js';
import { KnownCampaigns } from '../../../src/sync/gifts/campaignState.js';
import type { ApiDonation } from '../../../src/model/apiRecords.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'projected-'));
  dirs.push(d);
  return d;
};

const d1: ApiDonation = { id: 1, first_name: 'John', donation_amount: '15.0' };
const SETTINGS = { timeZone: 'Europe/Amsterdam' };

describe('ProjectedGifts', () => {
  it('keeps digests beside the state file, owner-only, and reads them back', () => {
    const file = projectedBeside(path.join(tmp(), 'state.json'));
    const a = ProjectedGifts.open(file);
    const digest = ProjectedGifts.digest(d1, SETTINGS);
    expect(a.done('Donation_1', digest)).toBe(false);
    a.set('Donation_1', digest);
    expect(a.save()).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const b = ProjectedGifts.open(file);
    expect(b.problem).toBeUndefined();
    expect(b.done('Donation_1', digest)).toBe(true);
    b.forget('Donation_1');
    b.save();
    expect(ProjectedGifts.open(file).done('Donation_1', digest)).toBe(false);
  });

  it('a digest follows the donation and the settings, not the order of their fields', () => {
    const same = ProjectedGifts.digest({ donation_amount: '15.0', first_name: 'John', id: 1 }, SETTINGS);
    expect(same).toBe(ProjectedGifts.digest(d1, SETTINGS));
    expect(ProjectedGifts.digest({ ...d1, donation_amount: '15.5' }, SETTINGS)).not.toBe(same);
    expect(ProjectedGifts.digest(d1, { timeZone: 'UTC' })).not.toBe(same);
  });

  it('a file svc-sync did not write is ignored with one warning (every donation is compared with the org)', () => {
    const file = path.join(tmp(), 'projected-gifts.json');
    fs.writeFileSync(file, '{"version": 2}');
    const p = ProjectedGifts.open(file);
    expect(p.problem).toMatch(/are not ones svc-sync wrote \(not \{"version": 1, "digests": \{\.\.\.\}\}\): ignored, every donation is compared with the org$/);
    expect(p.done('Donation_1', ProjectedGifts.digest(d1, SETTINGS))).toBe(false);
    expect(ProjectedGifts.open(path.join(tmp(), 'none.json')).problem).toBeUndefined();
  });
});

describe('the projected campaigns file', () => {
  it('a damaged file is said once as a warning and costs only reads; a saved one comes back', () => {
    const dir = tmp();
    const file = path.join(dir, 'projected-campaigns.json');
    fs.writeFileSync(file, 'not json');
    const damaged = KnownCampaigns.open(file, 'Europe/Amsterdam');
    expect(damaged.problem).toBe(`projected campaigns ${file} are not ones svc-sync wrote (not JSON): ignored, the campaigns are read and compared`);
    expect(damaged.idOf('Segment_1')).toBeUndefined();
    expect(KnownCampaigns.open(path.join(dir, 'none.json'), 'Europe/Amsterdam').problem).toBeUndefined();
  });
});

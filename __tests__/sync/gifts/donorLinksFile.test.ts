/** The stored donor links: beside the state, owner-only, written whole and only when changed; a foreign file is ignored with one line. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { donorLinksBeside, FileDonorLinks } from '../../../src/sync/gifts/donorLinksFile.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'donor-links-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('FileDonorLinks', () => {
  it('keeps links beside the state file, 0600, and writes only when a link changed', () => {
    const file = donorLinksBeside(path.join(dir, 'state.json'));
    expect(file).toBe(path.join(dir, 'donor-links.json'));
    const links = FileDonorLinks.open(file);
    expect(links.problem).toBeUndefined();
    expect(links.get('P:a@x.nl:a:b')).toBeUndefined();
    expect(links.save()).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
    links.set('P:a@x.nl:a:b', '0015g0000000001AAA');
    expect(links.save()).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const again = FileDonorLinks.open(file);
    expect(again.get('P:a@x.nl:a:b')).toBe('0015g0000000001AAA');
    // The same link again: nothing to write (the file keeps the time set here).
    fs.utimesSync(file, new Date(0), new Date(0));
    again.set('P:a@x.nl:a:b', '0015g0000000001AAA');
    expect(again.save()).toBe(true);
    expect(fs.statSync(file).mtimeMs).toBe(0);
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['another shape', '{"version": 2, "links": {}}', 'not {"version": 1'],
    ['a link that is no Salesforce Id', '{"version": 1, "links": {"P:a@x.nl:a:b": "x; rm -rf"}}', 'an entry of links is not a donor key with a Salesforce Id'],
  ])('ignores %s with one line naming the file', (_what, text, why) => {
    const file = path.join(dir, 'donor-links.json');
    fs.writeFileSync(file, text);
    const links = FileDonorLinks.open(file);
    expect(links.problem).toContain(file);
    expect(links.problem).toContain(why);
    expect(links.problem).not.toContain('\n');
    expect(links.get('P:a@x.nl:a:b')).toBeUndefined();
  });
});

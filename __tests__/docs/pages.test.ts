/** README and docs/: short enough to read, wrapped for a terminal, and every link between them leads somewhere. */
import { expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const ROOT = packageRoot();
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'pending').map((f) => `docs/${f}`)];
const read = (page: string): string => fs.readFileSync(path.join(ROOT, page), 'utf8');

/** Prose lines: outside code fences, not table rows nor HTML comments. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let code = false;
  for (const [i, l] of text.split('\n').entries()) {
    if (l.trimStart().startsWith('```')) code = !code;
    else if (!code && !l.trimStart().startsWith('|') && !l.startsWith('<!--')) out.push({ line: i + 1, text: l });
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

it('README is read in ten minutes: at most 250 lines', () => {
  expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
});

it('every page is wrapped at 100 columns, tables and code aside', () => {
  for (const page of PAGES) {
    const long = proseLines(read(page)).filter((l) => [...l.text].length > 100);
    expect({ page, long }).toEqual({ page, long: [] });
  }
});

it('every relative link names a file of the repository, and an anchor of that page', () => {
  for (const page of PAGES) {
    for (const m of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [file = '', hash] = target.split('#');
      const resolved = file === '' ? page : path.join(path.dirname(page), file);
      expect({ page, target, exists: fs.existsSync(path.join(ROOT, resolved)) }).toEqual({ page, target, exists: true });
      if (hash !== undefined && resolved.endsWith('.md')) {
        const anchors = read(resolved)
          .split('\n')
          .filter((l) => /^#{1,6} /.test(l))
          .map((l) => anchor(l.replace(/^#+ /, '')));
        expect({ page, target, found: anchors.includes(hash) }).toEqual({ page, target, found: true });
      }
    }
  }
});

it('README refers to no file outside the repository', () => {
  expect(read('README.md')).not.toMatch(/\.\.\/|\/work\/|SPEC\.md/);
});

/** "took 4 min 5 s on 2 cores (1,625 tests, Node 22)": every statement of the suite's figures on a page. */
const suiteFigures = (page: string): string[] =>
  [...read(page).replace(/\s+/g, ' ').matchAll(/\d+ min \d+ s on \d+ cores \([\d,]+ tests, Node \d+\)/g)].map((m) => m[0]);

it('README and docs/development.md state the same suite figures (tests, time), each once', () => {
  const readme = suiteFigures('README.md');
  expect(readme).toHaveLength(1);
  expect(suiteFigures('docs/development.md')).toEqual(readme);
  // No other count of tests on either page, which a later run could leave stale.
  for (const page of ['README.md', 'docs/development.md']) expect(read(page).replace(/\s+/g, ' ').match(/[\d,]+ tests\b/g)).toHaveLength(1);
});

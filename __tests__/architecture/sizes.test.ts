/**
 * The house's size rules (docs/development.md "Layout"): no file in src/ over 400 lines, no
 * function over 80. A function is counted from its first line to its closing one, so a long
 * callback inside a short call counts as the long function it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

interface Sized {
  where: string;
  lines: number;
}

/** Every function, method, accessor and arrow with a body in a source text, with its length in lines. */
function functionLengths(file: string, text: string): Sized[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Sized[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ where: `${file}:${first + 1}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('sizes in src/', () => {
  const files = tsFiles(SRC).map((f) => ({ name: path.relative(SRC, f).split(path.sep).join('/'), text: fs.readFileSync(f, 'utf8') }));

  it('are read from every file', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.map((f) => ({ where: f.name, lines: f.text.replace(/\n$/, '').split('\n').length })).filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((f) => functionLengths(f.name, f.text)).filter((f) => f.lines > MAX_FUNCTION_LINES);
    expect(long).toEqual([]);
  });

  it('counts a function from its first line to its last, nested arrows included', () => {
    const text = ['export function outer(): void {', '  const inner = () => {', '    return 1;', '  };', '  inner();', '}', 'class C {', '  m(): number {', '    return 2;', '  }', '}'].join('\n');
    expect(functionLengths('x.ts', text)).toEqual([
      { where: 'x.ts:1', lines: 6 },
      { where: 'x.ts:2', lines: 3 },
      { where: 'x.ts:8', lines: 3 },
    ]);
  });
});

/** Help text after a command's options: prose wrapped to the window when shown, examples kept whole. */
import { outputColumns, wrap } from './render/text.js';

interface HelpSections {
  /** Paragraphs, each wrapped to the width at display time (the window may have changed since start). */
  prose?: readonly string[];
  /** Commands to copy: never wrapped, so each must fit 80 columns on its own (a test checks). */
  examples?: readonly string[];
  /** A closing paragraph after the examples. */
  after?: readonly string[];
}

/** For commander's addHelpText('after', ...): computed when the help is shown. */
export function helpAfter(sections: HelpSections): () => string {
  return () => {
    const columns = outputColumns();
    const paragraphs = (list: readonly string[] | undefined): string[] => (list ?? []).map((p) => wrap(p, columns));
    const blocks: string[] = [];
    const prose = paragraphs(sections.prose);
    if (prose.length > 0) blocks.push(prose.join('\n'));
    const examples = sections.examples ?? [];
    if (examples.length > 0) blocks.push([examples.length === 1 ? 'Example:' : 'Examples:', ...examples.map((e) => `  ${e}`)].join('\n'));
    const after = paragraphs(sections.after);
    if (after.length > 0) blocks.push(after.join('\n'));
    return blocks.map((b) => `\n${b}`).join('\n');
  };
}

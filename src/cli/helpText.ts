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

/** The five commands a newcomer needs, in the order of a first sync: what `svc-sync --help` leads with. */
const START_HERE = [
  'Start here:',
  "  svc-sync schema --project svc-org   the org's objects, fields, permission set",
  '  svc-sync doctor                     check the API key, the org, field access',
  '  svc-sync --dry-run sync --all       what the first sync would write',
  '  svc-sync sync --all                 the first sync; then `svc-sync sync`',
  "  svc-sync serve                      receive the platform's webhooks",
].join('\n');

/**
 * The top-level help reordered for a newcomer: usage and description, the five commands to start
 * with, every command, then the options (commander puts the options first).
 */
export function newcomerFirst(help: string): string {
  const blocks = help.replace(/\n+$/, '').split(/\n\n/);
  const commands = blocks.findIndex((b) => b.startsWith('Commands:'));
  const options = blocks.findIndex((b) => b.startsWith('Options:'));
  if (commands < 0 || options < 0 || options > commands) return help;
  const [commandBlock] = blocks.splice(commands, 1);
  blocks.splice(options, 0, START_HERE, commandBlock ?? '');
  return `${blocks.join('\n\n')}\n`;
}

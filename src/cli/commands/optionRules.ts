/**
 * Options declared with what they take: each value is parsed while commander reads the command
 * line (a bad one is refused with the parser's one line, exit 2, before anything runs), and the
 * pairs a command refuses or needs together are rules next to its options, not checks in its body.
 */
import { Option, type Command } from 'commander';
import { ConfigError } from '../../model/errors.js';

/** An option parsed on the command line; `parse` throws a ConfigError naming the flag. A default is given parsed, with the text help shows. */
export function parsedOption<T>(flags: string, description: string, parse: (raw: string) => T, byDefault?: { value: T; shown: string }): Option {
  const option = new Option(flags, description).argParser((raw: string) => parse(raw));
  return byDefault === undefined ? option : option.default(byDefault.value, byDefault.shown);
}

interface OptionRule {
  /** `excludes`: not both; `requires`: the first only with the second. */
  kind: 'excludes' | 'requires';
  /** Long flags as typed, e.g. --max-delete. */
  flag: string;
  other: string;
  /** The next commands to suggest (the error's `actions`). */
  actions?: string[];
}

/** --max-delete -> maxDelete: the name commander stores an option's value under. */
const attributeOf = (flag: string): string => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The rules checked before the command's action runs; the first broken one is the error. */
export function optionRules(cmd: Command, rules: OptionRule[]): Command {
  return cmd.hook('preAction', (_cmd, action) => {
    const opts = action.opts<Record<string, unknown>>();
    const given = (flag: string): boolean => opts[attributeOf(flag)] !== undefined && opts[attributeOf(flag)] !== false;
    for (const r of rules) {
      if (r.kind === 'excludes' && given(r.flag) && given(r.other)) throw new ConfigError(`${r.flag} and ${r.other}: give one of them, not both`, r.actions);
      if (r.kind === 'requires' && given(r.flag) && !given(r.other)) throw new ConfigError(`${r.flag}: goes with ${r.other}`, r.actions);
    }
  });
}

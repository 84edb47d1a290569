/**
 * The command surface: every command with its arguments, options and defaults, as data. It is
 * frozen in command-snapshot.json (as the Salesforce CLI's plugins do) and a test compares the
 * two, so a renamed flag or a changed default is a reviewed decision, never an accident.
 */
import type { Command, Option } from 'commander';

interface OptionSurface {
  flags: string;
  /** The environment variable the option overrides, as its help names it. */
  env?: string;
  /** Commander's default, else the default its help states (a setting's default lives in config). */
  default?: string | number | boolean | string[];
}

interface CommandSurface {
  command: string;
  arguments: string[];
  options: OptionSurface[];
}

const optionOf = (o: Option): OptionSurface => {
  const env = /\benv ([A-Z][A-Z0-9_]+)/.exec(o.description)?.[1];
  const stated = /\bdefault: ([^)]+)\)/.exec(o.description)?.[1];
  // A parsed option's default is its parsed value (a number): the surface keeps the text help shows.
  const value = o.defaultValueDescription ?? (o.defaultValue as OptionSurface['default'] | undefined) ?? stated;
  return { flags: o.flags, ...(env === undefined ? {} : { env }), ...(value === undefined ? {} : { default: value }) };
};

/** The program and every subcommand, depth first, in the order help lists them. */
export function commandSurface(program: Command): CommandSurface[] {
  const out: CommandSurface[] = [];
  const visit = (cmd: Command, path: string): void => {
    const args = (cmd as Command & { registeredArguments: ReadonlyArray<{ name(): string; required: boolean; variadic: boolean }> }).registeredArguments;
    out.push({
      command: path,
      arguments: args.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`)),
      options: cmd.options.map(optionOf),
    });
    for (const sub of cmd.commands) visit(sub, `${path} ${sub.name()}`);
  };
  visit(program, program.name());
  return out;
}

/** `replay`'s work, loaded when the command runs (replay.ts declares it). */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { ConfigError } from '../../model/errors.js';
import type { ObjectRef } from '../../model/objects.js';
import { keyFor } from '../../model/refs.js';
import { MAX_LISTED_BAD_LINES, readReplay, type BadLine, type IgnoredGroup } from '../../sync/input/replayInput.js';
import { runCommand, type SetExit } from '../runner.js';
import { runEngine, type RunOptions } from '../runEngine.js';
import { formatCount } from '../render/text.js';

/** Opens the file (or stdin) as a stream; a file that cannot be opened is named now, before any work. */
async function openInput(file: string): Promise<Readable> {
  if (file === '-') return process.stdin;
  try {
    const handle = await fs.promises.open(file, 'r');
    return handle.createReadStream();
  } catch (e) {
    throw new ConfigError(`--file ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

const describeBad = (b: BadLine): string => `line ${b.line}: ${b.reason} (skipped)`;
const describeIgnored = (g: IgnoredGroup): string =>
  `ignored ${g.count} ${g.count === 1 ? 'line' : 'lines'} (as serve does): ${g.reason} (line ${g.lines.join(', ')}${g.count > g.lines.length ? ', ...' : ''})`;

export async function replayAction(opts: RunOptions & { file: string }, c: Command, setExit: SetExit): Promise<void> {
  const where = `--file ${opts.file}`;
  const { chunks, stats } = readReplay(await openInput(opts.file), where, opts.batchSize);
  const iterator = chunks[Symbol.asyncIterator]();
  await runCommand(c, setExit, async (ctx) => {
    // Bad lines are shown as they are found (a person sees them while it works) or gathered for --json.
    const warnings: string[] = [];
    let shown = 0;
    const showBadLines = (): void => {
      for (; shown < stats.badLines.length; shown++) {
        const text = describeBad(stats.badLines[shown] as BadLine);
        if (ctx.globals.json) warnings.push(text);
        // Even with --quiet: bad lines explain exit 1.
        else ctx.out.warn(`warning: ${text}`);
      }
    };
    // The first chunk is read before connecting: a file with no valid line is a usage error (exit 2).
    const first = await iterator.next();
    showBadLines();
    if (first.done && stats.badLineCount > 0 && stats.ownerUsers.size === 0) throw new ConfigError(`${where}: no valid line (${describeBad(stats.badLines[0] as BadLine)})`);
    let records = 0;
    return runEngine(ctx, {
      command: 'replay',
      opts,
      body: async (engine, deps) => {
        // Records asked for by name are compared with the org, their gifts too (as their mirror rows are).
        deps.gifts?.compareEveryDonation();
        const run = async (chunk: ObjectRef[]): Promise<void> => {
          // A ref an earlier chunk already synced (listed again, or written as a parent) is not synced twice.
          const fresh = chunk.filter((r) => engine.report.outcomeOf(keyFor(r.type, r.id)) === undefined);
          records += fresh.length;
          await engine.syncRefs(fresh);
        };
        if (!first.done) await run(first.value);
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          showBadLines();
          await run(next.value);
        }
        showBadLines();
        let ownedActions = 0;
        if (stats.ownerUsers.size > 0) {
          ownedActions = await engine.syncActionsOwnedBy(stats.ownerUsers);
          ctx.out.info(
            `users.update: ${stats.ownerUsers.size} ${stats.ownerUsers.size === 1 ? 'user owns' : 'users own'} ${ownedActions} ${ownedActions === 1 ? 'action' : 'actions'} (one scan of the action list)`,
          );
        }
        for (const g of stats.ignored) ctx.out.info(describeIgnored(g));
        const notListed = stats.badLineCount - stats.badLines.length;
        if (notListed > 0) {
          const text = `${notListed} more bad lines not listed (only the first ${MAX_LISTED_BAD_LINES} are)`;
          if (ctx.globals.json) warnings.push(text);
          else ctx.out.warn(`warning: ${text}`);
        }
        return {
          input: {
            records,
            duplicates: stats.lines - records,
            badLines: stats.badLines,
            ...(notListed > 0 ? { badLinesNotListed: notListed } : {}),
            ...(stats.ignored.length > 0 ? { ignored: stats.ignored } : {}),
            ...(stats.ownerUsers.size > 0 ? { usersUpdate: { users: stats.ownerUsers.size, actions: ownedActions } } : {}),
          },
        };
      },
      warningsBefore: warnings,
      // Bad lines mean part of the input was not synced: not a clean run, in the --json status too.
      shortfall: () =>
        stats.badLineCount > 0 ? `${formatCount(stats.badLineCount)} ${stats.badLineCount === 1 ? 'line' : 'lines'} of ${where} could not be read (each named in a warning; not synced)` : undefined,
    });
  });
}

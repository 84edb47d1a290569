/** `queue`'s and `queue retry`'s work, loaded when the command runs (queue.ts declares it). */
import type { Command } from 'commander';
import type { RawSettings } from '../../config/load.js';
import { webhookSettings } from '../../config/webhookSettings.js';
import { EXIT } from '../../model/errors.js';
import type { QueueLocation } from '../../config/settings.js';
import { storeRetryFailed, storeStatus } from '../../webhook/queue/open.js';
import { ignoredLines, renderQueue } from '../render/queueText.js';
import { outputColumns } from '../render/text.js';
import { runCommand, type CommandContext, type SetExit } from '../runner.js';
import { chooseConnections, type Deployment } from '../../config/connections.js';
import { connectionKeys } from '../../webhook/lanes.js';
import type { ConnectionScope, FailedEvent } from '../../webhook/queue/store.js';
import type { QueueOptions } from './queue.js';
import { bool } from '../../config/values.js';
import { keyFor } from '../../model/refs.js';
import { keyShown } from '../render/shownKeys.js';

/** A connection's events in the queue: its name, and '' (events from before connections) when it is the only one. */
function scopeOf(d: Deployment, name: string): ConnectionScope {
  return { home: name, keys: connectionKeys(name, d.connections.length) };
}

/** A stored connection value as a person reads it: the connection's name, or why it has none. */
function nameOf(d: Deployment): (stored: string) => string {
  return (stored) => {
    const owner = d.connections.find((c) => c.name !== undefined && connectionKeys(c.name, d.connections.length).includes(stored));
    if (owner?.name !== undefined) return owner.name;
    return stored === '' ? '(none)' : `${stored} (not in the config)`;
  };
}

/**
 * The key a failed event's record has in the org, for the connections that qualify their keys
 * (SITES.md: queue entries name records as the org holds them, `6:Donation_123`); undefined for
 * the others (their `ref` says it) and for a user (no record of its own).
 */
function orgKeyOf(d: Deployment): (f: FailedEvent) => string | undefined {
  return (f) => {
    const owner = d.named ? d.connections.find((c) => connectionKeys(c.name, d.connections.length).includes(f.connection ?? '')) : d.connections[0];
    if (owner === undefined || !bool(owner.raw, 'SVC_SITE_KEYS') || f.refType === 'user') return undefined;
    const site = Number(owner.raw.SVC_SITE_ID);
    return Number.isSafeInteger(site) && site > 0 ? keyShown(site)(keyFor(f.refType, f.refId)) : undefined;
  };
}

/** `queue --connection NAME` shows that connection's events; without it, every connection's. */
const statusScope = (ctx: CommandContext): ConnectionScope | undefined =>
  ctx.deployment.named && ctx.deployment.top.SVC_CONNECTION !== undefined && ctx.connection.name !== undefined ? scopeOf(ctx.deployment, ctx.connection.name) : undefined;

/** The queue the flags and settings name: --queue-url / SVC_QUEUE_URL wins over the file. */
const locate = (opts: QueueOptions, raw: RawSettings): QueueLocation => webhookSettings(raw, { path: opts.queue, url: opts.queueUrl }).queue;

export function queueAction(opts: QueueOptions, c: Command, setExit: SetExit): Promise<void> {
  return runCommand(
    c,
    setExit,
    async (ctx) => {
      const s = await storeStatus(locate(opts, ctx.raw), 100, statusScope(ctx));
      const where = s.location;
      // `path` keeps its name in the JSON contract; for PostgreSQL it holds the URL without its password.
      const { location: _location, byConnection, ...rest } = s;
      const named = ctx.deployment.named;
      const label = nameOf(ctx.deployment);
      // With "connections": each connection's counts, and each failed event's connection (as in the file).
      const perConnection = named ? { byConnection: byConnection.map((c) => ({ ...c, connection: label(c.connection) })) } : {};
      const ignored = named ? s.ignored.map((g) => ({ ...g, connection: label(g.connection) })) : s.ignored.map(({ connection: _c, ...g }) => g);
      const keyOf = orgKeyOf(ctx.deployment);
      const failed = s.failed.map((f) => {
        const key = keyOf(f);
        return key === undefined ? f : { ...f, key };
      });
      const result = { command: 'queue', ...rest, failed, ignored, ...perConnection, path: where };
      const redact = (t: string): string => ctx.out.redact(t);
      const lines = renderQueue(where, s.counts, failed, outputColumns(), redact, named ? { counts: byConnection, nameOf: label } : undefined);
      if (ctx.globals.verbose) lines.push(...ignoredLines(s.ignored, outputColumns(), redact, named ? label : undefined));
      return { status: EXIT.OK, result, warnings: [], text: lines.join('\n') };
    },
    { connections: 'deployment' },
  );
}

export function retryAction(c: Command, setExit: SetExit): Promise<void> {
  return runCommand(
    c,
    setExit,
    async (ctx) => {
      // With several connections, one is named (--connection): its org may be the one still refusing.
      const one = ctx.deployment.named ? chooseConnections(ctx.deployment, 'one')[0]?.name : undefined;
      const n = await storeRetryFailed(locate(c.optsWithGlobals<QueueOptions>(), ctx.raw), one === undefined ? undefined : scopeOf(ctx.deployment, one));
      const of = one === undefined ? '' : ` of connection ${one}`;
      return { status: EXIT.OK, result: { command: 'queue retry', requeued: n, ...(one === undefined ? {} : { connection: one }) }, warnings: [], text: `${n} failed event(s)${of} queued again` };
    },
    { connections: 'deployment' },
  );
}

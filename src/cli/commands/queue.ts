import type { Command } from 'commander';
import Table from 'cli-table3';
import { webhookSettings } from '../../config/load.js';
import type { RawSettings } from '../../config/load.js';
import { storeRetryFailed, storeStatus, type QueueLocation } from '../../webhook/openQueue.js';
import type { GlobalOptions } from '../globals.js';
import { commandContext } from '../runSync.js';

interface QueueOptions {
  queue?: string;
  queueUrl?: string;
}

/** The queue the flags and settings name: --queue-url / SVC_QUEUE_URL wins over the file. */
function locate(opts: QueueOptions, raw: RawSettings): QueueLocation {
  const w = webhookSettings(raw);
  const url = opts.queueUrl ?? w.queueUrl;
  return {
    path: opts.queue ?? w.queuePath,
    ...(url === undefined ? {} : { url }),
    ...(w.queueSchema === undefined ? {} : { schema: w.queueSchema }),
  };
}

export function queueCommand(program: Command, setExit: (code: number) => void): void {
  const queue = program
    .command('queue')
    .description('show the webhook queue: pending, failed (with last error) and done counts')
    .option('--queue <path>', 'queue database (SVC_QUEUE_PATH, default .svc-sync/queue.db)')
    .option('--queue-url <url>', 'the queue in PostgreSQL (SVC_QUEUE_URL, postgres://...)')
    .action(async (opts: QueueOptions, c: Command) => {
      const ctx = commandContext(c.optsWithGlobals<GlobalOptions>());
      const s = await storeStatus(locate(opts, ctx.raw));
      const where = s.location;
      // `path` keeps its name in the JSON contract; for PostgreSQL it holds the masked URL.
      const { location: _location, ...rest } = s;
      if (ctx.globals.json) ctx.out.json(0, { command: 'queue', ...rest, path: where }, s.exists ? [] : [`no queue at ${where} yet`]);
      else if (!s.exists) ctx.out.result(`no queue at ${where} yet (svc-sync serve creates it)`);
      else {
        const counts = Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(', ');
        const lines = [`queue ${where}: ${counts}`];
        if (s.failed.length > 0) {
          const t = new Table({ head: ['event', 'type', 'ref', 'attempts', 'next attempt', 'last error'], style: { head: [], border: [] } });
          for (const f of s.failed) t.push([f.id, f.eventType, `${f.refType} ${f.refId}`, f.attempts, f.nextAttemptAt, f.lastError.slice(0, 80)]);
          lines.push(t.toString(), '`svc-sync queue retry` queues them again now');
        }
        ctx.out.result(lines.join('\n'));
      }
      setExit(0);
    });
  queue
    .command('retry')
    .description('queue failed events again, due now')
    .action(async (_o: unknown, c: Command) => {
      const g = c.optsWithGlobals<GlobalOptions & QueueOptions>();
      const ctx = commandContext(g);
      const n = await storeRetryFailed(locate(g, ctx.raw));
      if (g.json) ctx.out.json(0, { command: 'queue retry', requeued: n }, []);
      else ctx.out.result(`${n} failed event(s) queued again`);
      setExit(0);
    });
}

import type { Command } from 'commander';
import Table from 'cli-table3';
import { webhookSettings } from '../../config/load.js';
import { queueStatus, retryFailed } from '../../webhook/queue.js';
import type { GlobalOptions } from '../globals.js';
import { commandContext } from '../runSync.js';

export function queueCommand(program: Command, setExit: (code: number) => void): void {
  const queue = program
    .command('queue')
    .description('show the webhook queue: pending, failed (with last error) and done counts')
    .option('--queue <path>', 'queue database (SVC_QUEUE_PATH, default .svc-sync/queue.db)')
    .action((opts: { queue?: string }, c: Command) => {
      const ctx = commandContext(c.optsWithGlobals<GlobalOptions>());
      const file = opts.queue ?? webhookSettings(ctx.raw).queuePath;
      const s = queueStatus(file);
      if (ctx.globals.json) ctx.out.json(0, { command: 'queue', ...s }, s.exists ? [] : [`no queue at ${file} yet`]);
      else if (!s.exists) ctx.out.result(`no queue at ${file} yet (svc-sync serve creates it)`);
      else {
        const counts = Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(', ');
        const lines = [`queue ${file}: ${counts}`];
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
    .action((_o: unknown, c: Command) => {
      const g = c.optsWithGlobals<GlobalOptions & { queue?: string }>();
      const ctx = commandContext(g);
      const file = g.queue ?? webhookSettings(ctx.raw).queuePath;
      const n = retryFailed(file);
      if (g.json) ctx.out.json(0, { command: 'queue retry', requeued: n }, []);
      else ctx.out.result(`${n} failed event(s) queued again`);
      setExit(0);
    });
}

import type { Command } from 'commander';
import Table from 'cli-table3';
import { webhookSettings } from '../../config/load.js';
import { oneLine } from '../../config/echo.js';
import { EXIT } from '../../model/errors.js';
import { queueStatus, retryFailed } from '../../webhook/queue.js';
import { runCommand, type SetExit } from '../runner.js';

export function queueCommand(program: Command, setExit: SetExit): void {
  const queue = program
    .command('queue')
    .description('show the webhook queue: pending, failed (with last error) and done counts')
    .option('--queue <path>', 'queue database (env SVC_QUEUE_PATH, default: .svc-sync/queue.db)')
    .addHelpText('after', '\nExamples:\n  svc-sync queue\n  svc-sync queue --json --queue /srv/svc-sync/queue.db\n  svc-sync queue retry')
    .action((opts: { queue?: string }, c: Command) =>
      runCommand(c, setExit, async (ctx) => {
        const file = opts.queue ?? webhookSettings(ctx.raw).queuePath;
        const s = queueStatus(file);
        const result = { command: 'queue', ...s };
        if (!s.exists) return { status: EXIT.OK, result, warnings: [`no queue at ${file} yet`], text: `no queue at ${file} yet (svc-sync serve creates it)` };
        const counts = Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(', ');
        const lines = [`queue ${file}: ${counts}`];
        if (s.failed.length > 0) {
          // Masked before it is cut: a cut secret would no longer match its mask.
          const t = new Table({ head: ['event', 'type', 'ref', 'attempts', 'next attempt', 'last error'], style: { head: [], border: [] } });
          for (const f of s.failed) t.push([f.id, f.eventType, `${f.refType} ${f.refId}`, f.attempts, f.nextAttemptAt, oneLine(ctx.out.redact(f.lastError), 80)]);
          lines.push(t.toString(), '`svc-sync queue retry` queues them again now');
        }
        return { status: EXIT.OK, result, warnings: [], text: lines.join('\n') };
      }),
    );
  queue
    .command('retry')
    .description('queue failed events again, due now')
    .addHelpText('after', '\nExample:\n  svc-sync queue retry --queue /srv/svc-sync/queue.db')
    .action((_o: unknown, c: Command) =>
      runCommand(c, setExit, async (ctx) => {
        const file = c.optsWithGlobals<{ queue?: string }>().queue ?? webhookSettings(ctx.raw).queuePath;
        const n = retryFailed(file);
        return { status: EXIT.OK, result: { command: 'queue retry', requeued: n }, warnings: [], text: `${n} failed event(s) queued again` };
      }),
    );
}

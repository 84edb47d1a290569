import type { Command } from 'commander';
import type { RawSettings } from '../../config/load.js';
import { webhookSettings } from '../../config/webhookSettings.js';
import { EXIT } from '../../model/errors.js';
import type { QueueLocation } from '../../config/settings.js';
import { storeRetryFailed, storeStatus } from '../../webhook/queue/open.js';
import { renderQueue } from '../render/queueText.js';
import { outputColumns } from '../render/text.js';
import { runCommand, type SetExit } from '../runner.js';
import { helpAfter } from '../helpText.js';

interface QueueOptions {
  queue?: string;
  queueUrl?: string;
}

/** The queue the flags and settings name: --queue-url / SVC_QUEUE_URL wins over the file. */
const locate = (opts: QueueOptions, raw: RawSettings): QueueLocation => webhookSettings(raw, { path: opts.queue, url: opts.queueUrl }).queue;

export function queueCommand(program: Command, setExit: SetExit): void {
  const queue = program
    .command('queue')
    .description('show the webhook queue: pending, failed (with last error) and done counts')
    .option('--queue <path>', 'queue database (env SVC_QUEUE_PATH, default: .svc-sync/queue.db)')
    .option('--queue-url <url>', 'the queue in PostgreSQL (env SVC_QUEUE_URL, postgres://...)')
    .addHelpText(
      'after',
      helpAfter({ examples: ['svc-sync queue', 'svc-sync queue --json --queue /srv/svc-sync/queue.db', 'SVC_QUEUE_URL=postgres://svc@db/svc svc-sync queue', 'svc-sync queue retry'] }),
    )
    .action((opts: QueueOptions, c: Command) =>
      runCommand(
        c,
        setExit,
        async (ctx) => {
          const s = await storeStatus(locate(opts, ctx.raw));
          const where = s.location;
          // `path` keeps its name in the JSON contract; for PostgreSQL it holds the URL without its password.
          const { location: _location, ...rest } = s;
          const result = { command: 'queue', ...rest, path: where };
          if (!s.exists) return { status: EXIT.OK, result, warnings: [`no queue at ${where} yet`], text: `no queue at ${where} yet (svc-sync serve creates it)` };
          const lines = renderQueue(where, s.counts, s.failed, outputColumns(), (t) => ctx.out.redact(t));
          return { status: EXIT.OK, result, warnings: [], text: lines.join('\n') };
        },
        { connections: 'deployment' },
      ),
    );
  queue
    .command('retry')
    .description('queue failed events again, due now')
    .addHelpText('after', helpAfter({ examples: ['svc-sync queue retry --queue /srv/svc-sync/queue.db'] }))
    .action((_o: unknown, c: Command) =>
      runCommand(
        c,
        setExit,
        async (ctx) => {
          const n = await storeRetryFailed(locate(c.optsWithGlobals<QueueOptions>(), ctx.raw));
          return { status: EXIT.OK, result: { command: 'queue retry', requeued: n }, warnings: [], text: `${n} failed event(s) queued again` };
        },
        { connections: 'deployment' },
      ),
    );
}

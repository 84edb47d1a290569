import type { Command } from 'commander';
import type { SetExit } from '../runner.js';
import { helpAfter } from '../helpText.js';

export interface QueueOptions {
  queue?: string;
  queueUrl?: string;
}

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
    // The work in its own chunk: --help and option errors never load it.
    .action(async (opts: QueueOptions, c: Command) => (await import('./queueRun.js')).queueAction(opts, c, setExit));
  queue
    .command('retry')
    .description('queue failed events again, due now')
    .addHelpText('after', helpAfter({ examples: ['svc-sync queue retry --queue /srv/svc-sync/queue.db'] }))
    .action(async (_o: unknown, c: Command) => (await import('./queueRun.js')).retryAction(c, setExit));
}

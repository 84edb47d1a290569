import type { Command } from 'commander';
import { ConfigError } from '../../model/errors.js';
import { echo } from '../../config/echo.js';
import { DEFAULT_SERVE } from '../../webhook/serveDefaults.js';
import { DEFAULT_SETTLE_S, settleSeconds } from '../../config/webhookSettings.js';
import type { SetExit } from '../runner.js';
import { helpAfter } from '../helpText.js';
import { parsedOption } from './optionRules.js';

/** As commander hands them over, parsed (optionRules.ts). */
export interface ServeCommandOptions {
  port?: number;
  host: string;
  path: string;
  queue?: string;
  queueUrl?: string;
  batchSize?: number;
  /** --settle in ms. */
  settle?: number;
  application?: string[];
  publicWithoutSecret?: boolean;
}

/** --port (or SVC_PORT), of serve and of the units that run it. */
export function port(raw: string, name = '--port'): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new ConfigError(`${name} ${echo(raw)}: must be a port number from 0 to 65535`);
  return Number(raw);
}

function batchSize(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 10_000) throw new ConfigError(`--batch-size ${echo(raw)}: must be a whole number from 1 to 10000`);
  return Number(raw);
}

/** Help after serve's options. */
const SERVE_HELP = helpAfter({
  prose: [
    'The platform posts to http://HOST:PORT/webhooks/<SVC_WEBHOOK_SECRET> (or with an X-Webhook-Secret header).',
    'SIGTERM (or SIGHUP: the terminal closed) stops accepting, finishes the batch in flight and exits.',
    'GET /healthz answers 503 while the queue is unreachable or cannot store events; GET /metrics serves Prometheus metrics.',
    'With SVC_ADMIN_TOKEN set, GET /status shows a status page for a browser (sign in with the token).',
    'With SVC_QUEUE_URL, a batch claimed by a receiver that dies is claimed again after SVC_QUEUE_LEASE_S (default 60).',
    'With "connections" in the config file, one serve takes every site\'s webhooks: each is routed by its site_id (or posted to /webhooks/<name>); --connection NAME serves one.',
  ],
  examples: ['SVC_WEBHOOK_SECRET=$(openssl rand -hex 24) svc-sync serve --port 8080'],
});

export function serveCommand(program: Command, setExit: SetExit): void {
  program
    .command('serve')
    .description("receive the platform's webhooks: store each event durably, then sync in coalesced batches")
    .addOption(parsedOption('--port <n>', `port to listen on (env SVC_PORT, default: ${DEFAULT_SERVE.port})`, (raw) => port(raw)))
    .option('--host <addr>', 'address to listen on', DEFAULT_SERVE.host)
    .option('--path <path>', 'URL path the platform posts to', DEFAULT_SERVE.path)
    .option('--queue <path>', 'queue database (env SVC_QUEUE_PATH, default: .svc-sync/queue.db)')
    .option('--queue-url <url>', 'keep the queue in PostgreSQL instead; receivers sharing one database share the queue (env SVC_QUEUE_URL, postgres://...)')
    .addOption(parsedOption('--batch-size <n>', 'most distinct records one worker batch syncs (default: 500)', batchSize))
    .addOption(
      parsedOption(
        '--settle <seconds>',
        `gather events this long after the first pending one, then start a batch when the platform budget allows, 0: at once (env SVC_SETTLE_S, default: ${DEFAULT_SETTLE_S})`,
        (raw) => settleSeconds(raw, '--settle'),
      ),
    )
    .option('--application <name...>', "sync only events of these applications (the fundraising platform's name); others are answered 200 and recorded ignored (default: every application)")
    .option('--public-without-secret', 'listen beyond loopback although no SVC_WEBHOOK_SECRET is set: anyone who reaches the port can post events (env SVC_WEBHOOK_PUBLIC_WITHOUT_SECRET)')
    .addHelpText('after', SERVE_HELP)
    // The work in its own chunk: --help and option errors never load it.
    .action(async (opts: ServeCommandOptions, c: Command) => (await import('./serveRun.js')).serveAction(opts, c, setExit));
}

import type { Command } from 'commander';
import { createHash } from 'node:crypto';
import { ConfigError } from '../../model/errors.js';
import { echo } from '../../config/echo.js';
import { probePlatformApi } from '../../sync/compose.js';
import { createEngineProcessor } from '../../webhook/processor.js';
import { DEFAULT_SERVE, serve } from '../../webhook/serve.js';
import { settingsOf } from '../../config/load.js';
import { DEFAULT_SETTLE_S, settleSeconds, webhookSettings } from '../../config/webhookSettings.js';
import { EXIT, exitOfSignal } from '../../model/errors.js';
import { runCommand, type SetExit } from '../runner.js';
import { helpAfter } from '../helpText.js';
import { whereLines, whereOf } from '../where.js';
import { parsedOption } from './optionRules.js';
import type { LogSink } from '../../config/log.js';

/** As commander hands them over, parsed (optionRules.ts). */
interface ServeCommandOptions {
  port: number;
  host: string;
  path: string;
  queue?: string;
  queueUrl?: string;
  batchSize?: number;
  /** --settle in ms. */
  settle?: number;
  application?: string[];
}

function port(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new ConfigError(`--port ${echo(raw)}: must be a port number from 0 to 65535`);
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
    'GET /healthz answers 503 while the queue is unreachable; GET /metrics serves Prometheus metrics.',
    'With SVC_ADMIN_TOKEN set, GET /status shows a status page for a browser (sign in with the token).',
    'With SVC_QUEUE_URL, a batch claimed by a receiver that dies is claimed again after SVC_QUEUE_LEASE_S (default 60).',
  ],
  examples: ['SVC_WEBHOOK_SECRET=... svc-sync serve --port 8080'],
});

export function serveCommand(program: Command, setExit: SetExit): void {
  program
    .command('serve')
    .description("receive the platform's webhooks: store each event durably, then sync in coalesced batches")
    .addOption(parsedOption('--port <n>', 'port to listen on', port, { value: DEFAULT_SERVE.port, shown: String(DEFAULT_SERVE.port) }))
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
    .addHelpText('after', SERVE_HELP)
    .action((opts: ServeCommandOptions, c: Command) =>
      runCommand(
        c,
        setExit,
        async (ctx) => {
          const settings = settingsOf(ctx.raw);
          const path = opts.path.startsWith('/') ? opts.path.replace(/\/+$/, '') || '/' : `/${opts.path}`;
          const size = opts.batchSize;
          const settleMs = opts.settle ?? settings.webhook.settleMs;
          // A serve log is read later: every line carries its time, on a terminal too. --quiet keeps warnings and errors.
          const log: LogSink = (line, level = 'info') => void ((ctx.globals.quiet && level === 'info') || ctx.out.log(level, line, true));
          const { queue } = webhookSettings(ctx.raw, { path: opts.queue, url: opts.queueUrl });
          // The shared budget is keyed by a hash of the API URL and key: the key itself is never stored.
          const budgetKey = createHash('sha256').update(`${settings.platform.apiUrl}\n${settings.platform.apiKey}`).digest('hex').slice(0, 32);
          // A wrong base URL would fail every event: refuse to start (exit 2). An API that is only
          // down for now is no reason to drop webhooks: events are stored and synced once it answers.
          const check = await probePlatformApi(settings.platform);
          if (!check.ok && check.notPlatform) throw new ConfigError(check.message);
          if (!check.ok && check.error.fatal) throw check.error;
          if (!check.ok) log(`svc-sync serve: warning: the platform API did not answer at start (${check.message}); events are stored and synced once it does`, 'warn');
          const service = await serve({
            processor: ({ sharedBudget, metrics, stop }) =>
              createEngineProcessor(settings, {
                batchSize: size,
                onNote: (text) => log(text),
                platform: {
                  stop,
                  onRequest: (info) => metrics.platformRequest(info),
                  onBudget: (b) => metrics.platformBudget(b),
                  sharedBudget: sharedBudget?.(budgetKey),
                },
                onBatch: ({ report, crmCalls }) => metrics.engineBatch(report, crmCalls),
              }),
            host: opts.host,
            port: opts.port,
            path,
            queue,
            secret: settings.webhook.secret,
            adminToken: settings.webhook.adminToken,
            batchSize: size,
            settleMs,
            applications: opts.application,
            siteId: settings.platform.siteId,
            log,
          });
          // Which site and org, once serving (a start problem stays one line); the org's id is known once the first batch logs in.
          const where = whereOf(ctx.raw, ctx.sources, undefined);
          for (const line of whereLines(where)) log(line);
          const by = await service.closed;
          // Everything was said on stderr while serving; --json gets the one document it promises.
          // Stopped by a signal: 130 / 143, as every command (a service manager reads it).
          const status = by === undefined ? EXIT.OK : exitOfSignal(by);
          return { status, result: { command: 'serve', where, ...(by ? { stoppedBy: by } : {}) }, warnings: [] };
        },
        { connections: 'deployment' },
      ),
    );
}

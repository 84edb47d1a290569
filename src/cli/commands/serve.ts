import type { Command } from 'commander';
import { ConfigError } from '../../model/errors.js';
import { echo } from '../../config/echo.js';
import { DEFAULT_SERVE, serve } from '../../webhook/serve.js';
import { serveConnections } from './serveConnections.js';
import { settingsOf } from '../../config/load.js';
import { checkPublicWithoutSecret, checkWebhookSecret, DEFAULT_SETTLE_S, settleSeconds, webhookSettings } from '../../config/webhookSettings.js';
import { EXIT, exitOfSignal } from '../../model/errors.js';
import { runCommand, type SetExit } from '../runner.js';
import { helpAfter } from '../helpText.js';
import { whereLines, whereOf } from '../where.js';
import { parsedOption } from './optionRules.js';
import type { LogSink } from '../../config/log.js';
import { bool, secretValue } from '../../config/values.js';
import { checkListenHost } from '../../config/listenHost.js';

/** As commander hands them over, parsed (optionRules.ts). */
interface ServeCommandOptions {
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
    .action((opts: ServeCommandOptions, c: Command) =>
      runCommand(
        c,
        setExit,
        async (ctx) => {
          // Without "connections": the settings checked first, in the order they always were.
          if (!ctx.deployment.named) settingsOf(ctx.raw);
          // Deployment-wide: the queue, the settle window, the admin token (a connection may not set them).
          const top = ctx.deployment.named ? ctx.deployment.top : ctx.raw;
          const hooks = webhookSettings(top, { path: opts.queue, url: opts.queueUrl });
          const path = opts.path.startsWith('/') ? opts.path.replace(/\/+$/, '') || '/' : `/${opts.path}`;
          const size = opts.batchSize;
          const settleMs = opts.settle ?? hooks.settleMs;
          // The flag, else SVC_PORT: a container's HEALTHCHECK reads the same variable.
          const listen = opts.port ?? (top.SVC_PORT === undefined ? DEFAULT_SERVE.port : port(top.SVC_PORT, 'SVC_PORT:'));
          // A serve log is read later: every line carries its time, on a terminal too. --quiet keeps warnings and errors.
          const log: LogSink = (line, level = 'info') => void ((ctx.globals.quiet && level === 'info') || ctx.out.log(level, line, true));
          // Every connection (or the one --connection names), probed and given its processor.
          const chosen = ctx.deployment.named && ctx.connection.name !== undefined ? [ctx.connection] : ctx.deployment.connections;
          // A guessable secret of any of them refuses the start before a probe, a queue or a port.
          for (const c of chosen) checkWebhookSecret(c.raw, ctx.deployment.named ? c.name : undefined);
          const unsigned = chosen.filter((c) => secretValue(c.raw, 'SVC_WEBHOOK_SECRET') === undefined).map((c) => (ctx.deployment.named ? c.name : undefined));
          checkPublicWithoutSecret(opts.host, unsigned, opts.publicWithoutSecret === true || bool(top, 'SVC_WEBHOOK_PUBLIC_WITHOUT_SECRET'));
          // Before the queue is made or locked: a host it cannot listen on leaves nothing behind.
          await checkListenHost(opts.host);
          const connections = await serveConnections(chosen, ctx.deployment.connections, log, { batchSize: size });
          const service = await serve({
            connections,
            host: opts.host,
            port: listen,
            path,
            queue: hooks.queue,
            adminToken: hooks.adminToken,
            batchSize: size,
            settleMs,
            applications: opts.application,
            log,
          });
          // Which site and org, once serving (a start problem stays one line); the org's id is known once the first batch logs in.
          const wheres = chosen.map((c) => ({ name: c.name, where: whereOf(c.raw, c.sources, undefined) }));
          for (const w of wheres) for (const line of whereLines(w.where)) log(w.name === undefined ? line : `connection ${w.name}: ${line}`);
          const by = await service.closed;
          // Everything was said on stderr while serving; --json gets the one document it promises.
          // Stopped by a signal: 130 / 143, as every command (a service manager reads it).
          const status = by === undefined ? EXIT.OK : exitOfSignal(by);
          const where = ctx.deployment.named ? { connections: Object.fromEntries(wheres.map((w) => [w.name ?? '', w.where])) } : { where: wheres[0]?.where };
          return { status, result: { command: 'serve', ...where, ...(by ? { stoppedBy: by } : {}) }, warnings: [] };
        },
        { connections: 'deployment' },
      ),
    );
}

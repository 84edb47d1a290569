/** `serve`'s work, loaded when the command runs (serve.ts declares it). */
import type { Command } from 'commander';
import { DEFAULT_SERVE } from '../../webhook/serveDefaults.js';
import { serve } from '../../webhook/serve.js';
import { serveConnections } from './serveConnections.js';
import { settingsOf } from '../../config/load.js';
import { wholeDeployment } from '../../config/connections.js';
import { checkPublicWithoutSecret, checkWebhookSecret, webhookSettings } from '../../config/webhookSettings.js';
import { EXIT, exitOfSignal } from '../../model/errors.js';
import { runCommand, type SetExit } from '../runner.js';
import { whereLines, whereOf } from '../where.js';
import type { LogSink } from '../../config/log.js';
import { bool, secretValue } from '../../config/values.js';
import { checkListenHost } from '../../config/listenHost.js';
import { port, type ServeCommandOptions } from './serve.js';

export function serveAction(opts: ServeCommandOptions, c: Command, setExit: SetExit): Promise<void> {
  return runCommand(
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
      const connections = await serveConnections(chosen, ctx.deployment.connections, log, { batchSize: size, stateRoot: wholeDeployment(ctx.deployment).stateDir });
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
  );
}

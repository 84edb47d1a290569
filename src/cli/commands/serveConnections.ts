/**
 * `serve`'s connections (issue 31): each with its own settings, processor, platform key and
 * shared-budget key, Salesforce login and allowance guard, saved platform profile and log lines;
 * the start-up probe of each platform (a fatal problem of any connection refuses the start, naming
 * it); and the guard that keeps two connections off one org (OrgGuard, sync/connection.ts).
 */
import { createHash } from 'node:crypto';
import type { ConnectionConfig } from '../../config/connections.js';
import { redact, settingsOf } from '../../config/load.js';
import type { LogSink } from '../../config/log.js';
import { DEFAULT_SYNC_LOG, type Settings } from '../../config/settings.js';
import { ConfigError, describeError, isFatal } from '../../model/errors.js';
import { claimOrg } from '../../config/orgRecord.js';
import { probePlatformApi, profileFileFor, projectionAtStart, type ProjectionChoice } from '../../sync/compose.js';
import type { ServeConnection } from '../../webhook/lanes.js';
import { createEngineProcessor } from '../../webhook/worker/processor.js';
import { LogRetention } from '../../webhook/worker/logRetention.js';
import { composeConnection, OrgGuard } from '../../sync/connection.js';

/** What serve needs of one connection of the deployment. */
type ConnectionInput = Pick<ConnectionConfig, 'name' | 'raw' | 'stateDir'>;

/** The shared budget is keyed by a hash of the API URL and key: the key itself is never stored. */
const budgetKeyOf = (s: Settings): string => createHash('sha256').update(`${s.platform.apiUrl}\n${s.platform.apiKey}`).digest('hex').slice(0, 32);

/**
 * A wrong base URL or a refused key would fail every event of that connection: refuse to start
 * (exit 2), naming the connection. An API that is only down for now is no reason to drop webhooks.
 */
async function probe(name: string | undefined, settings: Settings, log: LogSink): Promise<void> {
  const check = await probePlatformApi(settings.platform);
  const who = name === undefined ? '' : `connection ${name}: `;
  if (!check.ok && check.notPlatform) throw new ConfigError(`${who}${check.message}`);
  if (!check.ok && check.error.fatal) {
    if (name === undefined) throw check.error;
    throw new ConfigError(`${who}${check.message}`);
  }
  if (!check.ok) log(`svc-sync serve: warning: ${who}the platform API did not answer at start (${check.message}); events are stored and synced once it does`, 'warn');
}

/**
 * SVC_PROJECTION npc|auto: the org guard before serve listens, so an org that cannot take the
 * gifts refuses the start (exit 2, naming the connection) rather than failing every event.
 * Salesforce only out of reach for now is no reason to drop webhooks: the first batch asks.
 */
async function guardProjection(name: string | undefined, settings: Settings, log: LogSink, profileFile: string): Promise<ProjectionChoice | undefined> {
  const who = name === undefined ? '' : `connection ${name}: `;
  let choice: ProjectionChoice | undefined;
  try {
    // The org verdict sits beside the connection's state, where its `sync` keeps it.
    choice = await projectionAtStart(settings, undefined, profileFile);
  } catch (error) {
    if (error instanceof ConfigError && name !== undefined) throw new ConfigError(`${who}${error.message}`, error.actions);
    if (error instanceof ConfigError || isFatal(error)) throw error;
    log(`svc-sync serve: warning: ${who}the org could not be checked for the gift projection at start (${describeError(error)}); the first batch checks it`, 'warn');
    return undefined;
  }
  if (choice !== undefined) log(`svc-sync serve: ${who}gifts: ${choice.resolved}${choice.setting === 'auto' ? ` (SVC_PROJECTION=auto: ${choice.reason})` : ''}`);
  return choice;
}

interface Tuning {
  batchSize?: number | undefined;
  /** The deployment's state folder (the org's shared allowance readings). */
  stateRoot: string;
}

/** Each connection probed (in the file's order) and given its processor; throws on the first fatal problem. */
export async function serveConnections(list: readonly ConnectionInput[], all: readonly ConnectionInput[], log: LogSink, tuning: Tuning): Promise<ServeConnection[]> {
  const named = list.some((c) => c.name !== undefined);
  const guard = new OrgGuard(log);
  // Every connection's secrets, as in a command's output: one site's key never shows in another's records.
  const mask = (text: string): string => all.reduce((t, c) => redact(t, c.raw), text);
  const out: ServeConnection[] = [];
  for (const c of list) {
    const settings = settingsOf(c.raw, { ...(c.name === undefined ? {} : { connection: c.name }), stateRoot: tuning.stateRoot });
    await probe(c.name, settings, log);
    const profileFile = profileFileFor(undefined, c.stateDir);
    const projection = await guardProjection(c.name, settings, log, profileFile);
    const name = c.name;
    const say: LogSink = name === undefined || !named ? log : (line, level) => log(`connection ${name}: ${line}`, level);
    const budgetKey = budgetKeyOf(settings);
    out.push({
      name,
      siteId: settings.platform.siteId,
      secret: settings.webhook.secret,
      // The connection's composition, built here once and handed down whole (sync/connection.ts).
      processor: ({ sharedBudget, metrics, stop }) => {
        const connection = composeConnection(settings, {
          onNote: (text) => say(text),
          platform: {
            stop,
            onRequest: (info) => metrics.platformRequest(info),
            onBudget: (b) => metrics.platformBudget(b),
            sharedBudget: sharedBudget?.(budgetKey),
            // The connection's saved profile (sync keeps it in the connection's state folder).
            profileFile,
            ...(projection === undefined ? {} : { projection }),
          },
          // Checked (and recorded) as the commands check it: the state folder's org and site, and one
          // org per connection of the deployment.
          admitOrg: (org) => guard.admit(name, () => claimOrg(all, c, org, true, { warn: (w) => log(`svc-sync serve: warning: ${w}`, 'warn'), siteId: c.raw.SVC_SITE_ID })),
        });
        // The sync log's daily clean-up, as sync runs it: the day's mark in the connection's state folder.
        const retention = new LogRetention({ settings: settings.salesforce.log ?? DEFAULT_SYNC_LOG, stateDir: c.stateDir, say: (line, level) => say(mask(line), level) });
        return createEngineProcessor(connection, { batchSize: tuning.batchSize, onBatch: ({ report, crmCalls }) => metrics.engineBatch(report, crmCalls), redact: mask, retention });
      },
    });
  }
  return out;
}

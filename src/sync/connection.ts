/**
 * One `serve` connection's composition (issue 52): built once per connection, in one place
 * (cli/commands/serveConnections.ts), and handed down whole. The worker's processor takes what it
 * needs from it (the deps of each batch, the owner ids, the org check, the note line) and never
 * reaches back up to build a platform client, a sink or the owner ids file itself.
 */
import path from 'node:path';
import type { LogSink } from '../config/log.js';
import type { Settings } from '../config/settings.js';
import { messageOf } from '../model/errors.js';
import { createEngine, depsPerBatch, platformBudget, type Deps, type DepsFactory, type OnNote, type OrgIdentity, type PlatformExtras } from './compose.js';
import type { EngineOptions, SyncEngine } from './mirror/engine.js';
import { OwnerIds, ownersFileIn } from './mirror/ownerIds.js';

export interface ConnectionComposition {
  /** Per batch: a fresh platform source over the kept client, the kept sink, the gift writer. */
  deps: DepsFactory;
  /** The batch's engine over the batch's deps, the gift writer's hooks included. */
  engine: (deps: Deps, opts: EngineOptions) => SyncEngine;
  /** The platform's latest budget figures, as a batch's deps last saw them. */
  budget: typeof platformBudget;
  /** Whose fields each action's owner fields hold (sync's and serve's record, beside the profile). */
  ownerIds: OwnerIds;
  /** Called with the org once logged in, before anything is written: throws to refuse it (another connection's org). */
  admitOrg?: ((org: OrgIdentity | undefined) => void) | undefined;
  /** The connection's notes (rate-limit waits, the org's log), one line each. */
  onNote?: OnNote | undefined;
}

interface ConnectionParts {
  onNote?: OnNote | undefined;
  /** Metrics hooks, the shared budget, the connection's saved profile, the gift choice at start. */
  platform?: PlatformExtras | undefined;
  admitOrg?: ConnectionComposition['admitOrg'];
}

/** The composition of one connection; the owner ids file sits beside the platform profile, when there is one. */
export function composeConnection(settings: Settings, parts: ConnectionParts = {}): ConnectionComposition {
  const profileFile = parts.platform?.profileFile;
  return {
    deps: depsPerBatch(settings, parts.onNote, parts.platform),
    engine: (deps, opts) => createEngine(deps, opts),
    budget: platformBudget,
    ownerIds: new OwnerIds(profileFile === undefined ? undefined : ownersFileIn(path.dirname(profileFile))),
    admitOrg: parts.admitOrg,
    onNote: parts.onNote,
  };
}

/**
 * A state folder of another org or site (issue 47, row 1), or two connections on one org (issue 31, item 5): the eight objects carry no site and two sites'
 * ids may be the same numbers, so two connections writing one org would overwrite each other's
 * records. Each connection's org is known once it has logged in (its first batch); the check is
 * the commands' own (`claim`: config/orgRecord.ts, the orgs other connections recorded and the
 * ones reached in this process). A connection refused is paused before it writes anything: its
 * events wait, and one error line names both connections (once, not at every retry).
 */
export class OrgGuard {
  /** Connections already said to be paused. */
  private readonly said = new Set<string>();

  constructor(private readonly log: LogSink) {}

  /** Runs the check; a refusal is logged once for the connection and thrown on (the batch fails, the events wait). */
  admit(connection: string | undefined, claim: () => void): void {
    const key = connection ?? '';
    try {
      claim();
      this.said.delete(key);
    } catch (error) {
      if (!this.said.has(key)) {
        this.said.add(key);
        const paused = connection === undefined ? 'its events wait' : `connection ${connection} is paused`;
        this.log(`svc-sync serve: error: ${messageOf(error)}; ${paused} and nothing is written for it`, 'error');
      }
      throw error;
    }
  }
}

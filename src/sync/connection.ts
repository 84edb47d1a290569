/**
 * One `serve` connection's composition (issue 52): built once per connection, in one place
 * (cli/commands/serveConnections.ts), and handed down whole. The worker's processor takes what it
 * needs from it (the deps of each batch, the owner ids, the org check, the note line) and never
 * reaches back up to build a platform client, a sink or the owner ids file itself.
 */
import path from 'node:path';
import type { Settings } from '../config/settings.js';
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

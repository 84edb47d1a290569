/**
 * Whose user fields each action's owner fields hold: the user id a run read (or kept) them from,
 * recorded by `sync` and `serve` in the connection's state folder (owners.json). Two platform users
 * may share one email, so the email an action carries in Salesforce does not say whose fields it
 * holds; serve keeps the mirror's owner fields only when this record names the same user.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SyncEngine } from './engine.js';
import { keyFor } from '../../model/refs.js';
import { writePrivateFile } from '../../model/privateFile.js';

const OWNERS_FILE = 'owners.json';

/** The owners file of a state folder. */
export const ownersFileIn = (stateDir: string): string => path.join(stateDir, OWNERS_FILE);

export class OwnerIds {
  private ids = new Map<number, number>();
  /** This process's changes not yet saved (null: forgotten): merged into the file as it is then. */
  private readonly pending = new Map<number, number | null>();
  /** The file's modification time when read: another process (sync beside serve) may write it. */
  private readAt = -1;

  /** Loads `file` (none, unreadable or not ours: nothing known, every owner is read). */
  constructor(private readonly file: string | undefined) {
    this.refresh();
  }

  /** Reads the file again when another process wrote it since; this process's changes stay on top. */
  refresh(): this {
    if (this.file === undefined) return this;
    const mtime = mtimeOf(this.file);
    if (mtime === this.readAt) return this;
    this.readAt = mtime;
    this.ids = readOwners(this.file);
    for (const [action, user] of this.pending) {
      if (user === null) this.ids.delete(action);
      else this.ids.set(action, user);
    }
    return this;
  }

  /** The user whose fields the action's owner fields hold, when known. */
  get(actionId: number): number | undefined {
    return this.ids.get(actionId);
  }

  /** A run's owners: those settled on an action written or unchanged are known; any other action it met is not. */
  record(engine: Pick<SyncEngine, 'ownersSeen' | 'ownersSettled' | 'report'>): this {
    for (const pair of engine.ownersSeen()) this.set(pair.actionId, null);
    for (const s of engine.ownersSettled()) {
      const action = engine.report.outcomeOf(keyFor('action', s.actionId))?.action;
      if (action === 'insert' || action === 'update' || action === 'unchanged') this.set(s.actionId, s.userId);
    }
    return this;
  }

  private set(actionId: number, userId: number | null): void {
    this.pending.set(actionId, userId);
    if (userId === null) this.ids.delete(actionId);
    else this.ids.set(actionId, userId);
  }

  /**
   * This process's changes merged into the file as it is now (another process's entries kept),
   * written atomically, readable by its owner only. A folder that cannot be written loses nothing
   * but reads of users.
   */
  save(): void {
    if (this.file === undefined || this.pending.size === 0) return;
    this.refresh();
    try {
      writePrivateFile(this.file, JSON.stringify({ owners: Object.fromEntries(this.ids) }));
      this.pending.clear();
      this.readAt = mtimeOf(this.file);
    } catch {
      // Kept pending: the next save tries again.
    }
  }
}

const mtimeOf = (file: string): number => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

function readOwners(file: string): Map<number, number> {
  const ids = new Map<number, number>();
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { owners?: unknown };
    const owners = data.owners !== null && typeof data.owners === 'object' ? (data.owners as Record<string, unknown>) : {};
    for (const [action, user] of Object.entries(owners)) {
      if (/^[1-9]\d*$/.test(action) && Number.isSafeInteger(user)) ids.set(Number(action), user as number);
    }
  } catch {
    // Nothing known: the owners are read from the platform.
  }
  return ids;
}

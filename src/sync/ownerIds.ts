/**
 * Whose user fields each action's owner fields hold: the user id a run read (or kept) them from,
 * recorded by `sync` and `serve` in the connection's state folder (owners.json). Two platform users
 * may share one email, so the email an action carries in Salesforce does not say whose fields it
 * holds; serve keeps the mirror's owner fields only when this record names the same user.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SyncEngine } from './engine.js';
import { keyFor } from '../model/refs.js';

const OWNERS_FILE = 'owners.json';

/** The owners file of a state folder. */
export const ownersFileIn = (stateDir: string): string => path.join(stateDir, OWNERS_FILE);

export class OwnerIds {
  private readonly ids = new Map<number, number>();
  private dirty = false;

  /** Loads `file` (none, unreadable or not ours: nothing known, every owner is read). */
  constructor(private readonly file: string | undefined) {
    if (file === undefined) return;
    try {
      const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { owners?: unknown };
      const owners = data.owners !== null && typeof data.owners === 'object' ? (data.owners as Record<string, unknown>) : {};
      for (const [action, user] of Object.entries(owners)) {
        if (/^[1-9]\d*$/.test(action) && Number.isSafeInteger(user)) this.ids.set(Number(action), user as number);
      }
    } catch {
      // Nothing known: the owners are read from the platform.
    }
  }

  /** The user whose fields the action's owner fields hold, when known. */
  get(actionId: number): number | undefined {
    return this.ids.get(actionId);
  }

  /** A run's owners: those settled on an action written or unchanged are known; any other action it met is not. */
  record(engine: Pick<SyncEngine, 'ownersSeen' | 'ownersSettled' | 'report'>): this {
    for (const pair of engine.ownersSeen()) this.dirty = this.ids.delete(pair.actionId) || this.dirty;
    for (const s of engine.ownersSettled()) {
      const action = engine.report.outcomeOf(keyFor('action', s.actionId))?.action;
      if (action !== 'insert' && action !== 'update' && action !== 'unchanged') continue;
      this.ids.set(s.actionId, s.userId);
      this.dirty = true;
    }
    return this;
  }

  /** Written atomically, readable by its owner only; a folder that cannot be written loses nothing but reads. */
  save(): void {
    if (this.file === undefined || !this.dirty) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(tmp, JSON.stringify({ owners: Object.fromEntries(this.ids) }), { mode: 0o600 });
      fs.renameSync(tmp, this.file);
      this.dirty = false;
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  }
}

/**
 * serve's share of the sync log's retention: the daily clean-up `sync` runs (run
 * records and resolved errors past their days, each connection its own) runs for a serve too, so
 * a deployment that only serves does not grow its log for ever. Started after a batch (or a retry
 * poll) has found the log there, at most once a day per connection: the day's mark is the file
 * `sync` keeps beside its state, so a sync and a serve of one connection share it. It runs beside
 * the batches, never awaited by one; each of its calls is bounded as the batch's are (the
 * Salesforce timeout, 5 s more after a stop), and its failure is said and tried again later.
 */
import path from 'node:path';
import type { SyncLogSettings } from '../../config/settings.js';
import { messageOf } from '../../model/errors.js';
import type { SyncLogPort } from '../../model/syncLog.js';
import { retentionIfDue } from '../../sync/run/runLog.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

interface LogRetentionOptions {
  settings: SyncLogSettings;
  /** The connection's state folder: the day's mark (salesforce-log.json) lives there, as sync's does. */
  stateDir: string;
  /** The connection's lines (prefixed with its name when serve runs several). */
  say: (line: string, level?: 'info' | 'warn') => void;
  now?: () => number;
}

export class LogRetention {
  private running: Promise<void> | undefined;
  /** Before this time nothing is asked, not even the day's mark read: a batch costs nothing more. */
  private nextAt = 0;
  private readonly now: () => number;

  constructor(private readonly o: LogRetentionOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Starts the day's clean-up over this log when it is due; returns at once. */
  due(log: SyncLogPort): void {
    if (this.running !== undefined || this.now() < this.nextAt) return;
    this.running = this.run(log).finally(() => (this.running = undefined));
  }

  /** The clean-up in flight, if any (a test, or a stop that would wait for it). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(log: SyncLogPort): Promise<void> {
    const started = this.now();
    try {
      const done = await retentionIfDue(log, this.o.settings, path.join(this.o.stateDir, 'state.json'), started);
      // Not due: done today already (by a sync of this connection, or before a restart); the mark
      // is looked at again in an hour, in case it was removed.
      this.nextAt = started + (done === undefined ? HOUR_MS : DAY_MS);
      if (done === undefined) return;
      if (done.kept !== undefined) this.o.say(done.kept, 'warn');
      if (done.deleted > 0)
        this.o.say(`salesforce log: retention deleted ${done.deleted} old record(s) (runs past ${this.o.settings.runRetentionDays} days, resolved errors past ${this.o.settings.errorRetentionDays})`);
    } catch (error) {
      // The batches go on; the clean-up is tried again in an hour, not at every batch.
      this.nextAt = started + HOUR_MS;
      this.o.say(`salesforce log: retention failed (${messageOf(error)}); tried again in an hour`, 'warn');
    }
  }
}

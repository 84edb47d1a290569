/**
 * The sync log in Salesforce as the engine's side sees it (issue 30): what a run hands the log
 * writer at its end, and what the writer answers. The objects themselves are crm/syncLogSchema.ts.
 */
import type { RecordOutcome } from './outcomes.js';

/** Commands that write the mirror, and so a run record. */
export type LoggedCommand = 'sync' | 'object' | 'replay' | 'audit' | 'serve' | 'keys qualify';
export type RunOutcomeName = 'Succeeded' | 'Partial' | 'Failed' | 'Interrupted' | 'Refused';

export interface RunEntry {
  /** RunKey__c: unique per run, so a retried write never makes a second record. */
  key: string;
  command: LoggedCommand;
  startedAt: string;
  finishedAt: string;
  outcome: RunOutcomeName;
  counts: { inserted: number; updated: number; unchanged: number; failed: number; deleted: number };
  platformRequests: number;
  salesforceCalls: number;
  /** The run's summary as the terminal shows it, secrets masked. */
  summary: string;
}

/** What the run did to records: its failures, and the last outcome of any key (resolving errors). */
export interface RunOutcomes {
  failures: readonly RecordOutcome[];
  outcomeOf(key: string): { action: RecordOutcome['action']; reason?: string | undefined } | undefined;
}

/** What became of the log for one run: one line for a person, and the figures for --json. */
export type LogResult =
  | {
      status: 'written';
      calls: number;
      opened: number;
      resolved: number;
      open: number;
      runWritten: boolean;
      failedErrors: number;
      /** Fields the org lacks (its log set up before they were added), found in this run: written without them, and how to add them. */
      lacking?: string;
    }
  | { status: 'off' | 'dry-run'; calls: 0 }
  /** The org lacks the objects (the org setup is not deployed): named, with the command that adds them. */
  | { status: 'missing'; calls: number; missing: string[]; message: string }
  | { status: 'failed'; calls: number; message: string };

/** What a clean-up deleted; `kept` says why no run record was deleted (a shared org whose log cannot tell the sites' runs apart). */
export interface RetentionDone {
  deleted: number;
  failed: number;
  calls: number;
  kept?: string;
}

/** The log writer as the engine's side uses it (crm/syncLog.ts implements it). */
export interface SyncLogPort {
  /** Keys of Open errors an admin ticked RetryRequested__c on, and of Ignored ones (never retried); or why the log cannot be read. */
  retryRequested(): Promise<{ keys: string[]; ignored: string[] } | { result: LogResult }>;
  /** Unticks RetryRequested__c on these errors, each with why it cannot be retried (Message__c); never throws. */
  refuseRetries(refused: ReadonlyArray<{ key: string; reason: string }>): Promise<void>;
  /** The run record and the error records that change, at the end of a run. */
  record(run: RunEntry, outcomes: RunOutcomes, redact: (text: string) => string): Promise<LogResult>;
  /** Deletes Resolved errors resolved before `errorsBefore` and runs finished before `runsBefore` (ISO date-times). */
  retention(errorsBefore: string, runsBefore: string): Promise<RetentionDone>;
  /** Salesforce calls the log made so far. */
  calls(): number;
}

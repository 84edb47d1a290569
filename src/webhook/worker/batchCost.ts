/**
 * What the webhook batches cost: per batch (platform requests, per event, the budget the platform
 * reported after it) and in total since the worker started. For the batch log line and /healthz.
 */
import { counted } from '../../model/counted.js';
import type { BudgetLeft } from './batchPolicy.js';

/** The figures one batch adds to the worker's BatchReport. */
export interface BatchCost {
  requests?: number;
  requestsPerEvent?: number;
  budgetLeft?: { hour?: number | undefined; minute?: number | undefined };
}

/** What /healthz shows of the batches: the last one and the totals since the worker started. */
export interface BatchStats<Report> {
  settleMs: number;
  /** Why the worker is holding back, while it is. */
  waiting?: string | undefined;
  batches: number;
  events: number;
  requests: number;
  requestsPerEvent?: number;
  last?: Report;
}

const perEvent = (requests: number, events: number): number => (events > 0 ? Math.round((requests / events) * 1000) / 1000 : 0);

export class BatchLedger<Report extends BatchCost & { events: number }> {
  private readonly totals: BatchStats<Report>;

  constructor(settleMs: number) {
    this.totals = { settleMs, batches: 0, events: 0, requests: 0 };
  }

  set waiting(why: string | undefined) {
    this.totals.waiting = why;
  }

  /** Adds the batch's cost to its report and to the totals; returns the log line's tail. */
  note(report: Report, requests: number | undefined, budget: BudgetLeft | undefined): string {
    if (requests !== undefined) {
      report.requests = requests;
      report.requestsPerEvent = perEvent(requests, report.events);
      this.totals.requests += requests;
    }
    if (budget !== undefined) report.budgetLeft = { hour: budget.remainingHour, minute: budget.remainingMinute };
    this.totals.batches += 1;
    this.totals.events += report.events;
    this.totals.requestsPerEvent = perEvent(this.totals.requests, this.totals.events);
    this.totals.last = report;
    let text = '';
    if (report.requests !== undefined) text += `, ${counted(report.requests, 'platform request')} (${report.requestsPerEvent ?? 0} per event)`;
    if (report.budgetLeft !== undefined) text += `, budget left ${report.budgetLeft.hour ?? '?'}/h ${report.budgetLeft.minute ?? '?'}/min`;
    return text;
  }

  stats(): BatchStats<Report> {
    return { ...this.totals, ...(this.totals.last === undefined ? {} : { last: { ...this.totals.last } }) };
  }
}

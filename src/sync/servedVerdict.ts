/**
 * `serve`'s org guard (after issue 51): the verdict kept for a day (gifts/orgVerdictFile.ts), taken as
 * the commands take it (keptGuard.ts) and held by the process, so a batch makes no describe and
 * no record-type read while it holds. None kept: the org is checked once (the start's check is
 * that once) and the verdict kept. It is checked again a day after it was made, when the login
 * reaches another org, and after a write failed as a describe would explain (the file dropped).
 */
import type { Settings } from '../config/settings.js';
import { keptGuard, type KeptGuard } from './keptGuard.js';

type Choice = KeptGuard['choice'];

/** The org the login reached (crm/sink.ts). */
interface Org {
  instanceUrl: string;
  orgId?: string;
}

interface Held {
  guard: KeptGuard;
  /** The org it was made for: a login that reaches another asks again. */
  org: string;
  /** When it is a day old (ms): the commands would check the org again, so does serve. */
  until: number;
  /** A write failed as a describe would explain: the file is gone, and this with it. */
  dropped: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const orgKey = (org: Org): string => `${org.orgId ?? ''} ${org.instanceUrl}`;

export class ServedVerdict {
  private held: Promise<Held> | undefined;
  /** The start's check (before serve listened), taken by the first batch that finds none kept. */
  private start: { choice: Choice; at: number } | undefined;

  /** `stateFile`: the connection's (the verdict sits beside it, where its `sync` keeps it). */
  constructor(
    private readonly settings: Settings,
    private readonly stateFile: string,
    start?: Choice,
  ) {
    if (start !== undefined) this.start = { choice: start, at: Date.now() };
  }

  /** The batch's guard. `ask`: the guard's describes, made only when nothing holds and nothing is kept. */
  async forBatch(org: Org, ask: () => Promise<Choice>): Promise<KeptGuard> {
    const last = this.held;
    if (last !== undefined) {
      const held = await last.catch(() => undefined);
      if (held !== undefined && !held.dropped && held.org === orgKey(org) && Date.now() < held.until) return held.guard;
      if (this.held === last) this.held = undefined;
    }
    this.held ??= this.load(org, ask).catch((error: unknown) => {
      // A refusal or a failed describe is asked again by the next batch.
      this.held = undefined;
      throw error;
    });
    return (await this.held).guard;
  }

  private async load(org: Org, ask: () => Promise<Choice>): Promise<Held> {
    const start = this.start;
    this.start = undefined;
    const fromStart = start !== undefined && Date.now() - start.at < DAY_MS ? start : undefined;
    const askedAt = fromStart?.at ?? Date.now();
    // The start kept its verdict if it could: taken again here, it is not written a second time.
    const guard = fromStart
      ? await keptGuard(this.settings, () => Promise.resolve(fromStart.choice), org, this.stateFile, false, false)
      : await keptGuard(this.settings, ask, org, this.stateFile, false);
    const hooks = guard.verdict;
    const held: Held = { guard, org: orgKey(org), until: (guard.keptAt ?? askedAt) + DAY_MS, dropped: false };
    // Dropped (the org changed since it was checked): the next batch checks the org again.
    const drop = (): void => {
      held.dropped = true;
      hooks?.drop();
    };
    if (hooks) held.guard = { ...guard, verdict: { ...hooks, drop } };
    return held;
  }
}

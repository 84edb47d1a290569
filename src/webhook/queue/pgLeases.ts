/**
 * The leases of this process's claims in the PostgreSQL queue: renewed every third of the lease,
 * so a receiver that dies stops renewing and another claims its records after the lease. A renewal
 * that finds its claim gone (taken over after a stall) stops renewing and says so.
 */
import type { LogSink } from '../../config/log.js';
export class ClaimLeases {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    /** Renews a claim's lease; resolves to the rows still held under the token. */
    private readonly renew: (token: string) => Promise<number>,
    private readonly leaseMs: number,
    private readonly log: LogSink,
    private readonly messageOf: (error: unknown) => string,
  ) {}

  hold(token: string): void {
    const renew = (): void => {
      this.renew(token).then(
        (held) => {
          if (held === 0 && this.timers.has(token)) {
            this.log('webhook queue: a claim was taken over by another receiver (its lease ran out); its outcome will not be recorded here', 'warn');
            this.drop(token);
          }
        },
        (error: unknown) => this.log(`webhook queue: could not renew a claim: ${this.messageOf(error)}`, 'warn'),
      );
    };
    const timer = setInterval(renew, Math.max(100, Math.floor(this.leaseMs / 3)));
    timer.unref();
    this.timers.set(token, timer);
  }

  drop(token: string): void {
    const timer = this.timers.get(token);
    if (timer !== undefined) clearInterval(timer);
    this.timers.delete(token);
  }

  dropAll(): void {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
  }
}

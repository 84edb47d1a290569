/**
 * A state folder of another org or site (issue 47, row 1), or two connections on one org (issue 31, item 5): the eight objects carry no site and two sites'
 * ids may be the same numbers, so two connections writing one org would overwrite each other's
 * records. Each connection's org is known once it has logged in (its first batch); the check is
 * the commands' own (`claim`: config/orgRecord.ts, the orgs other connections recorded and the
 * ones reached in this process). A connection refused is paused before it writes anything: its
 * events wait, and one error line names both connections (once, not at every retry).
 */
import type { LogSink } from '../../config/log.js';
import { messageOf } from '../../model/errors.js';

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

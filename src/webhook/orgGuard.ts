/**
 * Two connections on one org (issue 31, item 5): the eight objects carry no site and two sites'
 * ids may be the same numbers, so two connections writing one org would overwrite each other's
 * records. Each connection's org is known once it has logged in (its first batch): the first
 * connection to reach an org holds it; a second one reaching the same org is refused before it
 * writes anything, its events wait (paused), and one error line names both connections.
 */
import type { LogSink } from '../config/log.js';
import { ConfigError } from '../model/errors.js';
import type { OrgIdentity } from '../sync/compose.js';

export class OrgGuard {
  /** Org id -> the connection that reached it first. */
  private readonly holders = new Map<string, string>();
  /** Pairs already said, so the line is written once, not at every retry. */
  private readonly said = new Set<string>();

  constructor(private readonly log: LogSink) {}

  /** Throws (a ConfigError) when another connection already holds this org. */
  admit(connection: string, org: OrgIdentity | undefined): void {
    const id = org?.orgId;
    if (id === undefined) return;
    const holder = this.holders.get(id);
    if (holder === undefined || holder === connection) {
      this.holders.set(id, connection);
      return;
    }
    const reason =
      `connections ${holder} and ${connection} reach the same Salesforce org ${id}: the objects carry no site and ids of two sites may be the same numbers, ` +
      `so one would overwrite the other's records; ${connection} is paused and nothing is written for it: give it an org of its own`;
    if (!this.said.has(connection)) {
      this.said.add(connection);
      this.log(`svc-sync serve: error: ${reason}`, 'error');
    }
    throw new ConfigError(reason);
  }
}

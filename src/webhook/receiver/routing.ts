/**
 * Which connection a webhook belongs to (issue 31): by the path (`<path>/<name>`), else by the
 * body's site_id (the connection whose SVC_SITE_ID it is). With no "connections" in the config
 * there is one implicit connection and every webhook is its own, as before connections existed.
 *
 * Secrets may differ per connection. Before the body is read, a request must carry the secret of
 * the connection its path names, or (no name in the path) of some connection; once the body says
 * which connection it is, that connection's secret must be the one given. Compared in constant
 * time in the secret's content (both sides hashed to equal-length digests).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { classifyEvent, type ClassifyOptions, type EventIntent } from '../../sync/input/webhookEvents.js';
import type { WebhookMessage } from '../../sync/input/webhookMessage.js';

/** One connection as the receiver sees it. */
export interface RouteTarget {
  /** undefined: the one implicit connection of a config without "connections". */
  name: string | undefined;
  siteId?: number | undefined;
  /** SVC_WEBHOOK_SECRET of the connection; undefined or '': none required. */
  secret?: string | undefined;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant time in the secret's content: both sides are hashed to equal-length digests first. */
function secretMatches(expected: Buffer, given: string | undefined): boolean {
  if (given === undefined || given === '') return false;
  return timingSafeEqual(expected, digest(given));
}

interface Target {
  name: string | undefined;
  siteId: number | undefined;
  expected: Buffer | undefined;
}

/** Where a routed event goes: its stored connection ('' for the implicit one, or none) and what is done with it. */
interface Routed {
  connection: string;
  intent: EventIntent;
}

export class ConnectionRouter {
  private readonly targets: Target[];
  private readonly byName = new Map<string, Target>();
  /** The config has "connections": a webhook names its connection by site or path. */
  readonly named: boolean;

  constructor(
    targets: readonly RouteTarget[],
    private readonly classify: Pick<ClassifyOptions, 'applications'> = {},
  ) {
    this.targets = targets.map((t) => ({ name: t.name, siteId: t.siteId, expected: t.secret ? digest(t.secret) : undefined }));
    for (const t of this.targets) if (t.name !== undefined) this.byName.set(t.name, t);
    this.named = this.byName.size > 0;
  }

  /** Some connection requires a secret (the path may then end in one). */
  get secretSet(): boolean {
    return this.targets.some((t) => t.expected !== undefined);
  }

  /** Whether a path segment is a connection's name. */
  isName(segment: string): boolean {
    return this.byName.has(segment);
  }

  /** Before the body: the secrets given (header, path) are the named connection's, or some connection's. */
  admits(name: string | undefined, given: ReadonlyArray<string | undefined>): boolean {
    const candidates = name === undefined ? this.targets : [this.byName.get(name)].filter((t): t is Target => t !== undefined);
    // Every candidate is checked (no early exit): the time taken does not say which one matched.
    let ok = false;
    for (const t of candidates) if (this.accepts(t, given)) ok = true;
    return ok;
  }

  private accepts(t: Target, given: ReadonlyArray<string | undefined>): boolean {
    if (t.expected === undefined) return true;
    const expected = t.expected;
    let ok = false;
    for (const g of given) if (secretMatches(expected, g)) ok = true;
    return ok;
  }

  /**
   * The connection of a parsed event and what is done with it; 'secret' when the secret given is
   * not the one of the connection the event belongs to (answered 401, nothing stored).
   */
  route(message: WebhookMessage, name: string | undefined, given: ReadonlyArray<string | undefined>): Routed | 'secret' {
    if (!this.named) {
      const only = this.targets[0];
      return { connection: '', intent: classifyEvent(message, { ...this.classify, siteId: only?.siteId }) };
    }
    const site = message.siteId;
    const target = name !== undefined ? this.byName.get(name) : site === undefined ? (this.targets.length === 1 ? this.targets[0] : undefined) : this.targets.find((t) => t.siteId === site);
    if (target === undefined) return { connection: '', intent: { kind: 'ignored', reason: this.noConnection(site) } };
    if (!this.accepts(target, given)) return 'secret';
    const key = target.name ?? '';
    if (site !== undefined && target.siteId !== undefined && site !== target.siteId) {
      return { connection: key, intent: { kind: 'ignored', reason: `site ${site} is not connection ${key}'s site (SVC_SITE_ID ${target.siteId})` } };
    }
    return { connection: key, intent: classifyEvent(message, { ...this.classify, siteId: target.siteId }) };
  }

  private noConnection(site: number | undefined): string {
    const sites = this.targets.map((t) => `${t.siteId ?? '?'} (${t.name ?? ''})`).join(', ');
    if (site === undefined) return `no site_id and no connection named in the path: cannot tell which connection it is (sites ${sites})`;
    return `site ${site} is no connection's site (sites ${sites})`;
  }
}

/**
 * Whether a collection's list records carry every key the mapping reads that its by-id records
 * carry: learned, or a saved claim confirmed, by comparing list records with by-id records.
 *
 * A partial list payload leaves a key out of every list record; an optional value is absent here
 * and there. A key some list record carries is not left out, so a list on which every key read
 * shows up settles it at no cost. A key no list record carries is looked for in records fetched by
 * id, spread over the records at hand: one that has it proves the lists partial. While it stays
 * unseen more are fetched, SHAPE_SAMPLES in all (carried over from page to page and, through the
 * profile, from run to run), or every record of a smaller list; until then every record of a page is among those read by id, so nothing is
 * handed out from a list that could be partial. A key carried by 1 record in 10 stays unseen in
 * 44 random records less than 1 time in 100 (0.9^44).
 */
import { RESOURCES, type ApiRecord, type ResourceType } from '../model/apiRecords.js';
import type { CollectionProfile } from '../model/platformProfile.js';

/** By-id records that settle a key as absent from the records themselves, not from the lists. */
const SHAPE_SAMPLES = 44;
/** By-id sample requests in flight at once (the client's pacer bounds them further). */
const SAMPLE_ROUND = 4;

/** What the learner lends the shape check: the collection's profile and the ways to keep and say what is learned. */
export interface ShapeHost {
  collection(type: ResourceType): CollectionProfile;
  changed(): void;
  tell(text: string): void;
  pageSizeOf(type: ResourceType): number;
}

interface ShapeCheck {
  /** Keys read that no list record of the collection has carried in this run. */
  unseen: Set<string>;
  /** Records fetched by id in this run to look for them. */
  sampled: Set<number>;
  /** Records earlier runs fetched by id without finding one (small incremental pages add up). */
  before: ReadonlySet<number>;
}

/** `count` records of `records`, evenly spread over them (all when there are no more). */
function spread<T>(records: readonly T[], count: number): T[] {
  if (count >= records.length) return [...records];
  if (count <= 0) return [];
  return Array.from({ length: count }, (_, i) => records[Math.floor(((i + 0.5) * records.length) / count)] as T);
}

export class ListShape {
  private readonly checks: Partial<Record<ResourceType, ShapeCheck>> = {};
  /** Collections whose "complete" claim comes from a saved profile and is not confirmed in this run yet. */
  private readonly toConfirm: Set<string>;

  constructor(
    private readonly host: ShapeHost,
    private readonly keysRead: (type: ResourceType) => readonly string[],
    savedComplete: readonly string[],
  ) {
    this.toConfirm = new Set(savedComplete);
  }

  /** Whether records at hand would be looked at: the shape is not settled (or confirmed) in this run yet. */
  open(type: ResourceType): boolean {
    const list = this.host.collection(type).list;
    return list === undefined || (list === 'complete' && this.toConfirm.has(RESOURCES[type].path));
  }

  /** Whether learning would sample records by id after these list records: keys read that none of them carries. */
  wouldSample(type: ResourceType, listed: readonly ApiRecord[]): boolean {
    if (this.host.collection(type).list !== undefined) return false;
    const unseen = this.checks[type]?.unseen ?? this.keysRead(type);
    return [...unseen].some((k) => listed.every((r) => !Object.hasOwn(r, k)));
  }

  /**
   * Looks at list records (`total`: the size of the unfiltered list they come from, when they do).
   * `byIdOf` fetches one record by id (kept in the run's cache, so a partial collection pays once).
   */
  async look(type: ResourceType, listed: readonly ApiRecord[], byIdOf: (id: number) => Promise<ApiRecord | undefined>, total?: number): Promise<void> {
    if (listed.length === 0 || !this.open(type)) return;
    const path = RESOURCES[type].path;
    const profile = this.host.collection(type);
    const check = (this.checks[type] ??= { unseen: new Set(this.keysRead(type)), sampled: new Set(), before: new Set(profile.sampled ?? []) });
    for (const k of [...check.unseen]) if (listed.some((r) => Object.hasOwn(r, k))) check.unseen.delete(k);
    if (check.unseen.size === 0) {
      this.toConfirm.delete(path);
      if (profile.list !== 'complete') this.settle(type, 'complete');
      return;
    }
    const fresh = listed.filter((r) => !check.sampled.has(r.id) && !check.before.has(r.id));
    if (profile.list === 'complete') {
      // A saved claim: the one-record check that learned it, once per collection and run.
      this.toConfirm.delete(path);
      const found = await this.sample(check, spread(fresh, 1), byIdOf);
      if (found.length > 0) this.partial(type, found, ', though the saved platform profile said they were complete');
      return;
    }
    const found = await this.sample(check, spread(fresh, SHAPE_SAMPLES - check.before.size - check.sampled.size), byIdOf);
    if (found.length > 0) return this.partial(type, found);
    const whole = total !== undefined && check.sampled.size >= total;
    const count = check.before.size + check.sampled.size;
    if (!whole && count < SHAPE_SAMPLES) {
      // Not settled yet (a small filtered page): the next run goes on from here, with other records.
      profile.sampled = [...check.before, ...check.sampled];
      return this.host.changed();
    }
    this.settle(type, 'complete');
    const keys = [...check.unseen].join(', ');
    this.host.tell(
      whole
        ? `list pages of ${path} carry no ${keys}, nor does any of their ${total} records by id: the list pages are complete`
        : `list pages of ${path} carry no ${keys}, nor do ${count} of their records by id, spread over the list: taken as complete (a key on 1 record in 10 would show 99 times in 100)`,
    );
  }

  /** Fetches the picks by id a few at a time, until one has a key no list record carries: those keys. */
  private async sample(check: ShapeCheck, picks: readonly ApiRecord[], byIdOf: (id: number) => Promise<ApiRecord | undefined>): Promise<string[]> {
    for (let i = 0; i < picks.length; i += SAMPLE_ROUND) {
      const round = picks.slice(i, i + SAMPLE_ROUND);
      for (const r of round) check.sampled.add(r.id);
      const records = await Promise.all(round.map((r) => byIdOf(r.id)));
      const found = [...check.unseen].filter((k) => records.some((r) => r !== undefined && Object.hasOwn(r, k)));
      if (found.length > 0) return found;
    }
    return [];
  }

  private settle(type: ResourceType, list: 'complete' | 'partial', missing: string[] = []): void {
    const profile = this.host.collection(type);
    profile.list = list;
    delete profile.sampled;
    if (missing.length > 0) profile.missing = missing;
    else delete profile.missing;
    this.host.changed();
  }

  private partial(type: ResourceType, missing: string[], contradicted = ''): void {
    this.settle(type, 'partial', missing);
    const plural = RESOURCES[type].path;
    this.host.tell(
      `list pages of ${plural} lack ${missing.join(', ')} (the by-id records have them)${contradicted}: each record of ${plural} is fetched by id, 1 request a record instead of 1 per ${this.host.pageSizeOf(type)}`,
    );
  }
}

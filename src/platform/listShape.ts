/**
 * Whether a collection's list records carry every key the mapping reads that its by-id records
 * carry: learned, or a saved claim confirmed, by comparing list records with by-id records.
 *
 * A partial list payload leaves a key out of every list record; an optional value is absent here
 * and there. A key some list record carries is not left out, so a list on which every key read
 * shows up settles it at no cost (a key read in alternative forms, `a|b`, shows up in any of
 * them). A key no list record carries is looked for in records read by id, on the run's budget:
 * a tenth of the list pages the run reads (one at least), shared by the collections that need
 * samples, each of which may take one sample a run regardless (what finds a partial payload at
 * once). The pool grows as the run reads: list pages read so far plus the pages the scan at
 * hand has still to read (its first page's total_pages), never an estimate of lists it may not
 * read. A collection gets at most its own list pages a run, first at its look (before its records
 * are written), then, what the pool could not cover then, at later looks of the run. By-id reads
 * the run makes anyway count too, at no cost. Records are taken from the lists meanwhile; the
 * evidence adds up in the profile from run to run until SHAPE_SAMPLES records (or every record of
 * a smaller collection) have been read by id without the key. A record by id that has it proves
 * the lists partial: from then on the collection is read by id, and the records taken from its
 * lists since the check began are read again (profile `reread`).
 */
import { RESOURCES, type ApiRecord, type ResourceType } from '../model/apiRecords.js';
import { shownIn, type CollectionProfile } from '../model/platformProfile.js';

/** By-id records that settle a key as absent from the records themselves: a key on 1 record in 10 stays unseen in 44 less than 1 time in 100 (0.9^44). */
const SHAPE_SAMPLES = 44;
/** By-id sample requests in flight at once (the client's pacer bounds them further). */
const SAMPLE_ROUND = 4;
/** Verification spends at most this share of the list pages a run reads (a collection's own, under `sampleEach`). */
const BUDGET_SHARE = 0.1;
/** A saved claim confirmed this long ago is confirmed again (a profile lives a day at most anyway). */
export const CONFIRM_AGE_MS = 24 * 3_600_000;

/** What the learner lends the shape check: the collection's profile and the ways to keep and say what is learned. */
export interface ShapeHost {
  collection(type: ResourceType): CollectionProfile;
  changed(): void;
  tell(text: string): void;
  pageSizeOf(type: ResourceType): number;
  /** List pages this run has read so far (what the run's budget is a share of). */
  pagesRead(): number;
}

type ById = (id: number) => Promise<ApiRecord | undefined>;

interface ShapeCheck {
  /** Keys read that no list record of the collection has carried (this run, or the runs before while unsettled). */
  unseen: Set<string>;
  /** Whether `unseen` comes from this run's list records (else from the profile: no list record seen yet). */
  fromLists: boolean;
  /** Records read by id in this run to look for them (the budget's spending). */
  sampled: Set<number>;
  /** Records read by id in this run anyway (parents, webhook records): evidence at no cost. */
  anyway: Set<number>;
  /** Records earlier runs read by id without finding one. */
  before: ReadonlySet<number>;
  /** The collection's size as this run knows it (its unfiltered total, else the profile's, else what was listed). */
  size: number;
  /** Ids this run's list records hold, not read by id yet: where later samples of the run come from. */
  candidates: number[];
  /** How the collection's records are read by id (kept for samples later in the run). */
  byIdOf?: ById;
}

/** Whether a record carries a key read (any of its `|` forms). */
export const carries = (record: object, key: string): boolean => key.split('|').some((k) => Object.hasOwn(record, k));
/** A key read as a person reads it: `entity_type or project_id`. */
const named = (keys: Iterable<string>): string => [...keys].map((k) => k.split('|').join(' or ')).join(', ');

/** `count` records of `records`, evenly spread over them (all when there are no more). */
function spread<T>(records: readonly T[], count: number): T[] {
  if (count >= records.length) return [...records];
  if (count <= 0) return [];
  return Array.from({ length: count }, (_, i) => records[Math.floor(((i + 0.5) * records.length) / count)] as T);
}

export class ListShape {
  private readonly checks = new Map<ResourceType, ShapeCheck>();
  /** By-id requests this run has spent (or holds) on verification: what its budget is held against. */
  private spent = 0;
  /** Whether samples for earlier collections are being read (one such pass at a time). */
  private toppingUp = false;
  /** Collections whose "complete" claim comes from a saved profile and is not confirmed within the last day. */
  private readonly toConfirm: Set<string>;
  /** Collections whose "complete" claim this run has held against list records (once a run: it is free). */
  private readonly looked = new Set<string>();

  /**
   * `sampling`: whether this process may spend requests on samples (serve's later batches start
   * from the profile its first batch learned: they add what they read anyway, nothing more).
   * `sampleEach`: each collection has a budget of its own pages (doctor, which probes one page of
   * each: a shared pool of a tenth of those would leave most collections unlooked at).
   */
  constructor(
    private readonly host: ShapeHost,
    private readonly keysRead: (type: ResourceType) => readonly string[],
    savedComplete: readonly string[],
    private readonly sampling = true,
    private readonly sampleEach = false,
  ) {
    this.toConfirm = new Set(savedComplete);
  }

  /** Whether records at hand would be looked at: the shape is not settled, or its claim not held against this run's lists yet. */
  open(type: ResourceType): boolean {
    const list = this.host.collection(type).list;
    const path = RESOURCES[type].path;
    return list === undefined || (list === 'complete' && (this.toConfirm.has(path) || (this.sampling && !this.looked.has(path))));
  }

  /** Whether learning would sample records by id after these list records: keys read that none of them carries. */
  wouldSample(type: ResourceType, listed: readonly ApiRecord[]): boolean {
    if (this.host.collection(type).list !== undefined || !this.sampling) return false;
    const unseen = this.checks.get(type)?.unseen ?? this.keysRead(type);
    return [...unseen].some((k) => listed.every((r) => !carries(r, k)));
  }

  /**
   * The run's check of a collection. Keys are looked for afresh on this run's list records (a list
   * may have changed); a by-id record met before any list record is held against the keys earlier
   * runs' lists lacked (`profile.unseen`).
   */
  private checkOf(type: ResourceType, fromLists = true): ShapeCheck {
    const profile = this.host.collection(type);
    const check = this.checks.get(type) ?? {
      unseen: new Set(fromLists || profile.list !== undefined ? this.keysRead(type) : (profile.unseen ?? [])),
      fromLists,
      sampled: new Set(),
      anyway: new Set(),
      before: new Set(profile.sampled ?? []),
      size: profile.records ?? 0,
      candidates: [],
    };
    this.checks.set(type, check);
    if (fromLists && !check.fromLists) [check.unseen, check.fromLists] = [new Set(this.keysRead(type)), true];
    return check;
  }

  /**
   * Looks at list records (`total`: the size of the unfiltered list they come from, when they do;
   * `ahead`: list pages the scan they come from has still to read, which the budget counts).
   * `byIdOf` fetches one record by id (kept in the run's cache, so a partial collection pays once).
   * Then what the budget has grown to since is spent on collections looked at before.
   */
  async look(type: ResourceType, listed: readonly ApiRecord[], byIdOf: ById, total?: number, ahead = 0): Promise<void> {
    if (listed.length > 0 && this.open(type)) await this.lookAt(type, listed, byIdOf, total, ahead);
    await this.topUp(ahead);
  }

  private async lookAt(type: ResourceType, listed: readonly ApiRecord[], byIdOf: ById, total: number | undefined, ahead: number): Promise<void> {
    const path = RESOURCES[type].path;
    const profile = this.host.collection(type);
    const check = this.checkOf(type);
    for (const k of [...check.unseen]) if (listed.some((r) => carries(r, k))) check.unseen.delete(k);
    this.looked.add(path);
    if (check.unseen.size === 0) {
      this.toConfirm.delete(path);
      if (profile.list !== 'complete') this.settle(type, 'complete');
      return;
    }
    const fresh = listed.filter((r) => this.unread(check, r.id)).map((r) => r.id);
    if (profile.list === 'complete') {
      // Keys the records themselves lack (learned by samples) missing again cost nothing while the
      // claim is under a day old; a key missing that the lists carried is a change: one record by id.
      const absent = new Set(profile.unseen ?? []);
      if (!this.toConfirm.has(path) && [...check.unseen].every((k) => absent.has(k))) return;
      this.toConfirm.delete(path);
      const found = await this.sample(check, spread(fresh, 1), byIdOf);
      if (found.length > 0) return this.partial(type, found, ', though the saved platform profile said they were complete');
      profile.checkedAt = new Date().toISOString();
      return this.host.changed();
    }
    Object.assign(check, { size: Math.max(total ?? listed.length, profile.records ?? 0), candidates: fresh, byIdOf });
    const found = await this.sample(check, spread(fresh, this.allowance(type, check, ahead)), byIdOf);
    if (found.length > 0) return this.partial(type, found);
    this.weigh(type, check, total);
  }

  /** Not read by id in this run or the runs before. */
  private unread(check: ShapeCheck, id: number): boolean {
    return !check.sampled.has(id) && !check.anyway.has(id) && !check.before.has(id);
  }

  /**
   * Samples for collections looked at earlier in the run, from what the budget has grown to since
   * (a collection scanned first meets a pool of one page's worth; one later in the run, of many).
   */
  private async topUp(ahead: number): Promise<void> {
    if (!this.sampling || this.sampleEach || this.toppingUp) return;
    this.toppingUp = true;
    try {
      for (const [type, check] of this.checks) {
        if (this.host.collection(type).list !== undefined || check.unseen.size === 0 || check.byIdOf === undefined) continue;
        const picks = spread(
          check.candidates.filter((id) => this.unread(check, id)),
          this.allowance(type, check, ahead),
        );
        if (picks.length === 0) continue;
        const found = await this.sample(check, picks, check.byIdOf);
        if (found.length > 0) this.partial(type, found, '', true);
        else this.weigh(type, check, undefined, false);
      }
    } finally {
      this.toppingUp = false;
    }
  }

  /** The run's budget: a tenth of the list pages it has read and the scan at hand will read, one at least. */
  private pool(ahead: number): number {
    return Math.max(1, Math.floor(BUDGET_SHARE * (this.host.pagesRead() + ahead)));
  }

  /**
   * More by-id samples the run may spend on a collection now: what is left of the run's budget,
   * up to the collection's own list pages a run. A collection that fits on one list page may
   * instead be read whole when the budget left covers it: a few requests now settle it, where
   * one a run would spend the same over as many runs, taking records unverified meanwhile.
   */
  private allowance(type: ResourceType, check: ShapeCheck, ahead: number): number {
    if (!this.sampling) return 0;
    const pages = Math.max(1, Math.ceil(check.size / this.host.pageSizeOf(type)));
    if (this.sampleEach) return Math.max(1, Math.floor(BUDGET_SHARE * pages)) - check.sampled.size;
    // A collection's first sample of a run goes out even when the pool is spent: one record by id
    // finds a partial payload (a key left out of every list record) before its records are written
    // from the lists; a shared pool of one would leave the later collections of a small run unread.
    const left = Math.max(this.pool(ahead) - this.spent, check.sampled.size === 0 ? 1 : 0);
    const evidence = check.before.size + check.sampled.size + check.anyway.size;
    const unread = check.size - evidence;
    const cap = pages === 1 && unread <= left ? check.sampled.size + unread : pages;
    return Math.max(0, Math.min(cap - check.sampled.size, left, SHAPE_SAMPLES - evidence));
  }

  /** After samples found nothing: settled when enough records were read by id, else the evidence so far is kept and its risk said. */
  private weigh(type: ResourceType, check: ShapeCheck, total?: number, sayRisk = true): void {
    const path = RESOURCES[type].path;
    const profile = this.host.collection(type);
    const count = check.before.size + check.sampled.size + check.anyway.size;
    const size = total ?? profile.records;
    const whole = size !== undefined && count >= size;
    const keys = named(check.unseen);
    if (whole || count >= SHAPE_SAMPLES) {
      this.settle(type, 'complete', [], [...check.unseen]);
      this.host.tell(
        whole
          ? `list pages of ${path} carry no ${keys}, nor does any of their ${count} records by id: the list pages are complete`
          : `list pages of ${path} carry no ${keys}, nor do ${count} of their records by id, spread over the list: taken as complete (a key on 1 record in 10 would show 99 times in 100)`,
      );
      return;
    }
    profile.sampled = [...check.before, ...check.sampled, ...check.anyway];
    profile.unseen = [...check.unseen];
    profile.listedSince ??= new Date().toISOString();
    this.host.changed();
    if (!sayRisk) return;
    this.host.tell(
      `list pages of ${path} carry no ${keys}, nor do ${count} of their records read by id so far (a key on 1 record in 10 would have shown ${shownIn(count)} times in 100): ` +
        `records are taken from the lists meanwhile; the next runs read a few more by id until ${size !== undefined && size < SHAPE_SAMPLES ? `all ${size}` : SHAPE_SAMPLES} have none, and read them all again by id if one has`,
    );
  }

  /**
   * A record the run read by id anyway (a parent not on the lists, a webhook's record, a 404
   * check): evidence for an unsettled collection at no cost. One that carries a key its lists do
   * not proves them partial.
   */
  noteById(type: ResourceType, record: ApiRecord): void {
    const profile = this.host.collection(type);
    if (profile.list !== undefined || (!this.checks.has(type) && profile.unseen === undefined)) return;
    const check = this.checkOf(type, false);
    if (check.unseen.size === 0 || check.sampled.has(record.id) || check.before.has(record.id) || check.anyway.has(record.id)) return;
    const found = [...check.unseen].filter((k) => carries(record, k));
    if (found.length > 0) return this.partial(type, found);
    check.anyway.add(record.id);
    this.weigh(type, check, undefined, false);
  }

  /** Fetches the picks by id a few at a time, until one has a key no list record carries: those keys. */
  private async sample(check: ShapeCheck, picks: readonly number[], byIdOf: ById): Promise<string[]> {
    // Held against the budget before the requests go out: looks running at once share it.
    this.spent += picks.length;
    for (let i = 0; i < picks.length; i += SAMPLE_ROUND) {
      const round = picks.slice(i, i + SAMPLE_ROUND);
      for (const id of round) check.sampled.add(id);
      const records = await Promise.all(round.map((id) => byIdOf(id)));
      const found = [...check.unseen].filter((k) => records.some((r) => r !== undefined && carries(r, k)));
      if (found.length > 0) {
        this.spent -= picks.length - i - round.length;
        return found;
      }
    }
    return [];
  }

  /** `absent`: keys read that the records themselves lack (a complete claim's lists may lack them at no cost). */
  private settle(type: ResourceType, list: 'complete' | 'partial', missing: string[] = [], absent: string[] = []): void {
    const profile = this.host.collection(type);
    profile.list = list;
    profile.checkedAt = new Date().toISOString();
    delete profile.sampled;
    delete profile.listedSince;
    if (absent.length > 0) profile.unseen = absent;
    else delete profile.unseen;
    if (missing.length > 0) profile.missing = missing;
    else delete profile.missing;
    this.host.changed();
  }

  /** `later`: found after the collection's scan took its records: the next run reads them again. */
  private partial(type: ResourceType, missing: string[], contradicted = '', later = false): void {
    const profile = this.host.collection(type);
    if (profile.list === 'partial') return;
    // Records taken from its lists while unsettled (or under a claim now contradicted) may lack the key: read again.
    const since = profile.listedSince ?? (profile.list === 'complete' ? (profile.checkedAt ?? new Date(0).toISOString()) : undefined);
    this.settle(type, 'partial', missing);
    const plural = RESOURCES[type].path;
    if (since !== undefined) profile.reread = since;
    this.host.changed();
    this.host.tell(
      `list pages of ${plural} lack ${named(missing)} (the by-id records have them)${contradicted}: each record of ${plural} is fetched by id, 1 request a record instead of 1 per ${this.host.pageSizeOf(type)}` +
        (since === undefined ? '' : `; the ${plural} taken from list pages since ${since} are read again by id and written right${later ? ' by the next sync' : ''}`),
    );
  }
}

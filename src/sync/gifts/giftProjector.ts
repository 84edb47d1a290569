/**
 * The gift projection inside a run (PROJECTION.md §0, §6.5): after the mirror wrote a batch of
 * donations, the same donations are projected, and what became of them joins the run's report
 * under keys of their own (`Donation_20:gift`), so a projection failure is its own failed record
 * (exit 1, an error record in the sync log), never a failed mirror write.
 */
import type { GiftSettings } from '../../config/settings.js';
import type { ApiDonation } from '../../model/apiRecords.js';
import type { CrmError } from '../../model/crmRecords.js';
import { describeError, InterruptedError, isFatal } from '../../model/errors.js';
import type { GiftObject } from '../../model/objects.js';
import type { GiftSink } from '../../model/ports.js';
import { FileDonorLinks } from './donorLinksFile.js';
import type { MatchedBy } from './donorContext.js';
import { failureLine, recordMessage, type BatchProjection, type DonationProjection, type ProjectionRow, type RowAction } from './outcome.js';
import { ProjectedGifts } from './projectedFile.js';
import { KnownCampaigns } from './campaignState.js';
import { projectBatch } from './projectBatch.js';
import { refreshCampaigns } from './campaignRefresh.js';
import { readNpspLookups, readOrgLookups, type NpspLookups, type OrgLookups } from './recordTypes.js';
import { npspNames, npspTarget } from '../../mapping/gifts/npspTarget.js';
import { describeWouldExplain } from './orgVerdictFile.js';
import type { RunReport } from '../report/report.js';
import type { Changes } from '../../model/outcomes.js';
import { moveOwnerSlots, ownerChanged, type SlotMove } from './ownerSlots.js';
import type { GiftTarget } from '../../mapping/gifts/target.js';
import { NPC_TARGET } from '../../mapping/gifts/npcTarget.js';

type RowCounts = Record<RowAction, number>;
type DonorCounts = Record<'matched' | 'new' | 'ambiguous', number>;

/** §1.3's decisions in three classes: an Account found, one created, one created beside several found. */
const DONOR_CLASS: Readonly<Record<MatchedBy, keyof DonorCounts>> = {
  link: 'matched',
  key: 'matched',
  'email+name': 'matched',
  new: 'new',
  noKey: 'new',
  anonymousPool: 'new',
  ambiguous: 'ambiguous',
};
const emptyRows = (): RowCounts => ({ insert: 0, update: 0, unchanged: 0, delete: 0, skip: 0, fail: 0 });

/** What `--json` carries under `projection`. */
export interface ProjectionSummary {
  model: GiftTarget['model'];
  donations: number;
  /** Per object: records inserted, updated, unchanged, deleted, skipped and failed (a dry run: would be). */
  objects: Partial<Record<GiftObject, RowCounts>>;
  gifts: RowCounts;
  /** One line each: donation, stage, object, key, code, message. */
  failures: string[];
  skipped: Array<{ donation: string; reason: string }>;
  ambiguousDonors: Array<{ donation: string; candidates: string[] }>;
  /** The donors (gift donors and fundraisers) by decision, each Account once: found, created, or created beside several found. */
  donors: DonorCounts;
  /** Salesforce calls the projection made (beyond the mirror's). */
  salesforceCalls: number;
  /** A dry run: per donation, the donor decision and the gift it would write. */
  decisions?: DonationProjection[];
  /** A dry run: the fundraiser slots that would move because their page's owner changed. */
  softCreditMoves?: SlotMove[];
}

interface GiftProjectorOptions {
  sink: GiftSink;
  /** The donation model written (default Nonprofit Cloud). */
  model?: GiftTarget['model'] | undefined;
  /** NPSP: how refunds are written, as the org guard decided (P2; default `stage`). */
  refundMode?: 'stage' | 'payments' | undefined;
  settings: GiftSettings;
  dryRun: boolean;
  /** The donor links file (beside the run state); a dry run reads it and never writes it. */
  linksFile: string;
  /** What was projected per donation (beside the run state), likewise. */
  projectedFile: string;
  /** The campaigns known written and current (beside the run state), likewise. */
  campaignsFile: string;
  /** The site the run's records carry, when a donation does not say. */
  siteId: () => number | undefined;
  /** A campaign whose page is proven gone from the platform: kept inactive (goneFix.ts). */
  pageGone?: ((campaignKey: string) => boolean) | undefined;
  /** What projectors of one process share (serve: a projector a batch): the record types, read once. */
  shared?: SharedLookups | undefined;
  /** A command's kept org verdict: the record types join it; a failure a describe would explain drops it. */
  verdict?: VerdictHooks | undefined;
}

/** A command's kept org verdict: what is read once joins it; a failure a describe would explain drops it. */
export interface VerdictHooks {
  keepRecordTypes: (rt: OrgLookups) => void;
  keepNpspLookups: (l: NpspLookups) => void;
  drop: () => void;
}

/** The Account record types and the org's currency, read once and kept while they answer. */
export interface SharedLookups {
  recordTypes?: Promise<OrgLookups> | undefined;
  /** NPSP's record types and currency, kept with NPSP's verdict. */
  npsp?: Promise<NpspLookups> | undefined;
}

export class GiftProjector {
  private readonly shared: SharedLookups;
  private readonly links: FileDonorLinks;
  private readonly projected: ProjectedGifts;
  private readonly campaigns: KnownCampaigns;
  private target: GiftTarget;
  private readonly summaryNow: ProjectionSummary = {
    model: 'npc',
    donations: 0,
    objects: {},
    gifts: emptyRows(),
    failures: [],
    skipped: [],
    ambiguousDonors: [],
    donors: { matched: 0, new: 0, ambiguous: 0 },
    salesforceCalls: 0,
  };
  /** Donor keys counted already: an Account is counted once, however many gifts it has. */
  private readonly donorsSeen = new Set<string>();
  private warned = false;
  /** A full run (`sync --all`): every donation compared with the org, the digests not trusted. */
  private compareAll = false;

  constructor(private readonly opts: GiftProjectorOptions) {
    this.links = FileDonorLinks.open(opts.linksFile);
    this.projected = ProjectedGifts.open(opts.projectedFile);
    this.campaigns = KnownCampaigns.open(opts.campaignsFile, opts.settings.timeZone);
    this.shared = opts.shared ?? {};
    this.target = opts.model === 'npsp' ? this.npspTargetWith(undefined) : NPC_TARGET;
    this.summaryNow.model = this.target.model;
    if (opts.dryRun) this.summaryNow.decisions = [];
  }

  /**
   * A full run, `object` and `replay` compare every donation's records with the org, as the mirror
   * compares its rows: a gift or soft credit an admin deleted comes back, and the decisions the
   * mirror's rows drive (campaign, fundraiser) are made again. Incremental runs and serve trust
   * the digests of donations unchanged since.
   */
  compareEveryDonation(): void {
    this.compareAll = true;
    this.campaigns.trusted = false;
  }

  /** Projects donations the mirror has just written; every outcome goes to `report`. */
  async project(donations: readonly ApiDonation[], report: RunReport): Promise<void> {
    if (!this.warned) for (const problem of [this.links.problem, this.projected.problem, this.campaigns.problem]) if (problem !== undefined) report.warn(problem);
    this.warned = true;
    const digests = new Map(donations.map((d) => [d.id, ProjectedGifts.digest(d, this.opts.settings)] as const));
    // A donation projected as it is now, with nothing left to do: not read or written again (§6.3).
    const todo = this.compareAll ? [...donations] : donations.filter((d) => !this.projected.done(`Donation_${d.id}`, digests.get(d.id) as string));
    const pending = new Set(todo);
    this.unchanged(
      donations.filter((d) => !pending.has(d)),
      report,
    );
    if (todo.length === 0) return;
    const before = this.opts.sink.calls().total;
    try {
      const lookups = await this.lookups();
      const s = this.opts.settings;
      const siteId = todo.find((d) => typeof d.site_id === 'number')?.site_id ?? this.opts.siteId() ?? 0;
      const out = await projectBatch(todo, {
        sink: this.opts.sink,
        target: this.target,
        siteId,
        dryRun: this.opts.dryRun,
        timeZone: s.timeZone,
        anonymousLastName: s.anonymousLastName,
        matchEmailAndName: s.matchEmailAndName,
        orgCurrency: lookups.currency,
        recordTypes: lookups.recordTypes,
        links: this.links,
        campaigns: this.campaigns,
        pageGone: this.opts.pageGone,
      });
      this.absorb(out, report);
      const failed = new Set(out.failures.map((f) => f.donation));
      for (const d of todo) {
        const key = `Donation_${d.id}`;
        if (failed.has(key)) this.projected.forget(key);
        else this.projected.set(key, digests.get(d.id) as string);
      }
    } catch (error) {
      if (error instanceof InterruptedError || isFatal(error) || (error instanceof Error && error.name === 'AbortError')) throw error;
      // A read or a setup the whole batch needs failed: each donation's projection fails, the mirror stands.
      this.shared.recordTypes = undefined;
      this.shared.npsp = undefined;
      const failed: CrmError = { code: 'PROJECTION_FAILED', message: describeError(error) };
      const out: BatchProjection = { donations: [], rows: [], failures: [], warnings: [] };
      for (const d of todo) {
        const donation = `Donation_${d.id}`;
        this.projected.forget(donation);
        out.donations.push({ donation, gift: 'fail', reason: failed.code, warnings: [] });
        out.failures.push({ donation, stage: 'gift', object: this.target.gift.object, key: donation, error: failed });
      }
      this.absorb(out, report);
    } finally {
      this.summaryNow.salesforceCalls += this.opts.sink.calls().total - before;
      if (!this.opts.dryRun && !this.links.save()) report.warn(`donor links ${this.links.file} could not be written: the next run finds the donors again by key and email`);
      if (!this.opts.dryRun && !this.projected.save()) report.warn(`projected gifts ${this.projected.file} could not be written: the next run compares every donation with the org`);
      if (!this.opts.dryRun) this.campaigns.save();
    }
  }

  /** The record types new donors get and the org's currency: each model's kept with the verdict and read once a process (NPSP's target takes the Donation type). */
  private async lookups(): Promise<{ currency: string; recordTypes: { person?: string | undefined; business?: string | undefined } }> {
    if (this.opts.model === 'npsp') {
      const n = this.opts.settings.npsp;
      // Shared as NPC's are: serve's batches read them once a process, not once a batch.
      if (this.shared.npsp === undefined) {
        const read = readNpspLookups(this.opts.sink, n.orgRecordType, n.donationRecordType);
        this.shared.npsp = read;
        this.opts.verdict?.keepNpspLookups(await read);
      }
      const l = await this.shared.npsp;
      this.target = this.npspTargetWith(l.donation);
      return { currency: l.currency, recordTypes: { business: l.organisation } };
    }
    if (this.shared.recordTypes === undefined) {
      const read = readOrgLookups(this.opts.sink, this.opts.settings.personRecordType);
      this.shared.recordTypes = read;
      this.opts.verdict?.keepRecordTypes(await read);
    }
    const rt = await this.shared.recordTypes;
    return { currency: rt.currency, recordTypes: { person: rt.person, business: rt.business } };
  }

  /** The NPSP target with the SVC_NPSP_* names and the refund mode the guard chose. */
  private npspTargetWith(donationRecordType: string | undefined): GiftTarget {
    const n = this.opts.settings.npsp;
    return npspTarget({ ...npspNames(n), refundMode: this.opts.refundMode ?? 'stage', donationRecordType });
  }

  /**
   * Parents the mirror just updated: their campaigns, where they exist, follow (§3.2); the gifts on
   * a page whose owner changed get their fundraiser slot moved to the owner it has now (§4). A dry
   * run writes no campaign, and says which slots would move.
   */
  async parentsChanged(keys: readonly string[], report: RunReport): Promise<void> {
    if (!this.opts.dryRun) await this.refreshParents(keys, report);
    const owners = new Map<string, Changes>();
    for (const key of keys) {
      const changes = report.changesOf(key);
      if (key.startsWith('Action_') && changes !== undefined && ownerChanged(changes)) owners.set(key, changes);
    }
    if (owners.size > 0) await this.ownersChanged(owners, report);
  }

  /** The slots of the gifts on pages whose owner changed, moved to the owner each has now. */
  private async ownersChanged(pages: ReadonlyMap<string, Changes>, report: RunReport): Promise<void> {
    const before = this.opts.sink.calls().total;
    try {
      const lookups = await this.lookups();
      const s = this.opts.settings;
      const moved = await moveOwnerSlots(pages, {
        sink: this.opts.sink,
        target: this.target,
        siteId: this.opts.siteId() ?? 0,
        dryRun: this.opts.dryRun,
        anonymousLastName: s.anonymousLastName,
        matchEmailAndName: s.matchEmailAndName,
        recordTypes: lookups.recordTypes,
        links: this.links,
      });
      // A slot that failed: its donation is projected whole when it is retried.
      for (const f of moved.out.failures) this.projected.forget(f.donation);
      if (this.opts.dryRun && moved.moves.length > 0) (this.summaryNow.softCreditMoves ??= []).push(...moved.moves);
      this.absorb(moved.out, report);
    } catch (error) {
      if (error instanceof InterruptedError || isFatal(error) || (error instanceof Error && error.name === 'AbortError')) throw error;
      const failed: CrmError = { code: 'PROJECTION_FAILED', message: `the soft credits of the gifts on this page could not be moved to its new owner: ${describeError(error)}` };
      const out: BatchProjection = { donations: [], rows: [], failures: [], warnings: [] };
      for (const page of pages.keys()) out.failures.push({ donation: page, stage: 'softCredit', object: this.target.slot.object, key: page, error: failed });
      this.absorb(out, report);
    } finally {
      this.summaryNow.salesforceCalls += this.opts.sink.calls().total - before;
      if (!this.opts.dryRun && !this.links.save()) report.warn(`donor links ${this.links.file} could not be written: the next run finds the donors again by key and email`);
      if (!this.opts.dryRun && !this.projected.save()) report.warn(`projected gifts ${this.projected.file} could not be written: the next run compares every donation with the org`);
    }
  }

  /** The campaigns of parents the mirror just updated, where they exist, follow (§3.2). */
  private async refreshParents(keys: readonly string[], report: RunReport): Promise<void> {
    const before = this.opts.sink.calls().total;
    const out: BatchProjection = { donations: [], rows: [], failures: [], warnings: [] };
    try {
      const step = await refreshCampaigns(this.opts.sink, keys, this.opts.settings.timeZone, this.campaigns);
      out.rows.push(...step.rows);
      for (const [key, error] of step.failed) out.failures.push({ donation: key, stage: 'campaign', object: 'Campaign', key, error });
    } catch (error) {
      if (error instanceof InterruptedError || isFatal(error) || (error instanceof Error && error.name === 'AbortError')) throw error;
      for (const key of keys) {
        // Whether its campaign followed is unknown: the next gift to it reads it again.
        this.campaigns.forget(key);
        out.failures.push({ donation: key, stage: 'campaign', object: 'Campaign', key, error: { code: 'PROJECTION_FAILED', message: describeError(error) } });
      }
    } finally {
      this.summaryNow.salesforceCalls += this.opts.sink.calls().total - before;
      this.campaigns.save();
    }
    this.absorb(out, report);
  }

  /** Donations with nothing to do: counted unchanged (their gift's open error, if any, resolved). */
  private unchanged(donations: readonly ApiDonation[], report: RunReport): void {
    for (const d of donations) {
      const donation = `Donation_${d.id}`;
      this.summaryNow.donations++;
      this.summaryNow.gifts.unchanged++;
      this.summaryNow.decisions?.push({ donation, gift: 'unchanged', reason: 'projected before, unchanged since', warnings: [] });
      report.add({ object: this.target.gift.object, key: `${donation}:gift`, action: 'unchanged' });
    }
  }

  summary(): ProjectionSummary {
    return this.summaryNow;
  }

  private absorb(out: BatchProjection, report: RunReport): void {
    const s = this.summaryNow;
    // The org changed since it was checked (a field, a value, an access gone): the next run checks again.
    if (out.failures.some((f) => describeWouldExplain(f.error.code, f.error.message))) this.opts.verdict?.drop();
    s.donations += out.donations.length;
    for (const w of out.warnings) report.warn(w);
    const failedKeys = new Set(out.failures.map((f) => `${f.donation}:${f.stage}`));
    for (const p of out.donations) {
      s.gifts[p.gift]++;
      for (const w of p.warnings) report.warn(w.startsWith(`${p.donation}:`) ? w : `${p.donation}: ${w}`);
      if (p.gift === 'skip') {
        s.skipped.push({ donation: p.donation, reason: p.reason ?? 'not a gift' });
        report.add({ object: this.target.gift.object, key: `${p.donation}:gift`, action: 'skip', reason: p.reason ?? 'not a gift' });
      }
      if (p.donor?.matchedBy === 'ambiguous') s.ambiguousDonors.push({ donation: p.donation, candidates: p.donor.candidates ?? [] });
      for (const d of [p.donor, p.fundraiser]) {
        if (d === undefined || this.donorsSeen.has(d.key)) continue;
        this.donorsSeen.add(d.key);
        s.donors[DONOR_CLASS[d.matchedBy]]++;
      }
      s.decisions?.push(p);
    }
    for (const r of out.rows) {
      const counts = (s.objects[r.object] ??= emptyRows());
      counts[r.action]++;
      const key = rowKey(this.target, r);
      if (r.action === 'fail' || r.action === 'skip' || key === undefined || failedKeys.has(key)) continue;
      report.add({ object: r.object, key, action: r.action === 'delete' ? 'update' : r.action, ...(r.fields ? { reason: `fields: ${r.fields.join(', ')}` } : {}) });
    }
    for (const f of out.failures) {
      s.failures.push(failureLine(f));
      report.add({ object: f.object, key: `${f.donation}:${f.stage}`, action: 'fail', error: { ...f.error, message: recordMessage(f) } });
    }
  }
}

/** The report key of a row: the donation and stage it belongs to (campaigns: their own key). */
function rowKey(t: GiftTarget, r: ProjectionRow): string | undefined {
  if (r.object === t.gift.object) return `${r.key}:gift`;
  if (r.object === t.refund?.object) return `${r.key}:refund`;
  if (r.object === t.slot.object) return `${r.key.replace(/:fundraiser$/, '')}:softCredit`;
  if (r.object === 'Campaign') return `${r.key}:campaign`;
  return undefined;
}

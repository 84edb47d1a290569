/**
 * The one composition root: the only file that builds the platform client and source, the
 * Salesforce sink and the engine. The doors (cli/, webhook/) call these and build nothing.
 */
import { ConfigError, describeError } from '../model/errors.js';
import type { PlatformSettings, SalesforceSettings, Settings } from '../config/settings.js';
import { checkOrg, everyWriteFails, fixesFor } from '../crm/doctor.js';
import type { DoctorFinding } from '../model/doctorFinding.js';
import { checkGiftModel } from '../crm/npspDoctor.js';
import { chooseProjection, type ProjectionChoice } from '../crm/projectionGuard.js';
import { exportProject, exportSource, type WrittenSource } from '../crm/sfdxProject.js';
import type { ProjectionModel } from '../crm/schemaExport.js';
import { SalesforceSink, type OrgIdentity } from '../crm/sink.js';
import { syncLogFor } from '../crm/syncLog.js';
import { errorLogKeys, type LogKeys } from '../crm/logKeys.js';
import type { SyncLogPort } from '../model/syncLog.js';
import { DEFAULT_GIFT_SETTINGS } from '../config/settings.js';
import { DEFAULT_STATE_DIR } from '../config/connections.js';
import type { PlatformRequestInfo, RateLimitSnapshot, SharedBudget } from '../model/budget.js';
import type { AuditSink, CrmSink, KeySink, ObjectCheck, RecordSource } from '../model/ports.js';
import { assertPlatformApi, checkPlatform, PlatformClient, type PlatformCheck } from '../platform/client.js';
import { createPlatformSource, PlatformSource, type LearnOptions } from '../platform/source.js';
import { keysRead } from '../mapping/keysRead.js';
import type { PlatformProfile } from '../model/platformProfile.js';
import { ProfileWatch, profileFileBeside, readProfile, writeProfile } from './run/profileFile.js';
import { AbsenceFile, absenceFileBeside } from './run/absenceFile.js';
import type { AbsenceProofs } from '../model/absenceProofs.js';
import { SyncEngine, type EngineOptions } from './mirror/engine.js';
import { GiftProjector, type SharedLookups } from './gifts/giftProjector.js';
import { donorLinksBeside } from './gifts/donorLinksFile.js';
import { projectedBeside } from './gifts/projectedFile.js';
import { campaignsBeside } from './gifts/campaignState.js';
import { goneMarker, pageGoneOf, type GoneMarker } from './gifts/goneFix.js';
import { keptGuard, type KeptGuard } from './keptGuard.js';
import { ServedVerdict } from './servedVerdict.js';
import type { RunReport } from './report/report.js';

export interface Deps {
  source: RecordSource;
  sink: CrmSink;
  /** The org the login reached, checked by one call at the start (verifySession). */
  org?: OrgIdentity;
  /** The sync log in the org; absent when SVC_SALESFORCE_LOG is off, and in a dry run. */
  log?: SyncLogPort | undefined;
  /** doctor's checks of one object, for a run whose whole batch of it failed (a command's run only). */
  setupCheck?: ObjectCheck;
  /**
   * SVC_PROJECTION npc|auto: what the org guard chose at the start (crm/projectionGuard.ts);
   * absent when the setting is off. `resolved` 'npc': the run projects gifts; 'off': mirror alone.
   */
  projection?: ProjectionChoice | undefined;
  /** The gift projection, when the org guard chose npc; absent otherwise. */
  gifts?: GiftProjector | undefined;
}

/** Notes for a person ("waiting 42 s: platform minute limit"), as one line each. */
export type OnNote = (text: string, until?: number) => void;

/** The two sides one run needs: a platform source (its own record cache) and a connected Salesforce sink. */
/** What the platform source needs to learn the platform's list behaviour (model/platformProfile.ts). */
interface LearnFrom {
  /** The file an earlier run kept the profile in (beside the run state). */
  profileFile?: string;
  /** Keep what is learned in that file as it is learned (not in a dry run, which writes nothing). */
  save?: boolean;
  /** Told why a profile file that is there is not used (wrong shape, a time in the future). */
  onWarning?: (text: string) => void;
}

/** The source's learning options for a command: the saved profile, and saving each change at once. */
function learning(learn: LearnFrom): LearnOptions {
  const file = learn.profileFile;
  const read = file ? readProfile(file) : {};
  if (read.problem !== undefined) learn.onWarning?.(read.problem);
  const saved = read.profile;
  if (saved && Date.parse(saved.learnedAt) > Date.now()) {
    learn.onWarning?.(`platform profile ${file ?? ''} says it was learned at ${saved.learnedAt}, in the future: ignored, the platform is learned again`);
  }
  return {
    keysRead,
    ...(saved ? { profile: saved } : {}),
    ...(file && learn.save ? { onProfile: (p: PlatformProfile) => void writeProfile(file, p) } : {}),
  };
}

/** Where a command keeps the platform profile: beside its state file, or in its connection's state folder. */
export const profileFileFor = (stateFile: string | undefined, stateDir: string): string => profileFileBeside(stateFile ?? `${stateDir}/state.json`);

/** A command's platform source: waits told with their end (a live view counts down), the profile learned and kept. */
function commandSource(settings: Settings, onNote: OnNote, stop: AbortSignal | undefined, learn: LearnFrom, proofs?: AbsenceProofs): PlatformSource {
  return createPlatformSource(
    settings.platform,
    { onWait: (w) => onNote(w.message, Date.now() + w.seconds * 1000), ...(stop ? { stop } : {}) },
    undefined,
    // What it learns is reported once, with the run's result (RecordSource.learned).
    { ...learning(learn), ...(proofs ? { proofs } : {}) },
  );
}

/** The absences earlier runs proved, kept in the state folder (a dry run uses them and keeps nothing). */
const keptAbsences = (settings: Settings, stateFile: string, save: boolean): AbsenceProofs => new AbsenceFile(absenceFileBeside(stateFile), settings.platform.apiUrl, save);

/**
 * The Salesforce side of a command run, its login checked (one call, before the platform is
 * read): an expired session that cannot be renewed ends the run with exit 2 here.
 */
async function verifiedSink(settings: Settings, stop: AbortSignal | undefined): Promise<{ sink: SalesforceSink; org: OrgIdentity }> {
  const sink = await SalesforceSink.connect(settings.salesforce, {}, stop);
  return { sink, org: await sink.verifySession(stop) };
}

/** The org guard's question for a run: the setting, and the person record type doctor checks. */
const guardOrg = (settings: Settings, sink: SalesforceSink): Promise<ProjectionChoice | undefined> =>
  chooseProjection(sink, settings.salesforce.projection, (settings.salesforce.gifts ?? DEFAULT_GIFT_SETTINGS).personRecordType, settings.salesforce.gifts?.npsp.refundMode);

/** The run's (or serve batch's) gift projection, when the org guard chose Nonprofit Cloud; none when it resolved off. */
function giftProjector(
  settings: Settings,
  sink: SalesforceSink,
  source: RecordSource,
  dryRun: boolean,
  stateFile: string,
  choice: ProjectionChoice | undefined,
  shared?: SharedLookups,
  verdict?: KeptGuard['verdict'],
): GiftProjector | undefined {
  if (choice === undefined || choice.resolved === 'off') return undefined;
  return new GiftProjector({
    model: choice.resolved,
    refundMode: choice.refundMode,
    verdict,
    sink: sink.gifts(),
    settings: settings.salesforce.gifts ?? DEFAULT_GIFT_SETTINGS,
    dryRun,
    linksFile: donorLinksBeside(stateFile),
    projectedFile: projectedBeside(stateFile),
    campaignsFile: campaignsBeside(stateFile),
    siteId: () => source.siteReported?.(),
    pageGone: pageGoneOf(source),
    shared,
  });
}

export async function createDeps(settings: Settings, onNote: OnNote = () => undefined, stop?: AbortSignal, learn: LearnFrom = {}, dryRun = false): Promise<Deps> {
  const { sink, org } = await verifiedSink(settings, stop);
  const stateFile = learn.profileFile ?? `${DEFAULT_STATE_DIR}/state.json`;
  // The org guard: describes only (or its verdict of the last day), before the platform is read or anything written.
  const guard = await keptGuard(settings, () => guardOrg(settings, sink), org, stateFile, dryRun);
  const projection = guard.choice;
  const source = commandSource(settings, onNote, stop, learn, keptAbsences(settings, stateFile, !dryRun));
  const gifts = giftProjector(settings, sink, source, dryRun, stateFile, projection, guard.shared, guard.verdict);
  return { source, sink, org, log: syncLogFor(settings, sink.api, dryRun), setupCheck: (object) => everyWriteFails(sink, object), ...(projection ? { projection } : {}), ...(gifts ? { gifts } : {}) };
}

/**
 * `serve`, before it listens: the org guard of a connection with SVC_PROJECTION on (one login and
 * the describes). A refusal is a ConfigError (exit 2); undefined when the setting is off.
 */
export async function projectionAtStart(settings: Settings, stop?: AbortSignal, stateFile = `${DEFAULT_STATE_DIR}/state.json`): Promise<ProjectionChoice | undefined> {
  if (settings.salesforce.projection === undefined) return undefined;
  const { sink, org } = await verifiedSink(settings, stop);
  // The verdict a command (or an earlier serve) kept for this org spares the describes; a new one is kept.
  return (await keptGuard(settings, () => guardOrg(settings, sink), org, stateFile, false)).choice;
}

export function createEngine(deps: Deps, opts: EngineOptions, report?: RunReport): SyncEngine {
  const gifts = deps.gifts;
  const hooks: Partial<EngineOptions> = gifts ? { afterDonations: (records, r) => gifts.project(records, r), afterParents: (keys, r) => gifts.parentsChanged(keys, r) } : {};
  const setup: Partial<EngineOptions> = deps.setupCheck === undefined ? {} : { setupCheck: deps.setupCheck };
  return new SyncEngine(deps.source, deps.sink, { ...opts, ...setup, ...hooks }, report);
}

/** What a long-lived worker adds to its platform client: metrics hooks and a budget shared with other receivers. */
export interface PlatformExtras {
  /** The receiver's stop: a rate-limit wait or backoff of the batch in flight ends at once when it fires. */
  stop?: AbortSignal | undefined;
  onRequest?: ((info: PlatformRequestInfo) => void) | undefined;
  onBudget?: ((budget: RateLimitSnapshot) => void) | undefined;
  sharedBudget?: SharedBudget | undefined;
  /** The saved platform profile to start from: the connection's (<stateDir>/platform-profile.json); default .svc-sync's. */
  profileFile?: string | undefined;
  /** SVC_PROJECTION npc|auto: the org guard's choice at start (projectionAtStart); else the first batch asks. */
  projection?: ProjectionChoice | undefined;
}

/**
 * Called once per webhook batch. The source it returns must be fresh (or at least hold no cached
 * records of earlier batches), or a re-sent donation would be served from that cache instead of fetched.
 */
export type DepsFactory = () => Deps | Promise<Deps>;

/**
 * Deps for a long-lived worker: one Salesforce sink (connected on first use, a failed connection
 * retried on the next batch) and one platform client, so the rate-limit pacer keeps what it learned
 * from the API's headers; a new PlatformSource over that client per batch.
 */
export function depsPerBatch(settings: Settings, onNote: OnNote = () => undefined, extra: PlatformExtras = {}): DepsFactory {
  // A shared budget out of reach is said once a minute at most: each request meets it while it lasts.
  let sharedErrorSaidAt = -Infinity;
  const onSharedError = (error: unknown): void => {
    if (Date.now() - sharedErrorSaidAt < 60_000) return;
    sharedErrorSaidAt = Date.now();
    onNote(`warning: the shared platform budget in the queue database cannot be reached (${describeError(error)}); this receiver paces on the API's headers alone meanwhile`);
  };
  const client = new PlatformClient(settings.platform, {
    hooks: {
      onWait: (w) => onNote(w.message),
      onSharedError,
      onRequest: extra.onRequest,
      onBudget: extra.onBudget,
      stop: extra.stop,
    },
    sharedBudget: extra.sharedBudget,
  });
  let sink: Promise<SalesforceSink> | undefined;
  const sources: PlatformSource[] = [];
  // What `sync` learned of the platform in this directory (list shapes, collection sizes; for this
  // base URL and under a day old) spares the first batches learning it again with requests.
  // Read from a file, its claims are confirmed by the batch that relies on them, as a command's are.
  const profileFile = extra.profileFile ?? profileFileFor(undefined, DEFAULT_STATE_DIR);
  // The org verdict kept beside it, as the commands keep it: no describes or record-type reads a batch.
  const verdict = new ServedVerdict(settings, profileFile, extra.projection);
  const saved = readProfile(profileFile);
  if (saved.problem !== undefined) onNote(`warning: ${saved.problem}`);
  let learned: PlatformProfile | undefined = saved.profile;
  let learnedHere = false;
  // What serve learns is kept as sync keeps it, in the same folder; what a sync wrote there since
  // (another process: the file changed under this one) is taken up by the next batch.
  const kept = new ProfileWatch(profileFile);
  const proofs = keptAbsences(settings, profileFile, true);
  return async () => {
    const last = sources.pop();
    if (last) {
      learned = last.profile();
      learnedHere = true;
    }
    const fromSync = kept.changedElsewhere() ? readProfile(profileFile).profile : undefined;
    if (fromSync !== undefined) [learned, learnedHere] = [fromSync, false];
    sources.length = 0;
    sink ??= SalesforceSink.connect(settings.salesforce, {}, extra.stop).catch((error: unknown) => {
      sink = undefined;
      throw error;
    });
    client.resume();
    // What one batch learns (partial list pages, the page size) the next batch starts from.
    // A profile learned by this process needs no confirming again.
    const source = new PlatformSource(client, settings.platform.listIdsOnly, {
      keysRead,
      ...(learned ? { profile: learned, learnedHere } : {}),
      onLearn: (t) => onNote(`platform: ${t}`),
      onProfile: (p) => kept.write(p),
      proofs,
    });
    sources.push(source);
    const connected = await sink;
    // Which org the login reached (no call of its own): serve keeps two connections off one org.
    const orgId = connected.session.orgId();
    const org = { instanceUrl: connected.session.instanceUrl(), ...(orgId === undefined ? {} : { orgId }) };
    // The org guard: the verdict held or kept, else asked once (a refusal is asked again by the next batch).
    const guard = await verdict.forBatch(org, () => guardOrg(settings, connected));
    const choice = guard.choice;
    // The projection's donor links and figures are the batch's: a fresh projector each batch.
    const gifts = giftProjector(settings, connected, source, false, profileFile, choice, guard.shared, guard.verdict);
    return { source, sink: connected, org, log: syncLogFor(settings, connected.api, false), ...(choice ? { projection: choice } : {}), ...(gifts ? { gifts } : {}) };
  };
}

/** The platform's last reported rate-limit figures, when the source talks to the platform. */
export function platformBudget(deps: Deps): RateLimitSnapshot | undefined {
  return deps.source instanceof PlatformSource ? deps.source.rateLimit() : undefined;
}

interface SetupCheck {
  /** undefined when the base URL is the platform's API and the key works; what is wrong otherwise. */
  platformError?: string;
  /** The error behind platformError, as `sync` would meet it (its exit code is the same as sync's). */
  platformFailure?: unknown;
  /** The org the login reached (no call of its own). */
  org: OrgIdentity;
  findings: DoctorFinding[];
  /** What the platform's lists do (filters honoured, page size, complete or partial). */
  profile?: PlatformProfile;
  /** The commands that fix the findings, in order. */
  actions: string[];
  requests: { platform: number; salesforce: number };
}

/** `doctor`: the base URL and the key (one request), the platform's list behaviour (a few per collection), every object and field of the org, and the user's access to them. */
export async function checkSetup(platform: PlatformSettings, salesforce: SalesforceSettings, learn: LearnFrom = {}): Promise<SetupCheck> {
  const key = await checkPlatform(platform);
  let profile: PlatformProfile | undefined;
  let probeRequests = 0;
  if (key.ok) {
    // The profile is probed afresh (doctor is the place to look again), then kept for the runs;
    // the list-shape evidence runs gathered is carried over (as from a profile a day old), not lost.
    const saved = learn.profileFile ? readProfile(learn.profileFile).profile : undefined;
    const carried = saved && Date.parse(saved.learnedAt) <= Date.now() ? { profile: { ...saved, learnedAt: new Date(0).toISOString() } } : {};
    const source = createPlatformSource(platform, {}, { retries: 1, rateLimitRetries: 1, rateLimitPatienceMs: 0 }, { keysRead, sampleEach: true, ...carried });
    for (const type of PROBED) await source.probe(type);
    profile = source.profile();
    probeRequests = source.requests().total;
    if (learn.profileFile) writeProfile(learn.profileFile, profile);
  }
  const sink = await SalesforceSink.connect(salesforce);
  const mirror = await checkOrg(sink);
  const gifts = sink.gifts();
  const projection =
    salesforce.projection === undefined
      ? { findings: [], fixes: [] }
      : await checkGiftModel({ describe: (o) => sink.describe(o), query: (q) => gifts.query(q) }, salesforce.projection, salesforce.gifts?.npsp);
  const findings = [...mirror, ...projection.findings];
  const orgId = sink.session.orgId();
  return {
    ...(key.ok ? {} : { platformError: key.message, platformFailure: key.notPlatform ? new ConfigError(key.message) : key.error }),
    org: { instanceUrl: sink.session.instanceUrl(), ...(orgId === undefined ? {} : { orgId }) },
    ...(profile ? { profile } : {}),
    findings,
    actions: [...fixesFor(mirror), ...projection.fixes],
    requests: { platform: 1 + probeRequests, salesforce: sink.calls().total },
  };
}

/** The collections the engine lists (users are only fetched by id). */
const PROBED = ['segment', 'project', 'team', 'company', 'action', 'donation', 'newsletter_subscription'] as const;

/**
 * `sync`: one cheap request before anything else; a ConfigError (exit 2) when SVC_API_URL is not
 * the platform's API, since every list would look empty or every record deleted.
 */
export const requirePlatformApi = (platform: PlatformSettings): Promise<void> => assertPlatformApi(platform);

/**
 * `serve`: the same check, but an API that is only down for now is no reason to refuse webhooks:
 * the caller starts anyway and says so. Transient trouble is retried twice first.
 */
export const probePlatformApi = (platform: PlatformSettings): Promise<PlatformCheck> => checkPlatform(platform, { retries: 2, rateLimitRetries: 0 });

/** `schema --out`: the metadata of the eight objects and the permission set, as bare source under a folder. */
export const writeSchemaSource = (outDir: string, projection?: ProjectionModel): Promise<WrittenSource> => exportSource(outDir, projection);

/** `schema --project`: a complete SFDX project, sourceApiVersion = the configured API version. */
export const writeSchemaProject = (dir: string, apiVersion: string, projection?: ProjectionModel): Promise<WrittenSource> => exportProject(dir, apiVersion, projection);

export type { OrgIdentity, ProjectionChoice, ProjectionModel, SyncEngine, WrittenSource };

/** What `audit` needs: a platform source and a Salesforce sink that can also walk keys and delete. */
export interface AuditDeps {
  source: RecordSource;
  sink: AuditSink;
  org?: OrgIdentity;
  log?: SyncLogPort | undefined;
  /** A writing audit with the projection on (gifts/goneFix.ts): marks the gifts and campaigns of what it proved gone. */
  markGone?: GoneMarker | undefined;
}

export async function createAuditDeps(settings: Settings, onNote: OnNote = () => undefined, stop?: AbortSignal, learn: LearnFrom = {}, writes = false, fix = false): Promise<AuditDeps> {
  const source = commandSource(settings, onNote, stop, learn);
  const { sink, org } = await verifiedSink(settings, stop);
  // The org guard of --fix (a dry run's too), before the platform is read: a refusal writes nothing.
  const model = fix ? (await guardOrg(settings, sink))?.resolved : undefined;
  const markGone = model === 'npc' || model === 'npsp' ? goneMarker(sink.gifts(), model, (settings.salesforce.gifts ?? DEFAULT_GIFT_SETTINGS).npsp) : undefined;
  // Only an audit that writes (--fix, --delete-orphans) logs its run.
  return { source, sink, org, log: syncLogFor(settings, sink.api, !writes), markGone };
}

/** What `keys qualify` needs: the connected sink (a walk and updates by Id), the org it reached, the run log and its error keys. */
export async function createKeyDeps(settings: Settings, stop?: AbortSignal, dryRun = false): Promise<{ sink: KeySink; org: OrgIdentity; log?: SyncLogPort | undefined; logKeys: LogKeys }> {
  // It must see every key as the org holds it, bare and qualified: no site-key filter on its reads.
  const { sink, org } = await verifiedSink({ ...settings, salesforce: { ...settings.salesforce, siteKeys: undefined } }, stop);
  return { sink, org, log: syncLogFor(settings, sink.api, dryRun), logKeys: errorLogKeys() };
}

/**
 * The one composition root: the only file that builds the platform client and source, the
 * Salesforce sink and the engine. The doors (cli/, webhook/) call these and build nothing.
 */
import type { PlatformSettings, SalesforceSettings, Settings } from '../config/settings.js';
import { checkOrg, fixesFor, type DoctorFinding } from '../crm/doctor.js';
import { exportProject, exportSource, type WrittenSource } from '../crm/sfdxProject.js';
import { SalesforceSink } from '../crm/sink.js';
import type { PlatformRequestInfo, RateLimitSnapshot, SharedBudget } from '../model/budget.js';
import type { AuditSink, CrmSink, RecordSource } from '../model/ports.js';
import { assertPlatformApi, checkPlatform, PlatformClient, type PlatformCheck } from '../platform/client.js';
import { describeWait } from '../platform/rateLimit.js';
import { createPlatformSource, PlatformSource } from '../platform/source.js';
import { SyncEngine, type EngineOptions } from './engine.js';
import type { RunReport } from './report.js';

export interface Deps {
  source: RecordSource;
  sink: CrmSink;
}

/** Notes for a person ("waiting 42 s: platform minute limit"), as one line each. */
export type OnNote = (text: string, until?: number) => void;

/** The two sides one run needs: a platform source (its own record cache) and a connected Salesforce sink. */
export async function createDeps(settings: Settings, onNote: OnNote = () => undefined, stop?: AbortSignal): Promise<Deps> {
  // A wait's end, so a live view can count down to it.
  const source = createPlatformSource(settings.platform, { onWait: (w) => onNote(describeWait(w.seconds, w.reason), Date.now() + w.seconds * 1000), ...(stop ? { stop } : {}) });
  const sink = await SalesforceSink.connect(settings.salesforce);
  return { source, sink };
}

export function createEngine(deps: Deps, opts: EngineOptions, report?: RunReport): SyncEngine {
  return new SyncEngine(deps.source, deps.sink, opts, report);
}

/** What a long-lived worker adds to its platform client: metrics hooks and a budget shared with other receivers. */
export interface PlatformExtras {
  onRequest?: (info: PlatformRequestInfo) => void;
  onBudget?: (budget: RateLimitSnapshot) => void;
  sharedBudget?: SharedBudget;
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
  const client = new PlatformClient(settings.platform, {
    hooks: {
      onWait: (w) => onNote(describeWait(w.seconds, w.reason)),
      ...(extra.onRequest === undefined ? {} : { onRequest: extra.onRequest }),
      ...(extra.onBudget === undefined ? {} : { onBudget: extra.onBudget }),
    },
    ...(extra.sharedBudget === undefined ? {} : { sharedBudget: extra.sharedBudget }),
  });
  let sink: Promise<SalesforceSink> | undefined;
  return async () => {
    sink ??= SalesforceSink.connect(settings.salesforce).catch((error: unknown) => {
      sink = undefined;
      throw error;
    });
    client.resume();
    return { source: new PlatformSource(client, settings.platform.listIdsOnly), sink: await sink };
  };
}

/** The platform's last reported rate-limit figures, when the source talks to the platform. */
export function platformBudget(deps: Deps): RateLimitSnapshot | undefined {
  return deps.source instanceof PlatformSource ? deps.source.rateLimit() : undefined;
}

export interface SetupCheck {
  /** undefined when the base URL is the platform's API and the key works; what is wrong otherwise. */
  platformError?: string;
  findings: DoctorFinding[];
  /** The commands that fix the findings, in order. */
  actions: string[];
  requests: { platform: number; salesforce: number };
}

/** `doctor`: the base URL and the key (exactly one request), every object and field of the org, and the user's access to them. */
export async function checkSetup(platform: PlatformSettings, salesforce: SalesforceSettings): Promise<SetupCheck> {
  const key = await checkPlatform(platform);
  const sink = await SalesforceSink.connect(salesforce);
  const findings = await checkOrg(sink);
  return { ...(key.ok ? {} : { platformError: key.message }), findings, actions: fixesFor(findings), requests: { platform: 1, salesforce: sink.calls().total } };
}

/**
 * `sync`: one cheap request before anything else; a ConfigError (exit 2) when SVC_API_URL is not
 * the platform's API, since every list would look empty or every record deleted.
 */
export const requirePlatformApi = (platform: PlatformSettings): Promise<void> => assertPlatformApi(platform);

/**
 * `serve`: the same check, but an API that is only down for now is no reason to refuse webhooks:
 * the caller starts anyway and says so. Transient trouble is retried twice first.
 */
export const probePlatformApi = (platform: PlatformSettings): Promise<PlatformCheck> => checkPlatform(platform, { retries: 2 });

/** `schema --out`: the metadata of the eight objects and the permission set, as bare source under a folder. */
export const writeSchemaSource = (outDir: string): Promise<WrittenSource> => exportSource(outDir);

/** `schema --project`: a complete SFDX project, sourceApiVersion = the configured API version. */
export const writeSchemaProject = (dir: string, apiVersion: string): Promise<WrittenSource> => exportProject(dir, apiVersion);

export type { DoctorFinding, SyncEngine, WrittenSource };

/** What `audit` needs: a platform source and a Salesforce sink that can also walk keys and delete. */
export interface AuditDeps {
  source: RecordSource;
  sink: AuditSink;
}

export async function createAuditDeps(settings: Settings, onNote: OnNote = () => undefined): Promise<AuditDeps> {
  const source = createPlatformSource(settings.platform, { onWait: (w) => onNote(describeWait(w.seconds, w.reason)) });
  const sink = await SalesforceSink.connect(settings.salesforce);
  return { source, sink };
}

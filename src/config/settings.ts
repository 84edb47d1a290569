/** Resolved settings, after flags > environment > config file and validation (see load.ts). */

/**
 * `exact`: an incremental run reads the whole list of a collection whose lists ignore updated_after
 * (every change seen; costs a full scan). `new-records`: it reads what created_after gives (new
 * records only; changes to existing ones come through `serve` and `audit --fix`).
 */
export type IncrementalMode = 'exact' | 'new-records';

export interface PlatformSettings {
  /** Base URL of the platform; the client adds /v1. */
  apiUrl: string;
  apiKey: string;
  /** Requests in flight at once (p-limit). */
  concurrency: number;
  timeoutMs: number;
  /** Use list pages only to discover ids and fetch every record by id (for partial list payloads). */
  listIdsOnly: boolean;
  /** SVC_INCREMENTAL: what incremental runs read of a collection whose lists ignore updated_after (default exact). */
  incremental?: IncrementalMode;
  /**
   * SVC_SITE_ID: the site the mirror belongs to. Records of another site (a wrong URL or key) stop
   * every command before anything is written; webhooks of another site are ignored.
   */
  siteId?: number;
}

/** A session given as is (SF_INSTANCE_URL + SF_ACCESS_TOKEN): used first, also when OAuth settings can renew it. */
interface GivenSession {
  instanceUrl: string;
  accessToken: string;
}

/**
 * The one way this run logs in to Salesforce, resolved from the SF_* settings with every part it
 * needs present: the crm side only performs it.
 */
export type SalesforceLogin =
  | { method: 'access_token'; session: GivenSession }
  | { method: 'client_credentials'; loginUrl: string; clientId: string; clientSecret: string; session?: GivenSession | undefined }
  | { method: 'password'; loginUrl: string; clientId: string; clientSecret: string; username: string; password: string; session?: GivenSession | undefined }
  | { method: 'jwt'; loginUrl: string; clientId: string; username: string; privateKeyFile: string; session?: GivenSession | undefined };

export interface SalesforceSettings {
  login: SalesforceLogin;
  apiVersion: string;
  /** Records of one object above which a Bulk API 2.0 job is used instead of Collections. */
  bulkThreshold: number;
  /** Share of the org's daily API allowance after which a run stops (0..1). */
  maxApiUsage: number;
  /** SF_TIMEOUT_MS: the longest one Salesforce request may take, the whole exchange (default 120 s). */
  timeoutMs?: number | undefined;
  /** SVC_PROJECTION when not off: the donation model the mirrored donations are projected into. */
  projection?: ProjectionMode | undefined;
  /** How the projection writes gifts and donors (read only when `projection` is set). */
  gifts?: GiftSettings | undefined;
  /** The sync log in the org (SVC_SALESFORCE_LOG and the retention days); on with the defaults when absent. */
  log?: SyncLogSettings | undefined;
  /** SVC_SITE_KEYS=true: the site id every key is qualified with (`6:Donation_123`, SITES.md); absent: bare keys. */
  siteKeys?: number | undefined;
  /** Where the run stands in its deployment: not settings, the door that runs it fills them in. */
  place?: DeploymentPlace | undefined;
}

/** A connection's place in its deployment, as the Salesforce side needs it. */
export interface DeploymentPlace {
  /** The connection's name in the config file (run records name it); absent for the implicit one. */
  connection?: string | undefined;
  /** The deployment's state folder: connections of one org share the daily allowance's readings there. */
  stateRoot: string;
}

/**
 * SVC_PROJECTION: `npc` projects into Nonprofit Cloud, `npsp` into NPSP; `auto` detects the model from the org's
 * objects. `off` (the default) is an absent value: the mirror alone, unchanged.
 */
export type ProjectionMode = 'npc' | 'npsp' | 'auto';

/** The gift projection's settings (PROJECTION.md appendix N1); defaults as the document says. */
export interface GiftSettings {
  /** SVC_GIFT_TIMEZONE: the zone of gift, refund and campaign dates (default Europe/Amsterdam). */
  timeZone: string;
  /** SVC_ANONYMOUS_LASTNAME: the site's anonymous donor's LastName (default Anonymous). */
  anonymousLastName: string;
  /** SVC_MATCH_EMAIL_NAME: step 3 of donor matching, email + name (default true). */
  matchEmailAndName: boolean;
  /** SVC_NPC_PERSON_RECORD_TYPE: DeveloperName of the person record type (default PersonAccount). */
  personRecordType: string;
  /** The SVC_NPSP_* names (read only when the projection writes NPSP). */
  npsp: NpspSettings;
}

/** SVC_NPSP_REFUND_MODE: auto (P2: payments where the org shows the DebitType fields, else stage), or one forced. */
export type NpspRefundSetting = 'auto' | 'stage' | 'payments';

/** The NPSP names the spec makes settings (PROJECTION.md §2.2, §2.3, P2, P6, P8-P10), with its defaults. */
export interface NpspSettings {
  refundMode: NpspRefundSetting;
  stageWon: string;
  stageRefunded: string;
  stageCanceled: string;
  fundraiserRole: string;
  /** DeveloperNames of the gifts' Opportunity record type and the companies' Account record type. */
  donationRecordType: string;
  orgRecordType: string;
}

export const DEFAULT_NPSP_SETTINGS: NpspSettings = {
  refundMode: 'auto',
  stageWon: 'Closed Won',
  stageRefunded: 'Closed Lost',
  stageCanceled: 'Closed Lost',
  fundraiserRole: 'Soft Credit',
  donationRecordType: 'Donation',
  orgRecordType: 'Organization',
};

export const DEFAULT_GIFT_SETTINGS: GiftSettings = {
  timeZone: 'Europe/Amsterdam',
  anonymousLastName: 'Anonymous',
  matchEmailAndName: true,
  personRecordType: 'PersonAccount',
  npsp: DEFAULT_NPSP_SETTINGS,
};

/** SVC_SALESFORCE_LOG, SVC_ERROR_RETENTION_DAYS, SVC_RUN_RETENTION_DAYS. */
export interface SyncLogSettings {
  enabled: boolean;
  errorRetentionDays: number;
  runRetentionDays: number;
}

export const DEFAULT_SYNC_LOG: SyncLogSettings = { enabled: true, errorRetentionDays: 30, runRetentionDays: 90 };

/**
 * Where the webhook queue lives, resolved once with every default in place: the SQLite file, or a
 * PostgreSQL database (SVC_QUEUE_URL) with the schema of its tables and the lease of a claim.
 */
export type QueueLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema: string; leaseMs: number };

export interface WebhookSettings {
  secret?: string | undefined;
  /** SVC_ADMIN_TOKEN: turns on serve's status page (GET /status). */
  adminToken?: string | undefined;
  /** Where the webhook queue lives (SVC_QUEUE_PATH, or SVC_QUEUE_URL with its schema and lease). */
  queue: QueueLocation;
  /** serve: gather events this long after the first pending one before a batch (SVC_SETTLE_S). */
  settleMs: number;
}

export interface Settings {
  platform: PlatformSettings;
  salesforce: SalesforceSettings;
  webhook: WebhookSettings;
}

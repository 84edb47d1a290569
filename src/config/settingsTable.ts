/**
 * Every setting, described once: its name (the environment variable and the config file key), the
 * flag that overrides it, whether it is a secret or a URL (masked in every message), its default
 * and one line of help. load.ts validates from it, cli/globals.ts declares the global flags and
 * their help from it, and docs/configuration.md's settings reference is generated from it.
 */
export interface SettingRow {
  readonly name: string;
  /** The global flag that overrides it, as commander declares it. Secrets have none: a command line shows in `ps`. */
  readonly flag?: string;
  /** A flag of the commands that use it (serve, queue) rather than a global one. */
  readonly commandFlag?: string;
  /** Masked whole in every message. */
  readonly secret?: boolean;
  /** A URL whose user name and password are masked in every message. */
  readonly url?: boolean;
  /** One for the whole deployment (the queue, serve's page, the log format): a connection may not set it. */
  readonly deployment?: boolean;
  /** The default, as help shows it. */
  readonly default?: string;
  readonly help: string;
}

export const SETTINGS = [
  { name: 'SVC_API_URL', flag: '--api-url <url>', url: true, help: 'platform base URL, /v1 is added' },
  { name: 'SVC_API_KEY', secret: true, help: 'platform API key' },
  { name: 'SVC_CONCURRENCY', flag: '--concurrency <n>', default: '4', help: 'platform requests in flight' },
  { name: 'SVC_TIMEOUT_MS', default: '30000', help: 'timeout of one platform request, the whole exchange (connect, headers, body)' },
  { name: 'SVC_LIST_IDS_ONLY', default: 'false', help: 'use list pages only to discover ids, every record by id' },
  { name: 'SVC_INCREMENTAL', default: 'exact', help: 'where lists ignore updated_after: exact (whole lists) or new-records (created_after)' },
  { name: 'SVC_SITE_ID', help: 'the platform site this mirror belongs to' },
  { name: 'SVC_SITE_KEYS', default: 'false', help: 'true: every key is written as <site_id>:<key>, so several sites can share one org' },
  { name: 'SVC_CONNECTION', flag: '--connection <name>', deployment: true, help: 'the connection of the config file a command acts on (default: every one for sync, audit and doctor)' },
  { name: 'SVC_STATE_DIR', default: '.svc-sync', help: "folder of a connection's progress, platform profile and run lock (.svc-sync/<name> for a named connection)" },
  { name: 'SF_INSTANCE_URL', flag: '--instance-url <url>', url: true, help: 'Salesforce instance URL' },
  { name: 'SF_ACCESS_TOKEN', secret: true, help: 'Salesforce session token' },
  { name: 'SF_LOGIN_URL', flag: '--login-url <url>', url: true, default: 'https://login.salesforce.com', help: 'Salesforce login URL for OAuth' },
  { name: 'SF_CLIENT_ID', help: 'connected app client id' },
  { name: 'SF_CLIENT_SECRET', secret: true, help: 'connected app client secret' },
  { name: 'SF_USERNAME', help: 'Salesforce user name (password or JWT flow)' },
  { name: 'SF_PASSWORD', secret: true, help: 'Salesforce password (username-password flow)' },
  { name: 'SF_PRIVATE_KEY_FILE', help: 'private key file of the JWT bearer flow' },
  { name: 'SF_TIMEOUT_MS', default: '120000', help: 'timeout of one Salesforce request (login, check, query, write), the whole exchange' },
  { name: 'SF_API_VERSION', flag: '--api-version <v>', default: '62.0', help: 'Salesforce API version' },
  { name: 'SVC_LOG_FORMAT', deployment: true, flag: '--log-format <format>', default: 'text', help: 'stderr lines as text or json, one object a line with time, level and msg' },
  { name: 'SF_BULK_THRESHOLD', flag: '--bulk-threshold <n>', default: '2000', help: 'records of one object above which Bulk API 2.0 is used' },
  { name: 'SF_MAX_API_USAGE', default: '0.9', help: "share of the org's daily API allowance a run may use" },
  { name: 'SVC_PROJECTION', default: 'off', help: 'gift projection: off, npc (Nonprofit Cloud), npsp (NPSP) or auto; mirrored donations become gifts (docs/projection.md)' },
  { name: 'SVC_GIFT_TIMEZONE', default: 'Europe/Amsterdam', help: 'time zone (IANA name) of the gift, refund and campaign dates the projection writes' },
  { name: 'SVC_ANONYMOUS_LASTNAME', default: 'Anonymous', help: "last name of the site's anonymous donor in the projection" },
  { name: 'SVC_MATCH_EMAIL_NAME', default: 'true', help: 'true: the projection matches a donor by email + full last name + compatible first name; false: by key only' },
  { name: 'SVC_NPC_PERSON_RECORD_TYPE', default: 'PersonAccount', help: "DeveloperName of the Person Account record type the projection's donors get" },
  {
    name: 'SVC_NPSP_REFUND_MODE',
    default: 'auto',
    help: 'NPSP refunds: payments (a negative payment beside the original), stage (the gift Closed Lost) or auto (payments where the org shows npsp__DebitType__c)',
  },
  { name: 'SVC_NPSP_STAGE_WON', default: 'Closed Won', help: 'NPSP: the Opportunity stage of a paid gift (closed, won)' },
  { name: 'SVC_NPSP_STAGE_REFUNDED', default: 'Closed Lost', help: 'NPSP: the stage of a refunded gift in refund mode stage (closed, not won)' },
  { name: 'SVC_NPSP_STAGE_CANCELED', default: 'Closed Lost', help: 'NPSP: the stage audit --fix gives a gift gone from the platform (closed, not won)' },
  { name: 'SVC_NPSP_ROLE_FUNDRAISER', default: 'Soft Credit', help: "NPSP: the contact role of a gift's fundraiser" },
  { name: 'SVC_NPSP_DONATION_RECORD_TYPE', default: 'Donation', help: "NPSP: DeveloperName of the gifts' Opportunity record type (not sent when the org lacks it)" },
  { name: 'SVC_NPSP_ORG_RECORD_TYPE', default: 'Organization', help: 'NPSP: DeveloperName of the Account record type of company donors' },
  { name: 'SVC_SALESFORCE_LOG', default: 'on', help: 'on: write each run and each failing record to Svc_SyncRun__c and Svc_SyncError__c; off: not' },
  { name: 'SVC_ERROR_RETENTION_DAYS', default: '30', help: 'days a resolved Svc_SyncError__c record is kept' },
  { name: 'SVC_RUN_RETENTION_DAYS', default: '90', help: 'days a Svc_SyncRun__c record is kept' },
  { name: 'SVC_WEBHOOK_SECRET', secret: true, help: 'shared secret the webhook receiver requires; at least 16 characters (openssl rand -hex 24)' },
  {
    name: 'SVC_WEBHOOK_PUBLIC_WITHOUT_SECRET',
    deployment: true,
    commandFlag: '--public-without-secret',
    default: 'false',
    help: 'let serve listen beyond loopback with no SVC_WEBHOOK_SECRET: anyone who reaches the port can post events',
  },
  { name: 'SVC_ADMIN_TOKEN', deployment: true, secret: true, help: "sign-in token of serve's status page" },
  { name: 'SVC_QUEUE_PATH', deployment: true, commandFlag: '--queue <path>', default: '.svc-sync/queue.db', help: 'webhook queue database' },
  { name: 'SVC_QUEUE_URL', deployment: true, commandFlag: '--queue-url <url>', help: 'the webhook queue in PostgreSQL' },
  { name: 'SVC_QUEUE_SCHEMA', deployment: true, default: 'svc_sync', help: "PostgreSQL schema of the queue's tables" },
  { name: 'SVC_QUEUE_LEASE_S', deployment: true, default: '60', help: 'seconds before a dead receiver’s claim is taken over' },
  { name: 'SVC_PORT', deployment: true, commandFlag: '--port <n>', default: '8080', help: 'port serve listens on' },
  { name: 'SVC_SETTLE_S', deployment: true, commandFlag: '--settle <seconds>', default: '30', help: 'seconds the webhook worker gathers events' },
] as const satisfies readonly SettingRow[];

export type SettingName = (typeof SETTINGS)[number]['name'];

/**
 * The settings reference of docs/configuration.md, generated from the settings table so the page
 * cannot drift from it: `npm run docs:settings` writes it, a test checks the committed page.
 * The table's one-line help is what --help shows; the page may say more, from DETAILS.
 */
import { SETTINGS, type SettingName, type SettingRow } from './settingsTable.js';

/** The page's generated part lies between these lines; the prose around it is written by hand. */
const REFERENCE_BEGIN = '<!-- settings reference: generated from src/config/settingsTable.ts by npm run docs:settings; do not edit -->';
const REFERENCE_END = '<!-- end of the generated settings reference -->';

/** More than the help line, for the page (links are relative to docs/). */
const DETAILS: Partial<Record<SettingName, string>> = {
  SVC_API_URL: 'platform base URL, e.g. `https://api.example.org` (the client adds `/v1`)',
  SVC_API_KEY: 'platform API key (sent as `X-Api-Key`)',
  SVC_LIST_IDS_ONLY: '`true`: use list pages only to discover ids and fetch every record by id (see [Partial list pages](how-it-works.md#partial-list-pages))',
  SVC_INCREMENTAL:
    'where the platform ignores `updated_after`: `exact` reads whole lists in incremental runs; `new-records` reads only records created since (`created_after`), changes come from webhooks and `audit --fix` (see [When `updated_after` is ignored](how-it-works.md#when-updated_after-is-ignored))',
  SVC_CONNECTION:
    'the connection of the config file a command acts on (see [Several sites](administration.md#several-sites)): `sync`, `audit` and `doctor` run every connection without it; `object`, `replay` and `queue retry` need it when there are several',
  SVC_STATE_DIR:
    "folder of a connection's progress (`state.json`), platform profile and run lock; a named connection's default is `.svc-sync/<name>` (under this folder when it is set at the top level)",
  SVC_SITE_ID:
    'the platform site this mirror belongs to (see [Which site](#which-site-svc_site_id)): records of another site stop every command before anything is written, and `serve` answers webhooks of another site 200 and records them ignored',
  SVC_SITE_KEYS:
    '`true`: every key the connection writes carries its site, `6:Donation_123` (`SvcId__c`, `TargetSvcId__c`, `QuestionSvcId__c`, the run log), and it reads only keys of its own site; needs `SVC_SITE_ID`. Connections that share one org must all set it (see [Several sites](administration.md#several-sites))',
  SF_INSTANCE_URL: 'Salesforce instance URL, with `SF_ACCESS_TOKEN`',
  SF_ACCESS_TOKEN: 'Salesforce session token, with `SF_INSTANCE_URL`; it expires: for unattended runs use client credentials or the JWT bearer flow',
  SF_LOGIN_URL: 'Salesforce login URL of the OAuth flows (client credentials need your My Domain URL)',
  SF_CLIENT_ID: 'OAuth client id of a connected app: alone with `SF_CLIENT_SECRET`, the client credentials flow',
  SF_CLIENT_SECRET: 'OAuth client secret of the connected app',
  SF_USERNAME: 'with client id and secret and `SF_PASSWORD`: the username-password flow; with client id and `SF_PRIVATE_KEY_FILE`: the JWT bearer flow',
  SF_PASSWORD: 'password of the username-password OAuth flow (may hold spaces, no control character)',
  SF_PRIVATE_KEY_FILE: 'private key file of the JWT bearer flow (with `SF_CLIENT_ID` and `SF_USERNAME`)',
  SF_BULK_THRESHOLD: 'records of one object above which a Bulk API 2.0 job is used',
  SF_MAX_API_USAGE: "stop a run before this share of the org's daily API allowance is used",
  SVC_WEBHOOK_PUBLIC_WITHOUT_SECRET:
    '`true`: `serve` listens on a non-loopback `--host` (the default `0.0.0.0`) although a connection has no `SVC_WEBHOOK_SECRET`, so anyone who reaches the port can post events; without it `serve` refuses to start (exit 2). Loopback (`127.0.0.1`, `::1`, `localhost`) needs no secret',
  SVC_ADMIN_TOKEN:
    "turns on `serve`'s [status page](administration.md#status-page) at `GET /status` and is its sign-in token (at least 16 characters, e.g. `openssl rand -hex 16`); unset: the page is off (404)",
  SVC_QUEUE_URL:
    '`postgres://` or `postgresql://` URL: keep the webhook queue in PostgreSQL instead of the SQLite file, shared by every `serve` on it (see [Several receivers](operations.md#several-receivers-the-queue-on-postgresql)). The password is never shown',
  SVC_QUEUE_LEASE_S: 'seconds after which a batch claimed by a receiver that stopped renewing it (crashed, killed, cut off) is claimed by another',
  SVC_PORT: "`serve`'s port when `--port` is not given; the Dockerfile's `HEALTHCHECK` reads it too",
  SVC_SETTLE_S:
    'seconds the webhook worker gathers events after the first pending one; 0 starts a batch at once (see [Batches shaped by the budget](webhooks.md#batches-shaped-by-the-budget---settle))',
  SVC_LOG_FORMAT: 'stderr lines as `text` or `json`: one object a line, `{"time","level","msg"}`, for a log pipeline (see [Logs](administration.md#logs))',
};

/** A table cell: pipes escaped so a value cannot split the row. */
const cell = (text: string): string => text.replace(/\|/g, '\\|');

function row(r: SettingRow): string {
  const flag = r.flag ?? r.commandFlag;
  const flagCell = flag === undefined ? '' : `\`${flag.split(' ')[0] ?? flag}\`${r.commandFlag === undefined ? '' : ' (command)'}`;
  const defaultCell = r.default === undefined ? '' : `\`${r.default}\``;
  const meaning = `${DETAILS[r.name as SettingName] ?? r.help}${r.secret ? ' (secret: environment or file only)' : ''}`;
  return `| \`${r.name}\` | ${flagCell} | ${defaultCell} | ${cell(meaning)} |`;
}

/** The generated part: one row per setting, in the table's order. */
export function settingsReference(): string {
  const rows = (SETTINGS as readonly SettingRow[]).map(row);
  return [REFERENCE_BEGIN, '', '| setting | flag | default | meaning |', '|---|---|---|---|', ...rows, '', REFERENCE_END].join('\n');
}

/** The page with its generated part replaced; undefined when the page lacks the markers. */
export function withReference(page: string): string | undefined {
  const begin = page.indexOf(REFERENCE_BEGIN);
  const end = page.indexOf(REFERENCE_END);
  if (begin < 0 || end < begin) return undefined;
  return page.slice(0, begin) + settingsReference() + page.slice(end + REFERENCE_END.length);
}

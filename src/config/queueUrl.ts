/**
 * SVC_QUEUE_URL: a postgres:// or postgresql:// URL puts the webhook queue in PostgreSQL. The URL
 * may carry a password; only the masked form ever reaches output.
 */
export function isPostgresUrl(value: string | undefined): value is string {
  return value !== undefined && /^postgres(ql)?:\/\//i.test(value.trim());
}

/** The URL with its password replaced by ***, for logs, errors and `queue` output. */
export function maskQueueUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    // Unparseable: show the scheme and host part only, never what could be userinfo.
    return value.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** The password as written in the URL and decoded, so redaction can remove either spelling. */
export function queueUrlPasswords(value: string | undefined): string[] {
  if (!isPostgresUrl(value)) return [];
  try {
    const raw = new URL(value).password;
    if (raw === '') return [];
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // Malformed escapes: the raw spelling is what could appear.
    }
    return [...new Set([raw, decoded])];
  } catch {
    return [];
  }
}

/** sslmode values pg takes as verify-full today (and warns on each first use that v9 will weaken). */
const PG_VERIFY_FULL_ALIASES = new Set(['prefer', 'require', 'verify-ca']);

/**
 * The URL handed to the PostgreSQL driver: an sslmode it treats as verify-full (prefer, require,
 * verify-ca) is written as verify-full, what the driver does with it. The same checks of the
 * server's certificate, without the driver's multi-line "SECURITY WARNING" beside our own line,
 * and without a later driver quietly weakening them. With uselibpqcompat=true the URL asks for
 * libpq's meanings itself and is left as written.
 */
export function pgConnectionUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  const mode = url.searchParams.get('sslmode');
  if (mode === null || !PG_VERIFY_FULL_ALIASES.has(mode) || url.searchParams.get('uselibpqcompat') === 'true') return value;
  url.searchParams.set('sslmode', 'verify-full');
  return url.toString();
}

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

/**
 * The platform budget of one API key, kept in the queue database so every receiver on it paces
 * against the same numbers: each request takes one from the shared remaining count (atomically,
 * in one UPDATE), and each response's reading can only lower it within a window (a reading with a
 * later reset time starts the next window). A window whose reset time has passed is unknown again
 * until the next reading.
 */
import type { BudgetReading, SharedBudget, SharedTake, WaitReason } from '../../model/budget.js';

type Run = (sql: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;

interface BudgetRow {
  remaining_minute: number | null;
  minute_reset_at: string | null;
  remaining_hour: number | null;
  hour_reset_at: string | null;
  blocked_until: string;
  updated_at: string;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

export class PgBudget implements SharedBudget {
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: Run,
    private readonly s: string,
    /** A hash of the API key and URL: the key itself is never stored. */
    private readonly key: string,
  ) {}

  async take(now: number): Promise<SharedTake> {
    // Readings recorded before this request must be in the database before it decides.
    await this.pending;
    const granted = await this.run(
      `INSERT INTO ${this.s}.rate_budget AS b (key, updated_at) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET
         remaining_minute = CASE WHEN b.minute_reset_at <= $2 THEN NULL ELSE b.remaining_minute - 1 END,
         minute_reset_at  = CASE WHEN b.minute_reset_at <= $2 THEN NULL ELSE b.minute_reset_at END,
         remaining_hour   = CASE WHEN b.hour_reset_at <= $2 THEN NULL ELSE b.remaining_hour - 1 END,
         hour_reset_at    = CASE WHEN b.hour_reset_at <= $2 THEN NULL ELSE b.hour_reset_at END,
         granted = b.granted + 1,
         updated_at = $2
       WHERE b.blocked_until <= $2
         AND (b.remaining_minute IS NULL OR b.remaining_minute > 0 OR b.minute_reset_at <= $2)
         AND (b.remaining_hour IS NULL OR b.remaining_hour > 0 OR b.hour_reset_at <= $2)
       RETURNING granted`,
      [this.key, now],
    );
    if (granted.length > 0) return { grant: Number(granted[0]?.granted) };
    const rows = (await this.run(`SELECT * FROM ${this.s}.rate_budget WHERE key = $1`, [this.key])) as unknown as BudgetRow[];
    const row = rows[0];
    if (row === undefined) return { grant: 0 };
    let until = 0;
    let reason: WaitReason = 'rate_limited';
    if (Number(row.blocked_until) > now) until = Number(row.blocked_until);
    else {
      // Without a reported reset, a fixed window renews at the latest one length after the reading.
      const minuteEnd = row.minute_reset_at === null ? Number(row.updated_at) + MINUTE_MS : Number(row.minute_reset_at);
      const hourEnd = row.hour_reset_at === null ? Number(row.updated_at) + HOUR_MS : Number(row.hour_reset_at);
      if (row.remaining_minute !== null && row.remaining_minute <= 0 && minuteEnd > until) {
        until = minuteEnd;
        reason = 'minute_limit';
      }
      if (row.remaining_hour !== null && row.remaining_hour <= 0 && hourEnd > until) {
        until = hourEnd;
        reason = 'hour_limit';
      }
      if (row.minute_reset_at === null || row.hour_reset_at === null) {
        // Remember the assumed end, so the window does renew for everyone.
        await this.run(
          `UPDATE ${this.s}.rate_budget SET
             minute_reset_at = CASE WHEN remaining_minute <= 0 THEN COALESCE(minute_reset_at, $2::bigint) ELSE minute_reset_at END,
             hour_reset_at = CASE WHEN remaining_hour <= 0 THEN COALESCE(hour_reset_at, $3::bigint) ELSE hour_reset_at END
           WHERE key = $1`,
          [this.key, minuteEnd, hourEnd],
        );
      }
    }
    // The window ended meanwhile: the next take decides again.
    return { until: Math.max(until, now + 1), reason };
  }

  record(reading: BudgetReading): void {
    const now = Date.now();
    this.pending = this.pending
      .then(() =>
        this.run(
          `INSERT INTO ${this.s}.rate_budget AS b (key, remaining_minute, minute_reset_at, remaining_hour, hour_reset_at, blocked_until, updated_at)
           VALUES ($1, $2, $3, $4, $5, COALESCE($6, 0), $7)
           ON CONFLICT (key) DO UPDATE SET
             remaining_minute = CASE WHEN $2::int IS NULL THEN b.remaining_minute
                                     WHEN b.remaining_minute IS NULL OR $3::bigint > b.minute_reset_at + 1000 THEN $2 - (b.granted - COALESCE($8::bigint, b.granted))
                                     ELSE LEAST(b.remaining_minute, $2 - (b.granted - COALESCE($8::bigint, b.granted))) END,
             minute_reset_at  = COALESCE($3, b.minute_reset_at),
             remaining_hour   = CASE WHEN $4::int IS NULL THEN b.remaining_hour
                                     WHEN b.remaining_hour IS NULL OR $5::bigint > b.hour_reset_at + 1000 THEN $4 - (b.granted - COALESCE($8::bigint, b.granted))
                                     ELSE LEAST(b.remaining_hour, $4 - (b.granted - COALESCE($8::bigint, b.granted))) END,
             hour_reset_at    = COALESCE($5, b.hour_reset_at),
             blocked_until    = GREATEST(b.blocked_until, COALESCE($6, 0)),
             updated_at       = $7`,
          [
            this.key,
            reading.remainingMinute ?? null,
            reading.minuteResetAt ?? null,
            reading.remainingHour ?? null,
            reading.hourResetAt ?? null,
            reading.blockedUntil ?? null,
            now,
            reading.grant ?? null,
          ],
        ),
      )
      .then(
        () => undefined,
        // Best effort: the local pacer still holds this reading.
        () => undefined,
      );
  }
}

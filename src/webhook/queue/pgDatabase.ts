/**
 * The queue's PostgreSQL connections: a pool whose every connection runs with synchronous_commit =
 * on, transactions run again after a deadlock or serialization failure, and errors that name the
 * database (masked) and keep their SQLSTATE, the password never passing.
 */
import type { LogSink } from '../../config/log.js';
import type pg from 'pg';
import { lazyModule } from '../../model/lazyModule.js';
import { QueueError } from '../../model/errors.js';
import { pgConnectionUrl, queueUrlPasswords } from '../../config/queueUrl.js';

/** Deadlock and serialization failures: the transaction is safe to run again. */
/** Loaded when a PostgreSQL queue is opened: no other command pays for pg. */
const pgModule = lazyModule<typeof pg>('pg');

const RETRYABLE = new Set(['40P01', '40001']);

/** A queue database failure: exit code 2 for the commands, 503 for the receiver. */
class PgQueueError extends QueueError {
  override readonly name = 'PgQueueError';
}

export class PgDatabase {
  private readonly pool: pg.Pool;
  private readonly passwords: string[];

  constructor(
    url: string,
    /** The database as shown: its URL without the password. */
    private readonly location: string,
    poolSize: number,
    log: LogSink,
  ) {
    this.passwords = queueUrlPasswords(url);
    this.pool = new (pgModule().Pool)({
      connectionString: pgConnectionUrl(url),
      max: poolSize,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      // A database that stops answering must not hold a webhook request for minutes.
      query_timeout: 20_000,
      application_name: 'svc-sync',
      // Part of the connection itself: a server that refuses the setting refuses the connection,
      // so no commit can ever be answered 200 before it is durable.
      options: '-c synchronous_commit=on',
    });
    // An idle connection dropped by the server: logged, and the pool opens a new one when needed.
    this.pool.on('error', (error) => log(`webhook queue: connection lost: ${this.scrub(error.message)}`, 'warn'));
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /** What a commit's durability rests on, as a connection of the pool sees it. */
  durability(): Promise<{ synchronousCommit: string; fsync: string }> {
    return this.withClient(async (c) => {
      const sync = await c.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      const fsync = await c.query<{ fsync: string }>('SHOW fsync');
      return { synchronousCommit: sync.rows[0]?.synchronous_commit ?? '', fsync: fsync.rows[0]?.fsync ?? '' };
    });
  }

  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, params);
    } catch (error) {
      throw this.wrap(error);
    }
  }

  async withClient<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.wrap(error);
    }
    let broken = false;
    // A checked-out client's connection errors are ours to catch (unhandled, they end the process).
    const onError = (): void => {
      broken = true;
    };
    client.on('error', onError);
    try {
      return await fn(client);
    } catch (error) {
      // A connection that failed mid-transaction is not given back to the pool.
      broken ||= !(error instanceof pgModule().DatabaseError);
      throw this.wrap(error);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** One transaction; run again (up to 3 times) after a deadlock or serialization failure. */
  async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.withClient(async (c) => {
          await c.query('BEGIN');
          try {
            const result = await fn(c);
            await c.query('COMMIT');
            return result;
          } catch (error) {
            await c.query('ROLLBACK').catch(() => undefined);
            throw error;
          }
        });
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt < 3 && code !== undefined && RETRYABLE.has(code)) continue;
        throw error;
      }
    }
  }

  messageOf(error: unknown): string {
    return this.scrub(error instanceof Error ? error.message : String(error));
  }

  scrub(text: string): string {
    let out = text;
    for (const p of this.passwords) if (p.length > 0) out = out.split(p).join('***');
    return out;
  }

  /** Errors name the database (masked) and keep the SQLSTATE code; the password never passes. */
  wrap(error: unknown): Error {
    if (error instanceof PgQueueError) return error;
    const message = this.messageOf(error);
    // pg says so in words only: a server without TLS answered the URL's sslmode with "no".
    const code = (error as { code?: string }).code ?? (/does not support SSL connections/.test(message) ? 'SVC_TLS_UNSUPPORTED' : undefined);
    return new PgQueueError(`queue database ${this.location}: ${message}`, code);
  }
}

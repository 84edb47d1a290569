/** The SQLite queue's shared WHERE conditions on its events table. */
import type { ConnectionColumn } from './store.js';

/** A scope's SQL condition on the events' connection (json_each: one statement for any number of keys). */
export const inScope = (column: ConnectionColumn): string => ` AND ${column} IN (SELECT value FROM json_each(?))`;

/** Not of a record in flight: one claim per record; events arriving meanwhile wait for the next (as in PostgreSQL). */
export const notHeld = (column: ConnectionColumn): string =>
  ` AND NOT EXISTS (SELECT 1 FROM events held WHERE held.status = 'processing' AND held.ref_type = events.ref_type AND held.ref_id = events.ref_id${column === 'connection' ? ' AND held.connection = events.connection' : ''})`;

/** The SQLite queue's schema, as migration steps (sqliteFile.ts applies them). */

/**
 * The schema, one step per version (user_version): a later release appends steps, never edits a
 * shipped one. Step 1 is IF NOT EXISTS: a queue of a release before the version mark (version 0)
 * already has its tables.
 */
export const STEPS: readonly string[] = [
  `
CREATE TABLE IF NOT EXISTS events (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  received_at     INTEGER NOT NULL,
  raw             TEXT NOT NULL,
  object_type     TEXT NOT NULL,
  object_id       INTEGER NOT NULL,
  event_type      TEXT NOT NULL,
  application     TEXT NOT NULL,
  site_id         INTEGER,
  ref_type        TEXT,
  ref_id          INTEGER,
  status          TEXT NOT NULL CHECK (status IN ('pending','processing','done','failed','ignored')),
  outcome         TEXT CHECK (outcome IN ('done','skipped')),
  reason          TEXT,
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  next_attempt_at INTEGER NOT NULL,
  claim_token     TEXT,
  finished_at     INTEGER
);
CREATE INDEX IF NOT EXISTS events_due ON events (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS events_ref ON events (ref_type, ref_id, status);
CREATE INDEX IF NOT EXISTS events_finished ON events (status, finished_at);
CREATE TABLE IF NOT EXISTS action_owners (
  action_id  INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS action_owners_user ON action_owners (user_id);
`,
  // 2: the connection each event was routed to ('' : the implicit one, and every earlier event);
  // owners kept per connection, since two sites' action ids may be the same numbers.
  `
ALTER TABLE events ADD COLUMN connection TEXT NOT NULL DEFAULT '';
CREATE INDEX events_connection ON events (connection, status, next_attempt_at);
CREATE TABLE action_owners_2 (
  connection TEXT NOT NULL DEFAULT '',
  action_id  INTEGER NOT NULL,
  user_id    INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (connection, action_id)
);
INSERT INTO action_owners_2 (connection, action_id, user_id, updated_at) SELECT '', action_id, user_id, updated_at FROM action_owners;
DROP TABLE action_owners;
ALTER TABLE action_owners_2 RENAME TO action_owners;
CREATE INDEX action_owners_user ON action_owners (connection, user_id);
`,
];

package sqlitestore

// schemaVersion is PRAGMA user_version once the schema below exists.
const schemaVersion = 1

// schema creates the tables: tasks (clustered by id: one b-tree fewer to write than a rowid
// table with an index on id), and the counts Create checks and moves in one statement each.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS tasks (
		id               TEXT PRIMARY KEY,
		scope            TEXT NOT NULL,
		status           TEXT NOT NULL,
		status_message   TEXT NOT NULL,
		created_at       INTEGER NOT NULL,
		updated_at       INTEGER NOT NULL,
		ttl              INTEGER NOT NULL,
		expires_at       INTEGER,
		poll_interval    INTEGER NOT NULL,
		work_version     INTEGER NOT NULL,
		work_tool        TEXT NOT NULL,
		work_arguments   BLOB,
		work_meta        BLOB,
		input_requests   BLOB,
		responses        BLOB,
		keys             BLOB,
		result           BLOB,
		error            BLOB,
		cancel_requested INTEGER NOT NULL,
		attempt          INTEGER NOT NULL,
		not_before       INTEGER NOT NULL,
		lease_owner      TEXT NOT NULL,
		lease_gen        INTEGER NOT NULL,
		lease_until      INTEGER NOT NULL,
		revision         INTEGER NOT NULL
	) WITHOUT ROWID`,
	`CREATE INDEX IF NOT EXISTS tasks_runnable ON tasks (created_at, id)
		WHERE status = 'working' AND cancel_requested = 0`,
	`CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks (expires_at) WHERE expires_at IS NOT NULL`,
	// One small table for the total (key 'total') and each scope's active count (key
	// 'scope:' || scope): a Create dirties one page of it, not two.
	`CREATE TABLE IF NOT EXISTS task_counts (key TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID`,
	`INSERT INTO task_counts (key, n) VALUES ('total', 0) ON CONFLICT (key) DO NOTHING`,
}

// columns lists the tasks columns in the order scanTask reads them.
const columns = `id, scope, status, status_message, created_at, updated_at, ttl, poll_interval,
	work_version, work_tool, work_arguments, work_meta, input_requests, responses, keys, result, error,
	cancel_requested, attempt, not_before, lease_owner, lease_gen, lease_until, revision`

// notExpired is the condition of a live task at the time bound to the named parameter now.
const notExpired = `(expires_at IS NULL OR expires_at > :now)`

// terminal lists the terminal statuses in SQL.
const terminal = `('completed', 'failed', 'cancelled')`

package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the schema's versions in order: migrations[i] brings it to version i+1.
// Released entries never change; a new version is a new entry.
var migrations = [][]string{
	{
		`CREATE TABLE fastmcp_tasks (
			id               text PRIMARY KEY,
			scope            text NOT NULL,
			status           text NOT NULL,
			status_message   text NOT NULL,
			created_at       timestamptz NOT NULL,
			updated_at       timestamptz NOT NULL,
			ttl_ns           bigint NOT NULL,
			expires_at       timestamptz,
			poll_interval_ns bigint NOT NULL,
			work_version     integer NOT NULL,
			work_tool        text NOT NULL,
			work_arguments   bytea,
			work_meta        bytea,
			input_requests   bytea,
			responses        bytea,
			keys             text[],
			result           bytea,
			error            bytea,
			cancel_requested boolean NOT NULL,
			attempt          integer NOT NULL,
			not_before       timestamptz,
			lease_owner      text NOT NULL,
			lease_gen        bigint NOT NULL,
			lease_until      timestamptz,
			revision         bigint NOT NULL
		)`,
		`CREATE INDEX fastmcp_tasks_runnable ON fastmcp_tasks (created_at, id)
			WHERE status = 'working' AND NOT cancel_requested`,
		`CREATE INDEX fastmcp_tasks_expiry ON fastmcp_tasks (expires_at) WHERE expires_at IS NOT NULL`,
		`CREATE TABLE fastmcp_task_total (id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)`,
		`INSERT INTO fastmcp_task_total (id, n) VALUES (1, 0)`,
		`CREATE TABLE fastmcp_task_active (scope text PRIMARY KEY, n bigint NOT NULL)`,
		// Create in one round trip: the counters and the row, or nothing and the reason.
		`CREATE FUNCTION fastmcp_task_create(p_id text, p_scope text, p_active boolean,
			p_max_tasks bigint, p_max_active bigint, p_status text, p_status_message text,
			p_created_at timestamptz, p_updated_at timestamptz, p_ttl bigint, p_poll bigint,
			p_work_version integer, p_work_tool text, p_work_arguments bytea, p_work_meta bytea,
			p_input_requests bytea, p_responses bytea, p_keys text[], p_result bytea, p_error bytea,
			p_cancel_requested boolean, p_attempt integer, p_not_before timestamptz,
			OUT o_outcome text, OUT o_created timestamptz, OUT o_updated timestamptz)
		LANGUAGE plpgsql AS $$
		DECLARE
			c timestamptz := coalesce(p_created_at, clock_timestamp());
		BEGIN
			UPDATE fastmcp_task_total SET n = n + 1 WHERE id = 1 AND n < p_max_tasks;
			IF NOT FOUND THEN
				o_outcome := 'MaxTasks';
				RETURN;
			END IF;
			IF p_active THEN
				INSERT INTO fastmcp_task_active AS a (scope, n) VALUES (p_scope, 1)
					ON CONFLICT (scope) DO UPDATE SET n = a.n + 1 WHERE a.n < p_max_active;
				IF NOT FOUND THEN
					UPDATE fastmcp_task_total SET n = n - 1 WHERE id = 1;
					o_outcome := 'MaxActivePerScope';
					RETURN;
				END IF;
			END IF;
			INSERT INTO fastmcp_tasks (id, scope, status, status_message, created_at, updated_at, ttl_ns,
				poll_interval_ns, work_version, work_tool, work_arguments, work_meta, input_requests, responses,
				keys, result, error, cancel_requested, attempt, not_before, lease_owner, lease_gen, lease_until,
				revision, expires_at)
			VALUES (p_id, p_scope, p_status, p_status_message, c, coalesce(p_updated_at, c), p_ttl,
				p_poll, p_work_version, p_work_tool, p_work_arguments, p_work_meta, p_input_requests, p_responses,
				p_keys, p_result, p_error, p_cancel_requested, p_attempt, p_not_before, '', 0, NULL,
				1, CASE WHEN p_ttl > 0 THEN c + (p_ttl / 1000) * interval '1 microsecond' END)
			ON CONFLICT (id) DO NOTHING;
			IF NOT FOUND THEN
				UPDATE fastmcp_task_total SET n = n - 1 WHERE id = 1;
				IF p_active THEN
					UPDATE fastmcp_task_active SET n = n - 1 WHERE scope = p_scope;
				END IF;
				o_outcome := 'exists';
				RETURN;
			END IF;
			o_outcome := 'created';
			o_created := c;
			o_updated := coalesce(p_updated_at, c);
		END
		$$`,
	},
}

// SchemaVersion is the schema version this package reads and writes.
const SchemaVersion = 1

// migrateLock is the advisory lock key Migrate holds ("fmcptask").
const migrateLock = 0x666d63707461736b

// ErrNotMigrated is Open's error when the database's schema is not SchemaVersion.
var ErrNotMigrated = errors.New("pgstore: database schema is not current: call pgstore.Migrate")

// Migrate brings the database's schema to SchemaVersion, in one transaction; a database at
// that version is left as it is. It refuses a database of a newer version.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS fastmcp_tasks_schema (
			version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`); err != nil {
			return err
		}
		var version int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM fastmcp_tasks_schema`).Scan(&version); err != nil {
			return err
		}
		if version > SchemaVersion {
			return fmt.Errorf("pgstore: the database's schema version %d is newer than this package's %d", version, SchemaVersion)
		}
		for v := version; v < SchemaVersion; v++ {
			for _, stmt := range migrations[v] {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("pgstore: migration to version %d: %w", v+1, err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO fastmcp_tasks_schema (version) VALUES ($1)`, v+1); err != nil {
				return err
			}
		}
		return nil
	})
}

// schemaVersion returns the database's schema version, 0 without the schema table.
func schemaVersion(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var version int
	err := pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM fastmcp_tasks_schema`).Scan(&version)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		return 0, nil
	}
	return version, err
}

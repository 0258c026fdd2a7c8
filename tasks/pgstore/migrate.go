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

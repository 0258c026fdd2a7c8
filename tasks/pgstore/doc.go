// Package pgstore is a [tasks.Store] in PostgreSQL, on github.com/jackc/pgx/v5: tasks
// survive restarts and any number of processes share them.
//
// The application passes its own *pgxpool.Pool (Close leaves it open) and applies the
// schema by calling [Migrate], which is idempotent and versioned (table
// fastmcp_tasks_schema; concurrent callers serialize on an advisory lock). [Open] never
// changes the database: it fails with [ErrNotMigrated] until Migrate has run.
//
// Time is the database's clock (clock_timestamp(), evaluated once per statement): expiry at
// CreatedAt+TTL, leases and NotBefore never depend on the application hosts' clocks. Create
// fills a zero CreatedAt or UpdatedAt from it.
//
// ClaimNext picks the oldest runnable task with FOR UPDATE SKIP LOCKED, so concurrent
// claimers never wait for each other nor get the same task. Put, Renew and Release are one
// conditional UPDATE each (row locks), fenced by revision and lease generation.
//
// Create is one statement, one round trip and one commit: the schema's function
// fastmcp_task_create moves the counters and inserts the row, or changes nothing and names
// the refusal. Limits ([tasks.Limits]) are exact across processes, because the counter rows
// are moved in the task's own transaction (the total's row lock orders concurrent Creates). Expired tasks count until
// Reap deletes them, except that a Create at a limit first deletes the expired tasks in its
// way. A task's ID, Scope and CreatedAt are fixed at Create.
package pgstore

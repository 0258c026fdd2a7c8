// Package sqlitestore is a [tasks.Store] in one SQLite file, on modernc.org/sqlite (pure Go:
// it builds with CGO_ENABLED=0, no C toolchain). It is the embedded default: tasks survive a
// restart, and several processes on one host may share the file.
//
// [Open] creates the schema when the file has none (CREATE TABLE IF NOT EXISTS, recorded as
// PRAGMA user_version 1) and refuses a file of a newer schema. It refuses a file this
// process cannot write (its mode, an immutable attribute, a read-only mount; or its -wal or
// -shm file left unwritable) with an error wrapping [ErrReadOnly] that names the file and
// the cause, "sqlitestore: /var/lib/tasks.db is read-only: permission denied", before SQLite
// touches it: SQLite would open it read-only and refuse only its first write.
//
// The database runs in WAL mode, so readers never wait for the writer; every write is one
// BEGIN IMMEDIATE transaction, which takes the file's write lock before it reads, so a
// write never works on a stale snapshot. In one process writes queue on a mutex; between
// processes they wait for the lock up to Config.BusyTimeout (default [DefaultBusyTimeout]),
// after which the call fails with the driver's error "database is locked (5)
// (SQLITE_BUSY)". Commits are synchronous=FULL by default: a task is on disk before Create
// returns.
//
// Time (expiry, leases, NotBefore) is Config.Now, read once the write lock is held; processes
// sharing a file share the host's clock. Times are stored as Unix nanoseconds.
//
// Limits ([tasks.Limits]) are exact across processes: counters in the same transaction as
// the task. Expired tasks count until Reap deletes them, except that a Create at a limit
// first deletes the expired tasks in its way. A task's ID, Scope and CreatedAt are fixed at
// Create.
package sqlitestore

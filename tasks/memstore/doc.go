// Package memstore is a [tasks.Store] in memory: for tests and for embedded use where tasks
// need not survive the process. It passes the shared contract suite, tasks/storetest.
//
// Time (expiry at CreatedAt+TTL, leases, NotBefore) is read from Config.Now, so tests move
// it by hand instead of sleeping. Create fills a zero CreatedAt or UpdatedAt from it.
//
// A task's ID, Scope and CreatedAt are fixed at Create: Put writes every other non-lease
// field. The limits of [tasks.Limits] are enforced under one lock, so they hold exactly under
// any number of concurrent callers: a refusal is a *tasks.CapacityError naming the limit.
// Expired tasks count until Reap deletes them, except that a Create at a limit first deletes
// the expired tasks in its way and counts again.
package memstore

// Package tasks implements the Tasks extension of MCP 2026-07-28
// (io.modelcontextprotocol/tasks, SEP-2663): a tools/call may answer with a durable task the
// client polls (tasks/get), answers (tasks/update), cancels (tasks/cancel) or listens to
// (notifications/tasks on subscriptions/listen with notifications.taskIds). Tasks live in a
// [Store]: tasks/memstore in memory, tasks/sqlitestore in one SQLite file (the embedded
// default of fastmcp-bench serve), tasks/pgstore in PostgreSQL.
//
// # Serving it
//
// [New] takes the store and [Options]; [Tasks.Register] adds the extension to a
// fastmcp.Server (it is advertised in server/discover as
// capabilities.extensions["io.modelcontextprotocol/tasks"]) and starts the runner;
// [Tasks.Close] stops it. The initialize-era revisions never see the extension.
//
// Every tool is synchronous unless Options.Tools gives it a [Policy]: [Optional] (a task
// when the request declares the extension in its _meta clientCapabilities, else served at
// once), [Required] (a request that does not declare it gets -32021 with
// data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"], HTTP 400), or a
// [PolicyFunc] of the request. The call is looked up, authorized and its arguments validated
// before any task exists: refused calls create nothing. The CreateTaskResult (flat,
// resultType "task") is sent only once a tasks/get would find the task.
//
// # Running the work
//
// A task's work (tool name, arguments, the creating request's _meta and any answers of
// multi round-trip rounds before it) is stored with it. The runner claims runnable work
// with leases it renews every third of Options.LeaseDuration, and every write it makes is
// fenced by its lease. A worker that dies loses its lease and another worker (this process
// after a restart, or another one sharing the store) runs the work again: delivery is
// at-least-once, and the handler gets the task id as its idempotency key ([IDFrom]) and the
// run's number ([AttemptFrom]).
//
// A run's outcome that the store fails to write (a full disk, a database down) is kept in
// memory and written again after 100 ms, the wait doubling up to a third of
// Options.LeaseDuration, while the lease is still renewed: once the store recovers the
// outcome is stored and the work has run once. The bound: renewals are writes too, so a
// store that takes no write for a whole LeaseDuration loses the lease, and then (by this
// process's clock, or when the store reports the lease lost) the outcome is dropped and the
// work runs again, as after a crash; so it is when Close comes first, which does not wait
// for the store (the lease is released if the store takes that write). Each is logged:
// "tasks: cannot store a run's outcome, retrying while the lease is held" at the first
// failure, "tasks: a run's outcome was not stored; the work will run again" with
// reason="lease ran out", "lease lost" or "shutdown" when it gives up.
//
// A handler asks for input mid-task as in any tools/call, by returning
// *fastmcp.InputRequired: the task becomes input_required with those inputRequests (keys
// unique over the task's lifetime; asking again for an answered key fails the task).
// tasks/update stores the answers to outstanding keys before its ack (other keys are
// ignored; a partial answer keeps the task input_required with the rest), and once none is
// outstanding the work runs again from the start with every answer, so a recovered worker
// replays the same requests and gets the same answers. A tool error (isError) completes the
// task; a JSON-RPC error or a panic fails it with that error (-32603 for a panic).
// [RetryLater] reruns the work after the exact delays of Options.Retry.
//
// tasks/cancel makes a live task cancelled before its ack and interrupts its run: at once in
// this process, at its next lease renewal in another; cancelling a terminal task is the same
// empty ack. Another principal's task (Options.Scope, by default the fastmcp.Identity's
// Principal) reads exactly like an unknown one: -32602 "Invalid params: unknown task". So
// does an expired one, from createdAt+ttlMs on; the runner reaps expired tasks every
// Options.ReapInterval.
//
// Over Streamable HTTP, tasks/get, tasks/update and tasks/cancel carry the Mcp-Name header
// equal to params.taskId (missing or different: 400 with -32020). The ids are 24 random
// bytes in base64url.
//
// # Limits
//
// Each has its default and the error a client sees:
//
//   - Options.MaxJobs, [DefaultMaxJobs] 32: tasks run at once by this process; more wait in
//     the store (no error).
//   - Options.MaxRuntime, [DefaultMaxRuntime] 1 h: one run; past it the task fails with
//     -32603 "Task exceeded its maximum runtime".
//   - Options.MaxTasks, [DefaultMaxTasks] 10,000 tasks in the store, terminal ones included
//     until reaped; Options.MaxActivePerScope, [DefaultMaxActivePerScope] 100 unfinished tasks
//     per principal: past either, tools/call is -32603 "Task capacity exhausted" with data
//     {"retryable":true,"limit":"MaxTasks"} (or "MaxActivePerScope").
//   - Options.MaxWorkInputBytes, [DefaultMaxWorkInputBytes] 256 KiB: the input stored with
//     a task's work, its arguments, the creating request's _meta and every answer accepted
//     (those the tools/call brought, then each tasks/update's) together. A tools/call past
//     it is -32602 "Invalid params: task work input exceeds 262144 bytes" and creates
//     nothing; a tasks/update whose answers would take the work past it gets the same
//     error and stores none of them: the task stays input_required with the same
//     inputRequests, and smaller answers may still be sent.
//   - [MaxTaskIDBytes] 256: a longer taskId is not looked up and reads as unknown (-32602).
//   - [MaxListenTaskIDs] 100 taskIds per subscriptions/listen: more is -32602
//     "Invalid params: notifications.taskIds lists more than 100 task ids".
//   - TTL: Options.TTL, [DefaultTTL] 1 h (ttlMs 3600000; negative: ttlMs null, unlimited);
//     pollIntervalMs [DefaultPollInterval] 250. A run still going when its task expires is
//     interrupted at its next lease renewal, and its outcome is not written.
//
// notifications/tasks: the replica that writes a change publishes the task's state on the
// Server's [fastmcp.EventBus] (a TaskChanged event), and every replica sharing the bus hands
// it to its listen streams that asked for the task: with a bus across replicas (bus/natsbus,
// bus/pgbus) a change written anywhere reaches every stream; with the default bus, this
// process's. The store stays the source of truth: a stream more than 64 notifications behind
// misses the excess, and when the bus may have lost events ([fastmcp.EventsLost]) the listen
// streams complete, so clients re-read with tasks/get (polling stays the baseline).
package tasks

// Package tasks implements the Tasks extension of MCP 2026-07-28
// (io.modelcontextprotocol/tasks): a tools/call may answer with a durable task the client
// polls (tasks/get), answers (tasks/update), cancels (tasks/cancel) or listens to
// (notifications/tasks). Tasks live in a Store: tasks/memstore in memory,
// tasks/sqlitestore in one SQLite file (the embedded default), tasks/pgstore in PostgreSQL.
package tasks

package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
	"github.com/fastmcp-go/fastmcp/tasks/pgstore"
	"github.com/fastmcp-go/fastmcp/tasks/sqlitestore"
)

// tasksOptions are serve's flags for the Tasks extension.
type tasksOptions struct {
	store   string
	migrate bool
	ttl     time.Duration
	lease   time.Duration
	journal string
}

func (o *tasksOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.store, "tasks-store", "sqlite", "`store` of the Tasks extension (io.modelcontextprotocol/tasks), served with the task tools of the demo and conformance fixtures: sqlite (a file in a temporary directory, removed at exit), sqlite:PATH (a file that outlives the process), memory, postgres:DSN, or off (no extension)")
	fs.BoolVar(&o.migrate, "tasks-migrate", false, "with --tasks-store postgres:DSN: create or upgrade the task tables first (never done otherwise: a database without them is refused)")
	fs.DurationVar(&o.ttl, "tasks-ttl", tasks.DefaultTTL, "how long a task lives from its creation (its ttlMs): from then on tasks/get answers it is unknown, and it is deleted (0: the default)")
	fs.DurationVar(&o.lease, "tasks-lease", tasks.DefaultLeaseDuration, "how long a worker's claim on a task lasts unless renewed (every third of it): a killed process's tasks are run again by another worker at most this long after")
	fs.StringVar(&o.journal, "tasks-journal", "", "append one JSON line to `file` when a run of the demo report tool begins and ends (task id, attempt, pid, time): the record durability tests check")
}

// startTasks serves the Tasks extension on srv when the fixtures registered task tools (the
// demo catalog's report, the conformance catalog's), with the store --tasks-store names.
// stop ends its runner and closes the store; it is a no-op when nothing was started. opened,
// if not nil, is given the store.
func startTasks(srv *fastmcp.Server, catalogs string, o tasksOptions, logger *slog.Logger, opened func(tasks.Store)) (stop func(), err error) {
	if o.ttl < 0 { // to the package, unlimited: tasks never expire, and MaxTasks fills up
		return nil, usageError(fmt.Sprintf("--tasks-ttl %v is negative: give a task's time to live (0 selects the default, %v)", o.ttl, tasks.DefaultTTL))
	}
	policies := taskPolicies(catalogs)
	if !servesOwnTasks(catalogs, o) {
		return func() {}, nil
	}
	closeJournal := func() {}
	if o.journal != "" && hasCatalog(catalogs, "demo") {
		j, err := openRunJournal(o.journal)
		if err != nil {
			return nil, fmt.Errorf("--tasks-journal: %w", err)
		}
		srv.RemoveTools("report")
		fixtures.Report(srv, j.record)
		closeJournal = func() { _ = j.close() }
	}
	store, cleanup, err := openTaskStore(o.store, o.migrate)
	if err != nil {
		closeJournal()
		return nil, err
	}
	x, err := tasks.New(store, tasks.Options{Tools: policies, TTL: o.ttl, LeaseDuration: o.lease, Logger: logger})
	if err != nil {
		_ = store.Close()
		cleanup()
		closeJournal()
		return nil, usageError(err.Error())
	}
	x.Register(srv)
	if opened != nil {
		opened(store)
	}
	return func() {
		_ = x.Close()
		_ = store.Close()
		cleanup()
		closeJournal()
	}, nil
}

// openTaskStore opens the store a --tasks-store value names (migrate: apply PostgreSQL's
// migrations first); cleanup removes what it made for it (the temporary directory of a bare
// "sqlite", the PostgreSQL pool).
func openTaskStore(spec string, migrate bool) (_ tasks.Store, cleanup func(), _ error) {
	kind, arg, _ := strings.Cut(spec, ":")
	nothing := func() {}
	switch kind {
	case "memory":
		if migrate {
			return nil, nil, usageError("--tasks-migrate applies to --tasks-store postgres:DSN only")
		}
		if arg != "" {
			return nil, nil, usageError("--tasks-store: memory takes no argument")
		}
		return memstore.New(memstore.Config{}), nothing, nil
	case "sqlite":
		if migrate {
			return nil, nil, usageError("--tasks-migrate applies to --tasks-store postgres:DSN only")
		}
		cleanup = nothing
		if arg == "" {
			dir, err := os.MkdirTemp("", "fastmcp-bench-tasks-")
			if err != nil {
				return nil, nil, fmt.Errorf("--tasks-store: %w", err)
			}
			arg, cleanup = filepath.Join(dir, "tasks.db"), func() { _ = os.RemoveAll(dir) }
		}
		store, err := sqlitestore.Open(context.Background(), arg, sqlitestore.Config{})
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("--tasks-store: %w", err)
		}
		return store, cleanup, nil
	case "postgres":
		if arg == "" {
			return nil, nil, usageError("--tasks-store: postgres needs a DSN: postgres:postgres://user@host/db")
		}
		return openPostgres(arg, migrate)
	}
	if migrate {
		return nil, nil, usageError("--tasks-migrate applies to --tasks-store postgres:DSN only")
	}
	return nil, nil, usageError(fmt.Sprintf("--tasks-store: unknown store %q (sqlite, sqlite:PATH, memory or postgres:DSN)", spec))
}

func hasCatalog(list, name string) bool {
	for n := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(n) == name {
			return true
		}
	}
	return false
}

// openPostgres opens the store on a pool of its own connected to dsn, migrating first when
// asked; cleanup closes the pool.
func openPostgres(dsn string, migrate bool) (tasks.Store, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, closePool, err := pgstore.Dial(ctx, dsn, migrate)
	if err != nil {
		return nil, nil, fmt.Errorf("--tasks-store: %w", err)
	}
	return store, closePool, nil
}

// taskPolicies are the task tools of the fixture catalogs served.
func taskPolicies(catalogs string) map[string]tasks.Policy {
	policies := map[string]tasks.Policy{}
	if hasCatalog(catalogs, "conformance") {
		maps.Copy(policies, fixtures.TaskPolicies())
	}
	if hasCatalog(catalogs, "demo") {
		maps.Copy(policies, fixtures.DemoTaskPolicies())
	}
	return policies
}

// servesOwnTasks reports whether serve registers its own tasks extension: fixtures with task
// tools, and a store. A gateway then does not pass its backends' tasks through (one
// extension per server).
func servesOwnTasks(catalogs string, o tasksOptions) bool {
	return len(taskPolicies(catalogs)) > 0 && o.store != "off"
}

package main

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/tasks"
	"github.com/fastmcp-go/fastmcp/tasks/memstore"
)

// tasksOptions are serve's flags for the Tasks extension.
type tasksOptions struct {
	store string
}

func (o *tasksOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.store, "tasks-store", "memory", "`store` of the Tasks extension (io.modelcontextprotocol/tasks), served when the fixtures have task tools: memory, sqlite:PATH or postgres:DSN")
}

// startTasks serves the Tasks extension on srv when the fixtures registered task tools (the
// conformance catalog's), with the store --tasks-store names. stop ends its runner and closes
// the store; it is a no-op when nothing was started.
func startTasks(srv *fastmcp.Server, catalogs string, o tasksOptions, logger *slog.Logger) (stop func(), err error) {
	if !hasCatalog(catalogs, "conformance") {
		return func() {}, nil
	}
	store, err := openTaskStore(o.store)
	if err != nil {
		return nil, err
	}
	x, err := tasks.New(store, tasks.Options{Tools: fixtures.TaskPolicies(), Logger: logger})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	x.Register(srv)
	return func() {
		_ = x.Close()
		_ = store.Close()
	}, nil
}

// openTaskStore opens the store a --tasks-store value names.
func openTaskStore(spec string) (tasks.Store, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "memory":
		if arg != "" {
			return nil, usageError("--tasks-store: memory takes no argument")
		}
		return memstore.New(memstore.Config{}), nil
	case "sqlite", "postgres":
		return nil, usageError(fmt.Sprintf("--tasks-store: the %s store is not built into this binary yet", kind))
	}
	return nil, usageError(fmt.Sprintf("--tasks-store: unknown store %q (memory, sqlite:PATH or postgres:DSN)", spec))
}

func hasCatalog(list, name string) bool {
	for n := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(n) == name {
			return true
		}
	}
	return false
}

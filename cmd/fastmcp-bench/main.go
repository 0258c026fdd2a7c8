// Command fastmcp-bench serves, drives and compares MCP servers built on fastmcp.
//
// Usage:
//
//	fastmcp-bench <command> [flags]
//
// Commands:
//
//	serve     serve the demo and/or conformance fixtures over Streamable HTTP (or stdio)
//	run       run load scenarios against an embedded endpoint or a --target URL
//	compare   the same scenario against several endpoints, with ratios
//	compare-clients
//	          client-side cost per tools/call: the fastmcp client beside go-sdk's and mcp-go's
//	client-worker
//	          one client's measurement for compare-clients (a JSON line)
//	suite     the default run (what no arguments run)
//	call      call one tool on any MCP server (either era) with the client package
//	conformance-client
//	          the conformance suite's client under test (MCP_CONFORMANCE_SCENARIO)
//	version   print the module version of this build
//
// Run "fastmcp-bench <command> -h" for a command's flags. Each command lives in its own file
// and registers itself with register from an init function; a file may also set
// defaultCommand, the command run when no arguments are given.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// command is one subcommand of fastmcp-bench.
type command struct {
	// Name is the word that selects the command.
	Name string
	// Summary is one line for the usage text.
	Summary string
	// Run runs the command with the arguments after its name and returns the exit status:
	// 0 for success, 1 for a failure, 2 for a usage error. ctx ends on SIGINT or SIGTERM.
	Run func(ctx context.Context, args []string) int
}

// usageStatus is the exit status of a command whose flags did not parse: 0 for -h (the
// flag package printed the usage), 2 for a usage error.
func usageStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// commands are the registered subcommands, in registration order.
var commands []command

// defaultCommand, when set, names the command run without arguments.
var defaultCommand string

// register adds c; it panics on a duplicate name.
func register(c command) {
	if lookup(c.Name) != nil {
		panic("fastmcp-bench: command " + c.Name + " registered twice")
	}
	commands = append(commands, c)
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].Name == name {
			return &commands[i]
		}
	}
	return nil
}

func main() {
	// Installed before any command runs: once serve has printed its URL line (or answered a
	// first stdio request), SIGINT and SIGTERM drain it rather than kill it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches args to a command and returns the exit status.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) == 0 {
		if defaultCommand != "" {
			return lookup(defaultCommand).Run(ctx, nil)
		}
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stderr)
		return 0
	case "-version", "--version":
		args = []string{"version"}
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "fastmcp-bench: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.Run(ctx, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: fastmcp-bench <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	sorted := slices.Clone(commands)
	slices.SortFunc(sorted, func(a, b command) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "fastmcp-bench <command> -h" for the flags of a command.`)
}

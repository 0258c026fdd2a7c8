package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

func init() {
	register(command{
		Name:    "version",
		Summary: "print the module version of this build (what serve reports as serverInfo.version)",
		Run: func(_ context.Context, args []string) int {
			if len(args) > 0 {
				fmt.Fprintf(os.Stderr, "version: unexpected arguments %q\n", args)
				return 2
			}
			printVersion(os.Stdout)
			return 0
		},
	})
}

// printVersion writes "fastmcp-bench VERSION": a harness reads the version from here rather
// than assuming one, because it depends on how the binary was built.
func printVersion(w io.Writer) { fmt.Fprintln(w, "fastmcp-bench", version()) }

// version is the main module's version as the Go toolchain stamped it, or "devel" when it
// stamped none. go build in a git checkout stamps a pseudo-version
// (v0.0.0-20261201082729-2baa370da806) unless -buildvcs=false; go install m@v stamps v.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

//go:build unix

package loadtest

import (
	"fmt"
	"os"
	"syscall"
)

// fdMargin are the descriptors a run needs beside its streams: listeners, triggers, files.
const fdMargin = 64

// checkFDs fails, saying how to fix it, when the process cannot open n more sockets for
// what. (The Go runtime raised the soft limit to the hard one at start: the limit read here
// is what the process may use.)
func checkFDs(n int, what string) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // not known: the dials will say so
	}
	used := 0
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		used = len(fds)
	}
	if avail := int64(lim.Cur) - int64(used); avail < int64(n+fdMargin) {
		return fmt.Errorf("loadtest: %d %s need %d file descriptors, and %d of the limit of %d (ulimit -n) are free: raise ulimit -n or use fewer --streams",
			n, what, n+fdMargin, max(avail, 0), lim.Cur)
	}
	return nil
}

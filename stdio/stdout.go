package stdio

import "sync"

// stdoutOwner records that a Serve call has the process's standard output (see
// takeStdout): only one may at a time.
var stdoutOwner struct {
	sync.Mutex
	taken bool
}

package client

import "sync/atomic"

// Test hooks, unset outside tests: they let a test order the goroutines of one exchange.
// They are atomic: a test sets one while goroutines of earlier exchanges may still read it.
var (
	// testHookCancelled runs once a cancelled exchange's context has cut its connection.
	testHookCancelled atomic.Pointer[func()]
	// testHookStreamHead runs when an event stream's head has been read, before the
	// reader lifts the head's deadline.
	testHookStreamHead atomic.Pointer[func()]
	// testHookStdioWrite runs as the stdio writer takes a line, before it writes it.
	testHookStdioWrite atomic.Pointer[func(c *stdioConn, line []byte)]
)

// runHook runs the hook h holds, if any.
func runHook(h *atomic.Pointer[func()]) {
	if f := h.Load(); f != nil {
		(*f)()
	}
}

package client

// Test hooks, nil outside tests: they let a test order the goroutines of one exchange.
var (
	// testHookCancelled runs once a cancelled exchange's context has cut its connection.
	testHookCancelled func()
	// testHookStreamHead runs when an event stream's head has been read, before the
	// reader lifts the head's deadline.
	testHookStreamHead func()
	// testHookStdioWrite runs as the stdio writer takes a line, before it writes it.
	testHookStdioWrite func(c *stdioConn, line []byte)
)

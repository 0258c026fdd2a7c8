// Package inprocess connects the MCP client to a server core in the same process, with no
// transport: each request is served by [fastmcp.Server.Dispatch] on the caller's goroutine,
// with no framing and no copy of the server's reply. It is for testing an application's tools
// with the real client in a unit test, and for measuring the client and the core without a
// network (the in-process line of fastmcp-bench compare-clients).
//
// It lives apart from package client so that a program that only dials servers
// ([client.Connect]) links neither the core nor its executor, and starts none of the
// executor's goroutines.
//
// # What a call does
//
// [Connect] returns an ordinary [*client.Client] speaking 2026-07-28. Calls, lists, MRTR input
// requests (answered by the Config's handlers), progress, log messages (Config.OnLog) and the
// Tasks extension behave as over any transport. The pool settings are unused. Connect refuses,
// with these errors:
//
//   - a nil server: "inprocess: nil Server";
//   - Config.Era other than zero or EraModern: "inprocess: speaks 2026-07-28 only: leave
//     Config.Era zero or EraModern";
//   - Config.Command: "inprocess: Config.Command is for stdio; leave it empty";
//   - an invalid Config, as [client.Connect] does (for example "client: MaxPages must be a
//     positive integer, got -1").
//
// # Cancellation and limits
//
// A call's context is the handler's: a call whose context ends, or whose RequestTimeout (30 s
// by default; with ResetTimeoutOnProgress, MaxTotalTimeout, 10 min by default) passes,
// cancels the handler directly, and the call fails with the context's cause (an error wrapping
// context.DeadlineExceeded for a timeout), so nothing is sent. The client's other
// limits (MaxResponseBytes, MaxPages, MaxInputRounds, ...) apply as documented in package
// client. Close is a no-op for the server, which the caller keeps.
//
// # Example
//
//	c, err := inprocess.Connect(srv, client.Config{})
//	if err != nil {
//		return err
//	}
//	defer c.Close()
//	res, err := c.CallTool(ctx, "add", map[string]int{"a": 2, "b": 3})
//
// The package example runs it against a server with one tool.
package inprocess

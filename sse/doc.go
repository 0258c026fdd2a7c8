// Package sse writes Server-Sent Events (the text/event-stream media type)
// to an [io.Writer], typically the *bufio.Writer an HTTP server hands to a
// streaming response body, or a hijacked net.Conn. It knows nothing of HTTP
// servers or of MCP and imports only the standard library.
//
// A [Writer] serves one stream:
//
//	sw, err := sse.NewWriter(bw, nil, sse.Config{})
//	if err != nil {
//		return err
//	}
//	// A keepalive comment after each KeepAliveInterval of silence; a failed
//	// one (the client has gone) calls cancel.
//	defer sw.KeepAlive(cancel)()
//	for msg := range messages {
//		if err := sw.WriteEvent(msg); err != nil {
//			return err
//		}
//	}
//
// # Framing
//
// An event is written as
//
//	event: message
//	data: {"jsonrpc":"2.0","method":"notifications/progress",...}
//
// with a blank line after it; [Writer.WriteEventID] adds an "id:" line first.
// Data holding line breaks (LF, CRLF or a lone CR, the three line endings of
// the SSE specification) is split into several "data:" lines, which a client
// joins with LF: the data it sees is the data written with every line break
// turned into LF. No data can end an event early or start another one. For
// JSON, whose line breaks can only be whitespace between tokens, the message
// is unchanged. A keepalive is the comment frame ": keepalive" followed by a
// blank line; clients ignore it.
//
// # Flushing and disconnects
//
// Every frame is flushed as soon as it is written, so an event never waits
// in a buffer. A client that has gone is seen only as a write or flush error,
// and behind an HTTP server's body pipe often only on the second frame after
// it left; keepalives bound how long that takes. After a write error the
// Writer is broken and returns that error from every later call, because the
// stream may end inside a frame.
//
// # Write deadlines
//
// Before each frame the Writer sets a write deadline of now plus
// [Config.WriteTimeout] through a [DeadlineSetter]: the one passed to
// [NewWriter], or the destination itself when it is a net.Conn. A client
// that stops reading then fails the write after WriteTimeout instead of
// blocking the stream forever. The deadline stays set after the frame;
// code that writes to the connection itself afterwards must set its own.
// When the destination has no deadlines (the *bufio.Writer of an HTTP
// server's streaming body writes into a pipe, not the socket), WriteTimeout
// cannot be enforced; bound the stream with the server's own write timeout
// or by closing the connection.
//
// # Memory
//
// A Writer is 136 bytes on 64-bit platforms and [Writer.KeepAlive] adds one
// timer; neither starts a goroutine (an idle stream, Writer and timer: well
// under 1 KiB). A Writer over a *bufio.Writer uses that buffer and no
// other. A Writer over any other destination borrows a 4 KiB buffer from a
// shared pool only while it writes a frame, so an idle stream holds no
// buffer. Writing an event allocates nothing.
//
// # Limits
//
//   - [Config.KeepAliveInterval], default [DefaultKeepAliveInterval] (15 s):
//     the longest a stream with [Writer.KeepAlive] stays silent. Each
//     silent interval writes ": keepalive"; a failed keepalive calls the
//     stream's gone callback.
//   - [Config.WriteTimeout], default [DefaultWriteTimeout] (5 s): the time
//     one frame may take to write and flush, where a [DeadlineSetter] is
//     available. When it is exceeded the frame fails with the destination's
//     deadline error (errors.Is(err, os.ErrDeadlineExceeded) for a net.Conn)
//     and the Writer is broken.
//   - Event ids must not contain CR, LF or NUL ([ErrInvalidID]); nor may
//     [Config.Event] ([ErrInvalidConfig]).
//
// Event data is not limited here: the writer streams data of any size
// through its buffer. Bound message sizes where messages are produced.
//
// # Concurrency
//
// Writer methods may be called from concurrently running goroutines. Each
// frame is written whole under a mutex, so frames never interleave.
package sse

package observe

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines. fasthttp's process-wide date ticker never ends, and
// its worker pool's cleaner sleeps out its period after the server stopped: both are
// fasthttp's, not ours (streamable ignores the same two). net/http's server, after answering a
// refused request (431) with Connection: close, lingers up to 500 ms in closeWriteAndWait so
// the client reads the answer before the reset: bounded by net/http, not a leak of ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait"),
	)
}

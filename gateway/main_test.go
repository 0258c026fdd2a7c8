package gateway

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/stdio"
)

// stdioBackendEnv makes the test binary serve a test backend over stdio instead of running
// the tests: the stdio backends of these tests are real processes, this binary re-executed.
const stdioBackendEnv = "GATEWAY_TEST_STDIO_BACKEND"

func TestMain(m *testing.M) {
	if name := os.Getenv(stdioBackendEnv); name != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		srv := newBackendServer(name, nil)
		cfg := stdio.Config{}
		if os.Getenv(stdioBadBackendEnv) != "" {
			srv = newStdioBadServer(name)
			cfg.Output = &markerWriter{w: os.Stdout}
		}
		if era := os.Getenv(stdioLogBackendEnv); era != "" {
			srv = newLogServer(logBackendDialects[era]...)
		}
		if err := stdio.Serve(ctx, srv, cfg); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m,
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
	)
}

package streamable

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Many refused and cancelled legacy requests leave nothing behind: goroutines and the heap
// stay flat, and the inflight registry is empty again.
func TestLegacyRefusalsFlat(t *testing.T) {
	rounds := 300
	if raceEnabled {
		rounds = 200
	}
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			core := legacyCore(t)
			b := newBlocker(t, core)
			addr, stats := startStack(t, stack, core, ListenerConfig{Config: Config{Logger: discardLogger}})
			list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			// Connections dialled here are closed here: t.Cleanup would keep each until the end.
			dial := func() net.Conn {
				c, err := net.Dial("tcp", addr)
				require.NoError(t, err)
				require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
				return c
			}
			round := func() {
				kc := dial()
				defer kc.Close()
				k := &keepAlive{t: t, br: bufio.NewReader(kc), w: kc, c: kc}
				for _, raw := range []string{legacyPost(addr, list, "1999-01-01"), legacyPost(addr, list, ""), legacyPost(addr, list, v1125, "MCP-Protocol-Version: 2025-06-18")} {
					resp, _ := k.roundTrip(raw)
					require.Equal(t, http.StatusBadRequest, resp.StatusCode)
				}
				c := dial()
				defer c.Close()
				_, err := io.WriteString(c, legacyPost(addr, legacyCall(`"k"`, "block", `{}`), v1125))
				require.NoError(t, err)
				<-b.started
				resp, _ := k.roundTrip(legacyPost(addr, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"k"}}`, v1125))
				require.Equal(t, http.StatusAccepted, resp.StatusCode)
				require.Empty(t, readToClose(t, bufio.NewReader(c)))
				require.ErrorIs(t, <-b.ended, context.Canceled)
			}
			for range 20 {
				round()
			}
			settle := func() (int, uint64) {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				return runtime.NumGoroutine(), ms.HeapAlloc
			}
			require.Eventually(t, func() bool { return stats().InFlight == 0 }, 5*time.Second, time.Millisecond)
			g0, h0 := settle()
			for range rounds {
				round()
			}
			require.Eventually(t, func() bool { return stats().InFlight == 0 }, 5*time.Second, time.Millisecond)
			var g1 int
			var h1 uint64
			require.Eventually(t, func() bool { g1, h1 = settle(); return g1 <= g0+4 }, 5*time.Second, 10*time.Millisecond,
				"goroutines %d, were %d", g1, g0)
			t.Logf("%d rounds: goroutines %d -> %d, heap %d -> %d KiB", rounds, g0, g1, h0>>10, h1>>10)
			// A leak of one request's job, body or connection state is a kilobyte or more a
			// round; 128 KiB absorbs the collector's and the pools' own movement.
			assert.Less(t, int64(h1)-int64(h0), int64(128<<10+rounds*256), "the heap grows by under 256 bytes a round")
			assert.Equal(t, int64(rounds+20), stats().ClientCancels)
		})
	}
}

package fastmcp

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/fastmcp-go/fastmcp/decode"
)

// cancelOnAck ends the stream as soon as its acknowledgement is written.
type cancelOnAck struct{ cancel context.CancelFunc }

func (k *cancelOnAck) Notify(context.Context, []byte) error {
	k.cancel()
	return nil
}

// BenchmarkListen measures one listen stream's life with no events: decode, filter, index,
// acknowledgement, teardown. The URIs are the same for every stream, as when many clients
// watch the same resources.
func BenchmarkListen(b *testing.B) {
	for _, n := range []int{0, 10, 1000} {
		b.Run("uris="+strconv.Itoa(n), func(b *testing.B) {
			s := newTestServer(b, nil)
			addKinds(s, kindResource|kindTool)
			filter := `{"toolsListChanged":true}`
			if n > 0 {
				uris := make([]string, n)
				for i := range uris {
					uris[i] = "file:///project/src/module" + strconv.Itoa(i) + ".go"
				}
				filter = `{"resourceSubscriptions":["` + strings.Join(uris, `","`) + `"]}`
			}
			msg := []byte(listenRequest("1", filter))
			var m decode.Message
			sink := &cancelOnAck{}
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				sink.cancel = cancel
				if err := s.decoder.Decode(&m, msg); err != nil {
					b.Fatal(err)
				}
				s.testHandle(ctx, &m, sink, nil)
				m.Reset()
			}
		})
	}
}

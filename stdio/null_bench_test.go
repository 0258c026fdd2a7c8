package stdio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// nullReply is the line fastmcp's test server answers a tools/call of echo with, split at
// the id, so that the null server writes the same bytes.
var nullReply = [2]string{
	`{"jsonrpc":"2.0","id":`,
	`,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}` + "\n",
}

// serveNull is the floor stdio is measured against: it reads each line and writes
// nullReply carrying the line's id, with no MCP work, buffering its replies until it has
// no more input at hand, as Serve does.
func serveNull(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	for {
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		line, err := r.ReadSlice('\n')
		if err == io.EOF && len(line) == 0 {
			return w.Flush()
		}
		if err != nil {
			return err
		}
		_, _ = w.WriteString(nullReply[0])
		_, _ = w.Write(nullLineID(line))
		_, _ = w.WriteString(nullReply[1])
	}
}

// nullLineID returns the raw id of a request line (the bytes after `"id":` up to the next comma
// or brace), or null when it has none.
func nullLineID(line []byte) []byte {
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 {
		return []byte("null")
	}
	id := line[i+len(`"id":`):]
	if j := bytes.IndexAny(id, ",}"); j >= 0 {
		id = id[:j]
	}
	return id
}

// BenchmarkStdioFloor measures tools/call through Serve (impl=fastmcp) beside the null
// server (impl=null) over the same OS pipes with the same client, in one run, and prints the
// ratio of their rates against the goal of at least 0.6.
func BenchmarkStdioFloor(b *testing.B) {
	for _, inflight := range []int{1, 64} {
		rates := map[string]float64{}
		for _, impl := range []string{"fastmcp", "null"} {
			b.Run("method=tools-call/inflight="+strconv.Itoa(inflight)+"/impl="+impl, func(b *testing.B) {
				rates[impl] = runFloorBench(b, impl, inflight)
			})
		}
		if rates["null"] > 0 {
			// Printed, not logged: a parent benchmark's log is dropped unless it fails.
			fmt.Println(floorVerdict(inflight, rates["fastmcp"], rates["null"]))
		}
	}
}

// floorGoal is the least fraction of the null server's rate stdio is to reach.
const floorGoal = 0.6

// floorVerdict is the line that sets stdio's rate beside the null server's.
func floorVerdict(inflight int, fast, null float64) string {
	ratio := fast / null
	verdict := "MET"
	if ratio < floorGoal {
		verdict = "MISSED"
	}
	return fmt.Sprintf("inflight=%d: fastmcp %.0f req/s, null %.0f req/s: %.3fx the null server, goal >= %.1fx: %s",
		inflight, fast, null, ratio, floorGoal, verdict)
}

// runFloorBench drives b.N requests through impl and returns its rate.
func runFloorBench(b *testing.B, impl string, inflight int) float64 {
	srv := serveNull
	if impl == "fastmcp" {
		s, _ := newTestServer(b)
		srv = fastmcpServer(transport.For(s), transport.For(s).Decoder(), runtime.GOMAXPROCS(0))
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	ok := driveServer(b, srv, osPipe, "tools-call", inflight, b.N)
	elapsed := time.Since(start)
	require.Equal(b, b.N, ok)
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/req")
	return rate
}

package decode

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bytedance/sonic"
)

// envelope is the struct the general-purpose decoders fill for the comparison: what the MCP
// core needs from every tools/call.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Meta struct {
			ProtocolVersion    string          `json:"io.modelcontextprotocol/protocolVersion"`
			ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
			ClientInfo         json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
			ProgressToken      json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

func toolsCall(tb testing.TB) []byte {
	b, err := os.ReadFile("testdata/tools-call.json")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// payload builds a tools/call whose arguments are about size bytes of mixed JSON: records
// with ASCII, escaped and non-ASCII strings, integers, floats, booleans and nulls.
func payload(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"ingest","arguments":{"records":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`,"title":"Quarterly report for region number `)
		b.WriteString(strconv.Itoa(i % 97))
		b.WriteString(`","body":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.\nLine two has a \"quote\" and a tab\t.","note":"café – naïve – 東京","score":`)
		b.WriteString(strconv.FormatFloat(float64(i)*1.25, 'f', 2, 64))
		b.WriteString(`,"ok":true,"tags":["alpha","beta","gamma"],"parent":null}`)
	}
	b.WriteString(`]}}}`)
	return []byte(b.String())
}

// textPayload builds a tools/call whose arguments carry one document of about size bytes: long
// prose with line breaks, quotes and some non-ASCII, as a file-writing tool receives.
func textPayload(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"write_file","arguments":{"path":"notes/report.md","content":"`)
	line := `Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua; \"quoted\" – café.\n`
	for b.Len() < size {
		b.WriteString(line)
	}
	b.WriteString(`"}}}`)
	return []byte(b.String())
}

// BenchmarkDecode compares the envelope decode with encoding/json and sonic decoding into an
// equivalent struct, and the validating scan of a large payload with their validators.
func BenchmarkDecode(b *testing.B) {
	small := toolsCall(b)
	large := payload(1 << 20)
	text := textPayload(1 << 20)
	huge := []byte(req(`{"arguments":{"n":` + digits(1_999_000) + `}}`))
	for _, shape := range []struct {
		name string
		src  []byte
	}{{"tools-call", small}, {"arguments-1MiB", large}, {"arguments-1MiB-text", text}} {
		b.Run("shape="+shape.name+"/impl=fastmcp", func(b *testing.B) {
			var m Message
			b.ReportAllocs()
			b.SetBytes(int64(len(shape.src)))
			for b.Loop() {
				if err := Decode(&m, shape.src); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("shape="+shape.name+"/impl=encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(shape.src)))
			for b.Loop() {
				var e envelope
				if err := json.Unmarshal(shape.src, &e); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("shape="+shape.name+"/impl=sonic", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(shape.src)))
			for b.Loop() {
				var e envelope
				if err := sonic.Unmarshal(shape.src, &e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, shape := range []struct {
		name string
		src  []byte
	}{{"arguments-1MiB", large}, {"arguments-1MiB-text", text}} {
		b.Run("shape="+shape.name+"/impl=encoding-json-valid", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(shape.src)))
			for b.Loop() {
				if !json.Valid(shape.src) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("shape="+shape.name+"/impl=sonic-valid", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(shape.src)))
			for b.Loop() {
				if !sonic.Valid(shape.src) {
					b.Fatal("invalid")
				}
			}
		})
	}
	// A 2,000,000-digit literal is refused after 65 digits: the cost is the scan up to it.
	b.Run("shape=huge-number/impl=fastmcp", func(b *testing.B) {
		var m Message
		b.ReportAllocs()
		b.SetBytes(int64(len(huge)))
		for b.Loop() {
			if Decode(&m, huge) == nil {
				b.Fatal("accepted")
			}
		}
	})
}

// BenchmarkEncode measures the envelope and string encoders on the hot path.
func BenchmarkEncode(b *testing.B) {
	result := []byte(`{"content":[{"type":"text","text":"hello, world"}],"resultType":"complete"}`)
	buf := make([]byte, 0, 512)
	b.Run("op=result", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = AppendResult(buf[:0], []byte("42"), result)
		}
	})
	text := strings.Repeat("hello, world – café 😀 ", 20)
	for _, ascii := range []bool{false, true} {
		b.Run("op=string/ascii="+strconv.FormatBool(ascii), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				buf = AppendString(buf[:0], text, ascii)
			}
		})
	}
}

// TestBenchmarkPayloads checks the benchmark inputs decode as the benchmarks assume.
func TestBenchmarkPayloads(t *testing.T) {
	var m Message
	if err := Decode(&m, toolsCall(t)); err != nil {
		t.Fatal(err)
	}
	large := payload(1 << 20)
	if err := Decode(&m, large); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(large) || len(large) < 1<<20 {
		t.Fatal("payload is not 1 MiB of valid JSON")
	}
	text := textPayload(1 << 20)
	if err := Decode(&m, text); err != nil || !json.Valid(text) {
		t.Fatal("text payload is not valid", err)
	}
}

// BenchmarkLookup measures a member lookup whose string text is a view of the input
// (text=plain) against one that must be unescaped (text=escaped).
func BenchmarkLookup(b *testing.B) {
	for _, c := range []struct{ name, obj string }{
		{"plain", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"taskId":"786512e2-9e0d-44bd-8f29-896f0b0b0a3e"}`},
		{"escaped", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"taskId":"\u0037\u0038\u0036512e2-9e0d-44bd-8f29-896f0b0b0a3e"}`},
	} {
		obj := []byte(c.obj)
		b.Run("text="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(obj)))
			for b.Loop() {
				if len(Lookup(obj, "taskId").Text()) != 36 {
					b.Fatal("wrong text")
				}
			}
		})
	}
}

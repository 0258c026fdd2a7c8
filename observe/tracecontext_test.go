package observe

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRemoteParent checks the seed's validation of the trace context in _meta.
func TestRemoteParent(t *testing.T) {
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name, traceparent, tracestate string
		ok                            bool
		state                         string
	}{
		{"valid", valid, "a=1", true, "a=1"},
		{"no tracestate", valid, "", true, ""},
		{"unsampled", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "", true, ""},
		{"absent", "", "", false, ""},
		{"short", valid[:54], "", false, ""},
		{"version ff", "ff" + valid[2:], "", false, ""},
		{"version 00 with more", valid + "-00", "", false, ""},
		{"future version with more", "01" + valid[2:] + "-extra", "", true, ""},
		{"future version glued", "01" + valid[2:] + "extra", "", false, ""},
		{"zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "", false, ""},
		{"zero span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "", false, ""},
		{"upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "", false, ""},
		{"bad separator", "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "", false, ""},
		{"over 512 bytes", "01" + valid[2:] + "-" + strings.Repeat("a", 512-55), "", false, ""},
		{"512 bytes", "01" + valid[2:] + "-" + strings.Repeat("a", 512-56), "", true, ""},
		{"tracestate over 512 bytes dropped", valid, "a=" + strings.Repeat("b", 511), true, ""},
		{"tracestate of 33 members dropped", valid, strings.TrimSuffix(strings.Repeat("k=v,", 33), ","), true, ""},
		{"malformed tracestate dropped", valid, "not a list", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, ok := RemoteParent([]byte(tt.traceparent), []byte(tt.tracestate))
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.True(t, sc.IsValid())
				assert.True(t, sc.IsRemote())
				assert.Equal(t, tt.state, sc.TraceState().String())
			}
		})
	}
}

// FuzzRemoteParent checks that any input either gives a valid remote span context or none,
// and never panics.
func FuzzRemoteParent(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "a=1")
	f.Add("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", "")
	f.Add("ff-", "k=v,k=v")
	f.Fuzz(func(t *testing.T, traceparent, tracestate string) {
		sc, ok := RemoteParent([]byte(traceparent), []byte(tracestate))
		if ok != sc.IsValid() {
			t.Fatalf("ok %v but valid %v", ok, sc.IsValid())
		}
		if ok && (len(traceparent) < MinTraceParentBytes || len(traceparent) > MaxTraceParentBytes || traceparent[:2] == "ff") {
			t.Fatalf("accepted %q", traceparent)
		}
	})
}

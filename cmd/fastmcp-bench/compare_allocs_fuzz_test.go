package main

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseHeapCounters: a heap profile is read from another process; the parser never
// panics, and succeeds only when both counter lines are there.
func FuzzParseHeapCounters(f *testing.F) {
	f.Add("# runtime.MemStats\n# TotalAlloc = 5242880\n# Mallocs = 40000\n")
	f.Add("# Mallocs = 1\n# TotalAlloc = -3\n")
	f.Add("# Mallocs = 18446744073709551615\n# TotalAlloc = 0\n#Mallocs=2")
	f.Fuzz(func(t *testing.T, profile string) {
		h, err := parseHeapCounters(strings.NewReader(profile))
		if err != nil {
			return
		}
		if !strings.Contains(profile, "# Mallocs = ") || !strings.Contains(profile, "# TotalAlloc = ") {
			t.Fatalf("read %+v from %q", h, profile)
		}
		if h.objects > 0 && !strings.Contains(profile, strconv.FormatUint(h.objects, 10)) {
			t.Fatalf("read %d objects from %q", h.objects, profile)
		}
	})
}

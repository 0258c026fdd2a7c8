package fastmcp

import (
	"bytes"
	"sync/atomic"
)

// validMemo remembers the last bytes a pure validity check accepted. Clients repeat their
// clientInfo and capabilities on every request, so each is walked once instead of every
// time; the answer for any input is the check's own.
//
// What it buys is measured by BenchmarkClientMeta (memo_bench_test.go): Dispatch of the same
// tools/call with the memo (memo=on) and without it (memo=off, validMemosOff) in one run.
type validMemo struct {
	last   atomic.Pointer[[]byte] // immutable once stored
	misses atomic.Uint32
}

const (
	maxMemoBytes = 1 << 10 // longer values are checked every time
	// memoEvery spaces out the copies a miss makes, so clients that take turns cost at most
	// one copy per memoEvery requests.
	memoEvery = 16
)

// validMemosOff, set only by tests (BenchmarkClientMeta), makes every memo call its check.
var validMemosOff bool

// valid reports valid(b), skipping the call when b repeats the last accepted bytes.
func (v *validMemo) valid(b []byte, valid func([]byte) bool) bool {
	if validMemosOff {
		return valid(b)
	}
	if p := v.last.Load(); p != nil && bytes.Equal(*p, b) {
		return true
	}
	if !valid(b) {
		return false
	}
	if len(b) <= maxMemoBytes && v.misses.Add(1)%memoEvery == 1 {
		c := bytes.Clone(b)
		v.last.Store(&c)
	}
	return true
}

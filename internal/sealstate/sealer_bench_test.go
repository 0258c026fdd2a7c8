package sealstate

import (
	"strconv"
	"testing"
)

var benchPayloadSizes = []int{0, 256, 4 << 10}

func benchState(size int) State {
	st := testState
	st.Payload = make([]byte, size)
	return st
}

func sizeName(size int) string {
	if size >= 1<<10 {
		return "payload=" + strconv.Itoa(size>>10) + "KiB"
	}
	return "payload=" + strconv.Itoa(size) + "B"
}

func BenchmarkSeal(b *testing.B) {
	s := newTestSealer(b)
	for _, size := range benchPayloadSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			st := benchState(size)
			dst := make([]byte, 0, 2*MaxTokenBytes)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				var err error
				if dst, err = s.Seal(dst[:0], st, testNow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	s := newTestSealer(b)
	for _, size := range benchPayloadSizes {
		st := benchState(size)
		tok := seal(b, s, st, testNow)
		b.Run(sizeName(size)+"/result=ok", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := s.Open(tok, st.Binding, testNow); err != nil {
					b.Fatal(err)
				}
			}
		})
		bad := append([]byte(nil), tok...)
		bad[len(bad)/2] ^= 1
		b.Run(sizeName(size)+"/result=tampered", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := s.Open(bad, st.Binding, testNow); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}

func BenchmarkDigest(b *testing.B) {
	args := []byte(`{"env":"prod","replicas":3,"region":"eu-west-1"}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		_ = Digest("deploy", args)
	}
}

// TestBenchmarkSealOpen runs the benchmark bodies once, so a broken
// benchmark fails go test.
func TestBenchmarkSealOpen(t *testing.T) {
	s := newTestSealer(t)
	for _, size := range benchPayloadSizes {
		st := benchState(size)
		tok, err := s.Seal(make([]byte, 0, 2*MaxTokenBytes), st, testNow)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Open(tok, st.Binding, testNow); err != nil {
			t.Fatal(err)
		}
		tok[len(tok)/2] ^= 1
		if _, err := s.Open(tok, st.Binding, testNow); err == nil {
			t.Fatal("tampered token accepted")
		}
	}
}

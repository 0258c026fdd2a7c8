//go:build !unix

package streamable

// cpuTime is not measured here: the benchmarks report 0 cpu-ns/op.
func cpuTime() int64 { return 0 }

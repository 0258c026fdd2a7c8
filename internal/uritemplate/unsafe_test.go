package uritemplate

import "unsafe"

// unsafeData returns a pointer to the first byte of s, to check that a value
// shares the URI's memory.
func unsafeData(s string) *byte { return unsafe.StringData(s) }

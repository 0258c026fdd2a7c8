package decode

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// firstSpecial is the reference for special8: the index of the first byte of w that needs a
// closer look inside a string, or 8.
func firstSpecial(w [8]byte) int {
	for i, c := range w {
		if !plainByte[c] {
			return i
		}
	}
	return 8
}

func lowestFlag(w [8]byte) int {
	return bits.TrailingZeros64(special8(binary.LittleEndian.Uint64(w[:]))) >> 3
}

// TestSpecial8 checks that the lowest flag of special8 is exactly the first special byte:
// every byte value at every position, below plain bytes and above arbitrary ones, and random
// words drawn mostly from the bytes that border the special ranges.
func TestSpecial8(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for c := range 256 {
		for p := range 8 {
			for range 8 {
				var w [8]byte
				for i := range w {
					switch {
					case i < p:
						w[i] = byte(0x20 + r.IntN(0x60)) // may itself be special: the reference decides
					case i == p:
						w[i] = byte(c)
					default:
						w[i] = byte(r.Uint32())
					}
				}
				require.Equal(t, firstSpecial(w), lowestFlag(w), "%q", w[:])
			}
		}
	}
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', 0x23, 0x5b, '\\', 0x5d, 0x7e, 0x7f, 0x80, 0x81, 0xa2, 0xdc, 0xff, 'a'}
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = edges[r.IntN(len(edges))]
		}
		require.Equal(t, firstSpecial(w), lowestFlag(w), "%q", w[:])
	}
}

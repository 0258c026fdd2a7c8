package pool

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyTable against a map, through growth and long chains.
func TestKeyTable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	recs := []*job{nil}
	kt := newKeyTable(0, &recs)
	want := map[Key]*job{}
	key := func() Key { return Key{Owner: r.Uint64N(4), ID: strconv.Itoa(r.IntN(50))} }
	for range 5000 {
		k := key()
		h := kt.hashKey(k)
		got := kt.get(k, h)
		require.Equal(t, want[k], got)
		if got != nil && r.IntN(2) == 0 {
			kt.remove(got)
			delete(want, k)
		} else if got == nil {
			j := &job{id: len(recs), key: k, keyHash: h}
			recs = append(recs, j)
			kt.add(j)
			want[k] = j
		}
		require.Equal(t, len(want), kt.n)
	}
	assert.Greater(t, len(kt.buckets), 8, "the table grew")
	for k, j := range want {
		require.Same(t, j, kt.get(k, kt.hashKey(k)))
		kt.remove(j)
	}
	assert.Zero(t, kt.n)
	for _, head := range kt.buckets {
		assert.Zero(t, head)
	}
}

// Keys that differ only by owner, as when many connections use request id
// 1, spread over the buckets.
func TestKeyTableSpreadsOwners(t *testing.T) {
	kt := newKeyTable(64, &[]*job{nil})
	used := map[uint64]bool{}
	for owner := range uint64(64) {
		used[kt.hashKey(Key{Owner: owner, ID: "1"})>>kt.shift] = true
	}
	assert.Greater(t, len(used), 32)
}

package pool

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeadlineHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h deadlineHeap
	var live []*job
	for range 2000 {
		if len(live) > 0 && r.IntN(3) == 0 {
			i := r.IntN(len(live))
			h.remove(live[i])
			assert.Equal(t, -1, live[i].heapIndex)
			live = slices.Delete(live, i, i+1)
		} else {
			j := &job{ctx: &jobCtx{deadline: time.Duration(r.IntN(100) + 1)}}
			h.push(j)
			live = append(live, j)
		}
		require.Len(t, h, len(live))
		for i, j := range h {
			if j.heapIndex != i || (i > 0 && h[(i-1)/2].ctx.deadline > j.ctx.deadline) {
				t.Fatalf("heap invariant broken at %d", i)
			}
		}
	}
	// Popping the minimum repeatedly yields sorted deadlines.
	var got []time.Duration
	for len(h) > 0 {
		got = append(got, h[0].ctx.deadline)
		h.remove(h[0])
	}
	assert.True(t, slices.IsSorted(got))
}

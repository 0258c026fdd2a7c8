package pool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func listIDs(l *jobList) []string {
	var ids []string
	for j := l.head; j != nil; j = j.next {
		ids = append(ids, j.key.ID)
	}
	return ids
}

func TestJobList(t *testing.T) {
	var l jobList
	jobs := make([]*job, 4)
	for i, id := range []string{"a", "b", "c", "d"} {
		jobs[i] = &job{key: Key{ID: id}}
		l.pushBack(jobs[i])
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, listIDs(&l))

	l.remove(jobs[2]) // middle
	assert.Equal(t, []string{"a", "b", "d"}, listIDs(&l))
	l.remove(jobs[3]) // tail
	assert.Equal(t, []string{"a", "b"}, listIDs(&l))
	assert.Same(t, jobs[1], l.tail)

	assert.Same(t, jobs[0], l.popFront())
	assert.Same(t, jobs[1], l.popFront())
	assert.Nil(t, l.popFront())
	assert.Zero(t, l.n)
	assert.Nil(t, l.head)
	assert.Nil(t, l.tail)

	l.pushBack(jobs[2])
	assert.Equal(t, []string{"c"}, listIDs(&l))
	assert.Nil(t, jobs[2].prev)
	assert.Equal(t, 1, l.n)
}

package client

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Lines already queued when the writer takes one go out in the same Write, up to
// maxWriteBatch bytes: concurrent calls cost the server one read, not one each.
func TestStdioWriterJoinsQueuedLines(t *testing.T) {
	c := &stdioConn{writes: make(chan []byte, writeQueue)}
	for _, l := range []string{"b\n", "c\n"} {
		c.writes <- []byte(l)
	}
	assert.Equal(t, "a\nb\nc\n", string(c.joinQueued([]byte("a\n"))))
	assert.Empty(t, c.writes)

	big := append(bytes.Repeat([]byte("x"), maxWriteBatch), '\n')
	c.writes <- big
	c.writes <- []byte("after\n")
	got := c.joinQueued([]byte("a\n"))
	assert.Equal(t, len(big)+2, len(got), "the batch stops once it holds maxWriteBatch bytes")
	assert.Len(t, c.writes, 1, "the line past the bound waits for the next Write")
}

package client

import (
	"bytes"
	"sync/atomic"
)

// callMeta caches the last _meta prefix built for a call with capabilities or a log level of
// its own (an InputRound's capabilities, WithLog): a gateway forwards each caller's
// capabilities, mostly the same few, and would otherwise build the same bytes on every
// call. The prefix is read only once built.
type callMeta struct {
	last atomic.Pointer[builtMeta]
}

type builtMeta struct {
	version, level string
	tasks          bool
	caps           []byte // as given, before the tasks extension is added
	meta           []byte
}

// get returns the _meta prefix for version, caps (with the tasks extension when tasks) and
// level, from the cache when the last call asked the same.
func (m *callMeta) get(c *Client, version string, caps []byte, tasks bool, level string) []byte {
	if b := m.last.Load(); b != nil && b.version == version && b.level == level && b.tasks == tasks && bytes.Equal(b.caps, caps) {
		return b.meta
	}
	b := &builtMeta{version: version, level: level, tasks: tasks, caps: bytes.Clone(caps)}
	if tasks {
		caps = withTasksExtension(caps)
	}
	b.meta = c.appendMeta(nil, version, caps, level)
	m.last.Store(b)
	return b.meta
}

package memstore

import (
	"bytes"
	"slices"

	"github.com/fastmcp-go/fastmcp/tasks"
)

// clone copies t deeply, so neither the caller nor the store sees the other's later writes.
func clone(t *tasks.Task) *tasks.Task {
	c := *t
	c.Work.Arguments = bytes.Clone(t.Work.Arguments)
	c.Work.Meta = bytes.Clone(t.Work.Meta)
	c.InputRequests = bytes.Clone(t.InputRequests)
	c.Responses = bytes.Clone(t.Responses)
	c.Result = bytes.Clone(t.Result)
	c.Error = bytes.Clone(t.Error)
	c.Keys = slices.Clone(t.Keys)
	return &c
}

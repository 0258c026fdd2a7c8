package observe

import (
	"context"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Chain returns one Observer that tells each of observers, in order at the start and in
// reverse at the end (so a tracer listed first sees the others inside its span). Nil
// observers are skipped; with none left Chain returns nil, which turns observation off.
func Chain(observers ...fastmcp.Observer) fastmcp.Observer {
	var list chain
	for _, o := range observers {
		if o != nil {
			list = append(list, o)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return list
}

type chain []fastmcp.Observer

func (c chain) RequestStart(ctx context.Context, info fastmcp.RequestInfo) context.Context {
	for _, o := range c {
		ctx = o.RequestStart(ctx, info)
	}
	return ctx
}

func (c chain) RequestEnd(ctx context.Context, info fastmcp.RequestInfo, out fastmcp.RequestOutcome) {
	for i := len(c) - 1; i >= 0; i-- {
		c[i].RequestEnd(ctx, info, out)
	}
}

package client

import "context"

// Protocol revisions the client speaks.
const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"
)

// negotiate settles the era: nothing to send when pinned modern.
func (c *Client) negotiate(ctx context.Context) error {
	if c.cfg.Era == EraModern {
		return nil
	}
	return ErrNotImplemented
}

package sse

import "errors"

var (
	// ErrInvalidConfig is wrapped by the error that [NewWriter] and
	// [Config.Validate] return for an invalid [Config].
	ErrInvalidConfig = errors.New("sse: invalid config")

	// ErrInvalidID is returned by [Writer.WriteEventID] for an id that
	// contains CR, LF or NUL. Nothing is written, and the Writer stays
	// usable.
	ErrInvalidID = errors.New("sse: invalid event id")
)

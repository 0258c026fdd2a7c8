package sse

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigResolve(t *testing.T) {
	got, err := Config{}.resolve()
	require.NoError(t, err)
	assert.Equal(t, Config{
		Event:             DefaultEvent,
		KeepAliveInterval: DefaultKeepAliveInterval,
		WriteTimeout:      DefaultWriteTimeout,
	}, got)

	set := Config{Event: "update", KeepAliveInterval: time.Second, WriteTimeout: time.Minute}
	got, err = set.resolve()
	require.NoError(t, err)
	assert.Equal(t, set, got)
}

func TestConfigInvalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		msg  string
	}{
		{"event with LF", Config{Event: "a\nb"}, `sse: invalid config: Event "a\nb" contains CR, LF or NUL`},
		{"event with CR", Config{Event: "a\r"}, `sse: invalid config: Event "a\r" contains CR, LF or NUL`},
		{"event with NUL", Config{Event: "\x00"}, `sse: invalid config: Event "\x00" contains CR, LF or NUL`},
		{"negative keepalive", Config{KeepAliveInterval: -1}, "sse: invalid config: KeepAliveInterval -1ns is negative"},
		{"negative write timeout", Config{WriteTimeout: -time.Second}, "sse: invalid config: WriteTimeout -1s is negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.EqualError(t, err, tc.msg)

			w, err := NewWriter(io.Discard, nil, tc.cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Nil(t, w)
		})
	}
}

func TestNewWriterNilPanics(t *testing.T) {
	assert.PanicsWithValue(t, "sse: NewWriter called with a nil io.Writer", func() {
		_, _ = NewWriter(nil, nil, Config{})
	})
}

package pool

import (
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigResolve(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	tests := []struct {
		name string
		cfg  Config
		want settings
	}{
		{
			name: "zero means defaults",
			cfg:  Config{},
			want: settings{maxRunning: 32, maxQueue: 256, timeout: 30 * time.Second, maxSlots: 256, log: slog.Default()},
		},
		{
			name: "explicit values",
			cfg:  Config{MaxConcurrency: 1, MaxQueue: 2, DefaultTimeout: time.Second, MaxSlots: 3, Logger: logger},
			want: settings{maxRunning: 1, maxQueue: 2, timeout: time.Second, maxSlots: 3, log: logger},
		},
		{
			name: "no queue and no timeout",
			cfg:  Config{MaxQueue: NoQueue, DefaultTimeout: NoTimeout},
			want: settings{maxRunning: 32, maxQueue: 0, timeout: NoTimeout, maxSlots: 256, log: slog.Default()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.cfg.resolve()
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestConfigInvalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"negative concurrency", Config{MaxConcurrency: -1}},
		{"concurrency above int32", Config{MaxConcurrency: math.MaxInt32 + 1}},
		{"queue below NoQueue", Config{MaxQueue: -2}},
		{"timeout below NoTimeout", Config{DefaultTimeout: -time.Second}},
		{"negative slots", Config{MaxSlots: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(tc.cfg)
			assert.Nil(t, e)
			assert.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
}

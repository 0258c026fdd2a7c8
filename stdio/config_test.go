package stdio

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/pool"
)

func TestConfigDefaults(t *testing.T) {
	s, err := Config{}.resolve()
	require.NoError(t, err)
	require.Equal(t, DefaultWriteTimeout, s.writeTimeout)
	require.Equal(t, DefaultMaxLineBytes, s.maxLineBytes)
	require.Equal(t, DefaultMaxSubscriptions, s.maxSubscriptions)
	require.Zero(t, s.requestTimeout, "the executor's default")
	require.NotNil(t, s.log)

	p := Config{MaxSubscriptions: 5}.poolConfig(settings{maxSubscriptions: 5, log: discard})
	require.Equal(t, 5, p.MaxSlots)
	require.Same(t, discard, p.Logger)
	p = Config{Pool: pool.Config{MaxSlots: 9}}.poolConfig(settings{maxSubscriptions: 5})
	require.Equal(t, 9, p.MaxSlots)
}

func TestConfigInvalid(t *testing.T) {
	s, _ := newTestServer(t)
	cases := []struct {
		name string
		cfg  Config
	}{
		{"negative WriteTimeout", Config{WriteTimeout: -1}},
		{"negative MaxLineBytes", Config{MaxLineBytes: -1}},
		{"negative RequestTimeout", Config{RequestTimeout: -time.Second}},
		{"negative MaxSubscriptions", Config{MaxSubscriptions: -1}},
		{"invalid Pool", Config{Pool: pool.Config{MaxQueue: -5}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Input, tc.cfg.Output = strings.NewReader(""), &recordingWriter{}
			require.ErrorIs(t, Serve(context.Background(), s, tc.cfg), ErrInvalidConfig)
		})
	}
	require.ErrorIs(t, Serve(context.Background(), nil, Config{}), ErrInvalidConfig)
	_, err := Config{RequestTimeout: pool.NoTimeout}.resolve()
	require.NoError(t, err)
}

// Only one Serve may hold the process's standard output.
func TestStdoutInUse(t *testing.T) {
	_, restore, err := takeStdout()
	require.NoError(t, err)
	_, _, err = takeStdout()
	require.ErrorIs(t, err, ErrStdoutInUse)
	s, _ := newTestServer(t)
	require.ErrorIs(t, Serve(context.Background(), s, Config{Input: strings.NewReader("")}), ErrStdoutInUse)
	restore()
	_, restore, err = takeStdout()
	require.NoError(t, err)
	restore()
}

package fastmcp

import (
	"bytes"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateKey returns a distinct valid key for each b.
func stateKey(b byte) []byte { return bytes.Repeat([]byte{b}, MinStateKeyBytes) }

// The prompt that asks for input, its question as the wire carries it, its answer, and the
// result it gives once answered.
const (
	keyPrompt    = `"name":"test_input_required_result_prompt"`
	keyAnswer    = `"inputResponses":{"user_context":{"action":"accept","content":{"context":"ctx"}}}`
	keyCompleted = `,"result":{"resultType":"complete","description":"A prompt that asks for context",` +
		`"messages":[{"role":"user","content":{"type":"text","text":"Prompt with context: ctx"}}],` + serverInfoMeta + `}}`
)

func invalidState(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"error":{"code":-32602,"message":"Invalid or expired request state"}}`
}

func completed(id int) string { return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + keyCompleted }

func keyedServer(t *testing.T, cfg *Config) *Server {
	t.Helper()
	s := newTestServer(t, cfg)
	addTestPrompts(s)
	return s
}

// sealOn runs the first round on s and returns the requestState it sealed.
func sealOn(t *testing.T, s *Server) string {
	t.Helper()
	round1 := dispatch(t, s, mrtrReq(1, "prompts/get", keyPrompt))
	return resultMember(t, round1, "requestState")
}

// retry is the second round with state.
func retry(id int, state string) string {
	return mrtrReq(id, "prompts/get", keyPrompt+`,`+keyAnswer+`,"requestState":"`+state+`"`)
}

// TestStateKeysShared: replicas configured with the same keys open each other's
// requestState, the first round on A answered on B; a replica with other keys refuses it.
func TestStateKeysShared(t *testing.T) {
	keys := [][]byte{stateKey(1), stateKey(2)}
	a := keyedServer(t, &Config{StateKeys: keys})
	b := keyedServer(t, &Config{StateKeys: [][]byte{stateKey(2), stateKey(1)}}) // any order opens
	other := keyedServer(t, &Config{StateKeys: [][]byte{stateKey(3)}})

	round1 := dispatch(t, a, mrtrReq(1, "prompts/get", keyPrompt))
	state := resultMember(t, round1, "requestState")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"user_context":{"method":"elicitation/create",`+
		`"params":{"mode":"form","message":"What context should the prompt use?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}}},`+
		`"requestState":"`+state+`",`+serverInfoMeta+`}}`, round1)

	assert.Equal(t, completed(2), dispatch(t, b, retry(2, state)))
	assert.Equal(t, invalidState(3), dispatch(t, other, retry(3, state)))

	// StateKey is the one-key spelling of StateKeys.
	single := keyedServer(t, &Config{StateKey: stateKey(1)})
	assert.Equal(t, completed(4), dispatch(t, single, retry(4, state)))
}

// TestStateKeysRotation: the new key put first seals while the old still opens; once the old
// key is removed, its states are refused.
func TestStateKeysRotation(t *testing.T) {
	oldKey, newKey := stateKey(1), stateKey(2)
	s := keyedServer(t, &Config{StateKeys: [][]byte{oldKey}})
	notYet := keyedServer(t, &Config{StateKeys: [][]byte{oldKey, newKey}}) // a replica at step one
	stateOld := sealOn(t, s)

	require.NoError(t, s.SetStateKeys([][]byte{newKey, oldKey}))
	assert.Equal(t, completed(2), dispatch(t, s, retry(2, stateOld)), "the old key still opens")
	stateNew := sealOn(t, s)
	assert.Equal(t, completed(3), dispatch(t, notYet, retry(3, stateNew)), "a replica that holds the new key second opens it")
	assert.Equal(t, completed(4), dispatch(t, notYet, retry(4, stateOld)))
	old := keyedServer(t, &Config{StateKeys: [][]byte{oldKey}})
	assert.Equal(t, invalidState(5), dispatch(t, old, retry(5, stateNew)), "the new key seals")

	require.NoError(t, s.SetStateKeys([][]byte{newKey}))
	assert.Equal(t, invalidState(6), dispatch(t, s, retry(6, stateOld)), "the old key is gone")
	assert.Equal(t, completed(7), dispatch(t, s, retry(7, stateNew)))
}

// TestSetStateKeysInvalid: bad keys are refused naming the fault, and the keys in use stay.
func TestSetStateKeysInvalid(t *testing.T) {
	s := keyedServer(t, &Config{StateKeys: [][]byte{stateKey(1)}})
	state := sealOn(t, s)
	nine := make([][]byte, MaxStateKeys+1)
	for i := range nine {
		nine[i] = stateKey(byte(i + 1))
	}
	tests := []struct {
		name string
		keys [][]byte
		want string
	}{
		{"nil", nil, "fastmcp: invalid config: StateKeys is empty"},
		{"empty", [][]byte{}, "fastmcp: invalid config: StateKeys is empty"},
		{"short", [][]byte{stateKey(2), []byte("short")}, "fastmcp: invalid config: StateKeys[1] has 5 bytes, want at least 32"},
		{"repeated", [][]byte{stateKey(2), stateKey(3), stateKey(2)}, "fastmcp: invalid config: StateKeys[2] repeats StateKeys[0]"},
		{"too many", nine, "fastmcp: invalid config: 9 StateKeys, at most 8 are allowed"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.SetStateKeys(tc.keys)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.EqualError(t, err, tc.want)
			assert.Equal(t, completed(i+2), dispatch(t, s, retry(i+2, state)), "the keys in use stay")
		})
	}
}

func TestConfigStateKeysInvalid(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"both", Config{StateKey: stateKey(1), StateKeys: [][]byte{stateKey(2)}}, "fastmcp: invalid config: set StateKey or StateKeys, not both"},
		{"short StateKey", Config{StateKey: []byte("short")}, "fastmcp: invalid config: StateKeys[0] has 5 bytes, want at least 32"},
		{"empty StateKeys", Config{StateKeys: [][]byte{}}, "fastmcp: invalid config: StateKeys is empty"},
		{"repeated", Config{StateKeys: [][]byte{stateKey(1), stateKey(1)}}, "fastmcp: invalid config: StateKeys[1] repeats StateKeys[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewServer(Implementation{Name: "test", Version: "1.0.0"}, &tc.cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.EqualError(t, err, tc.want)
		})
	}
}

// TestStateTTLRandomKey: StateTTL bounds the states of a server without configured keys too
// (its random key was once sealed with the default TTL whatever StateTTL said).
func TestStateTTLRandomKey(t *testing.T) {
	for _, cfg := range []*Config{{StateTTL: time.Second}, {StateTTL: time.Second, StateKey: stateKey(1)}} {
		s := keyedServer(t, cfg)
		clock := newWrapClock(s)
		state := sealOn(t, s)
		clock.advance(time.Second - time.Millisecond)
		assert.Equal(t, completed(2), dispatch(t, s, retry(2, state)))
		clock.advance(2 * time.Millisecond)
		assert.Equal(t, invalidState(3), dispatch(t, s, retry(3, state)), "past StateTTL")
	}
}

// TestSetStateKeysConcurrent: rotating while round trips run refuses none whose keys were
// held throughout (run it with -race).
func TestSetStateKeysConcurrent(t *testing.T) {
	k1, k2 := stateKey(1), stateKey(2)
	s := keyedServer(t, &Config{StateKeys: [][]byte{k1, k2}})
	stop := make(chan struct{})
	rotated := make(chan struct{})
	go func() {
		defer close(rotated)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			keys := [][]byte{k1, k2}
			if i%2 == 1 {
				keys = [][]byte{k2, k1}
			}
			assert.NoError(t, s.SetStateKeys(keys))
		}
	}()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				id := w*1000 + i
				assert.Equal(t, completed(id), dispatch(t, s, retry(id, sealOn(t, s))))
			}
		})
	}
	wg.Wait()
	close(stop)
	<-rotated
}

func TestMaxStateKeysIsSealers(t *testing.T) {
	assert.Equal(t, sealstateMaxKeys, MaxStateKeys)
}

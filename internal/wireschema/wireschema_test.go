package wireschema

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requiredOf returns the top-level "required" list of definition def in revision rev, read from
// the embedded schema file.
func requiredOf(t *testing.T, rev, def string) []string {
	t.Helper()
	raw, err := files.ReadFile("schemas/" + rev + "/schema.json")
	require.NoError(t, err)
	type definition struct {
		Required []string `json:"required"`
	}
	var doc struct {
		Defs        map[string]definition `json:"$defs"`
		Definitions map[string]definition `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	d, ok := doc.Defs[def]
	if !ok {
		d, ok = doc.Definitions[def]
	}
	require.True(t, ok, "definition %s", def)
	return d.Required
}

func TestExamplesValidate(t *testing.T) {
	defs := ExampleDefinitions()
	require.NotEmpty(t, defs)
	total := 0
	for _, def := range defs {
		examples := Examples(def)
		require.NotEmpty(t, examples, def)
		for name, msg := range examples {
			total++
			t.Run(def+"/"+name, func(t *testing.T) {
				RequireValid(t, def, msg)
			})
		}
	}
	// 129 example files copied from the specification repository (commit b0f60ba5).
	assert.Equal(t, 129, total)
}

func TestExamplesMutatedFail(t *testing.T) {
	checked := 0
	for _, def := range ExampleDefinitions() {
		required := requiredOf(t, Latest, def)
		for name, msg := range Examples(def) {
			var obj map[string]json.RawMessage
			if json.Unmarshal(msg, &obj) != nil {
				continue // not an object example
			}
			for _, key := range required {
				if _, ok := obj[key]; !ok {
					continue
				}
				mutated := make(map[string]json.RawMessage, len(obj))
				for k, v := range obj {
					if k != key {
						mutated[k] = v
					}
				}
				b, err := json.Marshal(mutated)
				require.NoError(t, err)
				err = Validate(Latest, def, b)
				assert.ErrorIs(t, err, ErrInvalid, "%s/%s without %q must not validate", def, name, key)
				checked++
			}
		}
	}
	assert.Greater(t, checked, 100)
}

func TestCallToolResultWithoutResultType(t *testing.T) {
	// 2026-07-28 requires resultType on CallToolResult; the initialize-era revisions do not have it.
	assert.Contains(t, requiredOf(t, Latest, "CallToolResult"), "resultType")

	for _, tc := range []struct {
		name  string
		rev   string
		def   string
		msg   string
		valid bool
	}{
		{"complete", Latest, "CallToolResult", `{"resultType":"complete","content":[{"type":"text","text":"hi"}]}`, true},
		{"no resultType", Latest, "CallToolResult", `{"content":[{"type":"text","text":"hi"}]}`, false},
		{"no content", Latest, "CallToolResult", `{"resultType":"complete"}`, false},
		{"bad content block", Latest, "CallToolResult", `{"resultType":"complete","content":[{"type":"text"}]}`, false},
		{"response no resultType", Latest, "CallToolResultResponse", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, false},
		{"response", Latest, "CallToolResultResponse", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`, true},
		{"response bad jsonrpc", Latest, "CallToolResultResponse", `{"jsonrpc":"1.0","id":1,"result":{"resultType":"complete","content":[]}}`, false},
		{"2025-11-25 without resultType", "2025-11-25", "CallToolResult", `{"content":[{"type":"text","text":"hi"}]}`, true},
		{"2025-06-18 without resultType", "2025-06-18", "CallToolResult", `{"content":[{"type":"text","text":"hi"}]}`, true},
		{"2025-06-18 no content", "2025-06-18", "CallToolResult", `{"isError":true}`, false},
		{"2025-06-18 initialize", "2025-06-18", "InitializeResult", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, true},
		{"2025-06-18 initialize missing serverInfo", "2025-06-18", "InitializeResult", `{"protocolVersion":"2025-06-18","capabilities":{}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.rev, tc.def, []byte(tc.msg))
			if tc.valid {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalid)
			assert.True(t, IsInvalid(err))
		})
	}
}

func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		rev  string
		def  string
		msg  string
		want error
	}{
		{"unknown revision", "2024-11-05", "CallToolResult", `{}`, ErrUnknownRevision},
		{"unknown definition", Latest, "NoSuchThing", `{}`, ErrUnknownDefinition},
		{"empty definition", Latest, "", `{}`, ErrUnknownDefinition},
		{"definition is a path", Latest, "CallToolResult/properties", `{}`, ErrUnknownDefinition},
		{"initialize removed in 2026-07-28", Latest, "InitializeResult", `{}`, ErrUnknownDefinition},
		{"malformed JSON", Latest, "CallToolResult", `{"content":`, ErrInvalidJSON},
		{"trailing data", Latest, "CallToolResult", `{} {}`, ErrInvalidJSON},
		{"empty message", Latest, "CallToolResult", ``, ErrInvalidJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.rev, tc.def, []byte(tc.msg))
			require.ErrorIs(t, err, tc.want)
			assert.False(t, IsInvalid(err))
		})
	}
}

// TestEveryDefinitionCompiles compiles every definition of every embedded revision, so a schema
// update that the validator cannot handle fails here rather than in some other package's test.
func TestEveryDefinitionCompiles(t *testing.T) {
	for _, rev := range Revisions() {
		defs, err := Definitions(rev)
		require.NoError(t, err)
		require.NotEmpty(t, defs)
		for _, def := range defs {
			_, err := revisions[rev].schema(def)
			require.NoError(t, err, "%s %s", rev, def)
		}
	}
	_, err := Definitions("1999-01-01")
	require.ErrorIs(t, err, ErrUnknownRevision)
}

func TestExamples(t *testing.T) {
	ex := Examples("CallToolResult")
	require.Len(t, ex, 4)
	require.Contains(t, ex, "result-with-structured-content.json")

	// Fresh copies: changing one does not change the next call's bytes.
	b := ex["result-with-structured-content.json"]
	orig := string(b)
	b[0] = 'X'
	assert.Equal(t, orig, string(Examples("CallToolResult")["result-with-structured-content.json"]))

	assert.Nil(t, Examples("NoSuchThing"))
	assert.Nil(t, Examples(""))
	assert.Nil(t, Examples("../schemas"))
	assert.Nil(t, Examples("."))
	assert.NotContains(t, ExampleDefinitions(), "README.md")
}

func TestRevisions(t *testing.T) {
	assert.Equal(t, []string{"2026-07-28", "2025-11-25", "2025-06-18"}, Revisions())
	r := Revisions()
	r[0] = "x"
	assert.Equal(t, Latest, Revisions()[0])
}

// fakeTB records FailNow so RequireValid's failure path can be tested without failing this test.
type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Errorf(format string, args ...any) { _ = fmt.Sprintf(format, args...) }
func (f *fakeTB) FailNow()                          { f.failed = true; panic(f) }

func TestRequireValidFails(t *testing.T) {
	ft := &fakeTB{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != any(ft) {
				panic(r)
			}
		}()
		RequireValid(ft, "CallToolResult", []byte(`{"content":[]}`))
	}()
	assert.True(t, ft.failed)
}

func TestValidateConcurrent(t *testing.T) {
	msgs := Examples("CallToolResultResponse")
	require.NotEmpty(t, msgs)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defs := []string{"CallToolResultResponse", "ListToolsResultResponse", "InputRequiredResult"}
			for _, msg := range msgs {
				assert.NoError(t, Validate(Latest, defs[0], msg))
			}
			// Compile different definitions concurrently too.
			_ = Validate(Latest, defs[i%len(defs)], []byte(`{}`))
		}()
	}
	wg.Wait()
}

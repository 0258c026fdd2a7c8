package client

import (
	"bufio"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// pagedFake serves tools/list (and the other lists) in pages of one, cursors "c1", "c2",
// counting the requests.
func pagedFake(t *testing.T, calls *[]string) *fakeServer {
	return newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		params := decode.Lookup(r.body, "params").Raw()
		cursor := decode.Lookup(params, "cursor").String()
		*calls = append(*calls, cursor)
		method := decode.Lookup(r.body, "method").String()
		key := map[string]string{"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates"}[method]
		item := map[string]string{"": `{"name":"a","uri":"u:a","uriTemplate":"u:{a}"}`, "c1": `{"name":"b","uri":"u:b","uriTemplate":"u:{b}"}`, "c2": `{"name":"c","uri":"u:c","uriTemplate":"u:{c}"}`}[cursor]
		next := map[string]string{"": `,"nextCursor":"c1"`, "c1": `,"nextCursor":"c2"`}[cursor]
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","`+key+`":[`+item+`]`+next+`}}`)
		return true
	})
}

// Issue 21, 5: the lists as iterators, fetching a page only when the previous one is used
// up (breaking out fetches no more), and a page at a time.
func TestListIterators(t *testing.T) {
	var calls []string
	c := connect(t, pagedFake(t, &calls).url(), Config{Era: EraModern})
	ctx := context.Background()

	var names []string
	for tl, err := range c.Tools(ctx) {
		require.NoError(t, err)
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	assert.Equal(t, []string{"", "c1", "c2"}, calls)

	calls = nil
	for p, err := range c.Prompts(ctx) {
		require.NoError(t, err)
		assert.Equal(t, "a", p.Name)
		break
	}
	assert.Equal(t, []string{""}, calls, "breaking after the first item fetches no second page")

	var uris []string
	for r, err := range c.Resources(ctx) {
		require.NoError(t, err)
		uris = append(uris, r.URI)
	}
	assert.Equal(t, []string{"u:a", "u:b", "u:c"}, uris)
	var templates []string
	for r, err := range c.ResourceTemplates(ctx) {
		require.NoError(t, err)
		templates = append(templates, r.URITemplate)
	}
	assert.Equal(t, []string{"u:{a}", "u:{b}", "u:{c}"}, templates)

	tools, next, err := c.ListToolsPage(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, "c1", next)
	require.Len(t, tools, 1)
	assert.Equal(t, "a", tools[0].Name)
	tools, next, err = c.ListToolsPage(ctx, "c2")
	require.NoError(t, err)
	assert.Empty(t, next, "the last page")
	assert.Equal(t, "c", tools[0].Name)
	prompts, next, err := c.ListPromptsPage(ctx, "c1")
	require.NoError(t, err)
	assert.Equal(t, "c2", next)
	assert.Equal(t, "b", prompts[0].Name)
	res, _, err := c.ListResourcesPage(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, "u:a", res[0].URI)
	tpl, _, err := c.ListResourceTemplatesPage(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, "u:{a}", tpl[0].URITemplate)
}

// An iterator yields a failure once and stops; its bounds are the List calls'.
func TestListIteratorErrors(t *testing.T) {
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","tools":[{"name":"x"}],"nextCursor":"same"}}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	var got []string
	var errs []error
	for tl, err := range c.Tools(context.Background()) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, tl.Name)
	}
	assert.Equal(t, []string{"x", "x"}, got, "the first page, then the second, whose cursor repeats")
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrRepeatedCursor)
}

// Issue 21, 5: Call[In, string] takes a plain-text result's text as it is.
func TestCallStringPlainText(t *testing.T) {
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","content":[{"type":"text","text":"hello, world"}]}}`)
		return true
	})
	c := connect(t, f.url(), Config{Era: EraModern})
	s, err := Call[map[string]string, string](context.Background(), c, "greet", map[string]string{"name": "w"})
	require.NoError(t, err)
	assert.Equal(t, "hello, world", s)

	// Other types still decode the text as JSON.
	_, err = Call[map[string]string, map[string]int](context.Background(), c, "greet", nil)
	var se *json.SyntaxError
	assert.ErrorAs(t, err, &se)
}

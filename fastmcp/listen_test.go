package fastmcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// Tests of subscriptions/listen. Each runs in a synctest bubble: the listen request is served
// in its own goroutine, its notifications arrive on an unbuffered channel (so the stream is
// blocked in Notify until the test reads), and synctest.Wait makes "nothing else was sent"
// checks exact without sleeping.

// listenSink hands each notification to the test over an unbuffered channel.
type listenSink struct {
	msgs chan string
	// fail, if set, is returned by Notify for the n-th notification (1-based) and after.
	failAt int
	count  int
}

var errSinkGone = errors.New("sink: connection reset")

func (k *listenSink) Notify(ctx context.Context, msg []byte) error {
	k.count++ // Notify is called one at a time
	if k.failAt > 0 && k.count >= k.failAt {
		return errSinkGone
	}
	select {
	case k.msgs <- string(msg):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listenCall is one subscriptions/listen request being served.
type listenCall struct {
	sink   *listenSink
	reply  chan string // what Handle returned ("" for no reply), once it returns
	cancel context.CancelFunc
}

// startListen serves msg in a new goroutine with a channel sink whose Notify fails from the
// failAt-th notification (0: never).
func startListen(t *testing.T, s *Server, msg string, failAt int) *listenCall {
	t.Helper()
	return startListenWith(t, context.Background(), s, msg, failAt)
}

// startListenWith is startListen with the request's context made from parent.
func startListenWith(t *testing.T, parent context.Context, s *Server, msg string, failAt int) *listenCall {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	c := &listenCall{sink: &listenSink{msgs: make(chan string), failAt: failAt}, reply: make(chan string, 1), cancel: cancel}
	go func() { c.reply <- string(s.Dispatch(ctx, []byte(msg), c.sink)) }()
	t.Cleanup(func() {
		cancel()
		<-c.reply // never leave the goroutine behind (synctest and goleak check)
	})
	return c
}

// next returns the next notification; it fails if the request ends first.
func (c *listenCall) next(t *testing.T) string {
	t.Helper()
	select {
	case m := <-c.sink.msgs:
		return m
	case r := <-c.reply:
		c.reply <- r
		t.Fatalf("listen ended with %q instead of sending a notification", r)
	case <-time.After(time.Hour): // synctest time: fires only when everything else is blocked
		t.Fatal("no notification")
	}
	return ""
}

// end returns the reply once the request ends; it fails on any notification first.
func (c *listenCall) end(t *testing.T) string {
	t.Helper()
	select {
	case r := <-c.reply:
		c.reply <- r
		return r
	case m := <-c.sink.msgs:
		t.Fatalf("unexpected notification %s", m)
	case <-time.After(time.Hour):
		t.Fatal("listen did not end")
	}
	return ""
}

// gone cancels the request, as a client that goes away, and returns the reply; a notification
// the stream was writing meanwhile may or may not have been taken.
func (c *listenCall) gone(t *testing.T) string {
	t.Helper()
	c.cancel()
	for {
		select {
		case r := <-c.reply:
			c.reply <- r
			return r
		case <-c.sink.msgs:
		case <-time.After(time.Hour):
			t.Fatal("listen did not end")
		}
	}
}

// idle checks that the stream has nothing more to send and is still open.
func (c *listenCall) idle(t *testing.T) {
	t.Helper()
	synctest.Wait()
	select {
	case m := <-c.sink.msgs:
		t.Fatalf("unexpected notification %s", m)
	case r := <-c.reply:
		c.reply <- r
		t.Fatalf("listen ended with %q", r)
	default:
	}
}

// listenRequest is a subscriptions/listen request with the given id literal and filter.
func listenRequest(id, filter string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{` + meta + `,"notifications":` + filter + `}}`
}

// listenResult is the completion response newTestServer sends to end the stream of id.
func listenResult(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":` + id + `}}}`
}

func ackOf(id, notifications string) string {
	return `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `},"notifications":` + notifications + `}}`
}

func listChangedOf(kind, id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/` + kind + `/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`
}

func updatedOf(uri, id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + uri + `","_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`
}

// addKinds makes the catalog advertise the given kinds of component without registering any
// (the capability is what listen looks at). It publishes list_changed like any change.
func addKinds(s *Server, kinds componentKind) {
	for _, k := range []componentKind{kindTool, kindPrompt, kindResource} {
		if kinds&k != 0 {
			s.update(k, func(*catalog) {})
		}
	}
}

// triggerTool registers the conformance suite's trigger tools, which publish list_changed.
func triggerTools(s *Server) {
	for name, kind := range map[string]EventKind{
		"test_trigger_tool_change":   ToolsListChanged,
		"test_trigger_prompt_change": PromptsListChanged,
	} {
		s.AddRawTool(Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *Request, json.RawMessage) (ToolResult, error) {
				s.Publish(Event{Kind: kind})
				return ToolResult{Text: "Mutation triggered"}, nil
			})
	}
}

func TestListenAck(t *testing.T) {
	for _, tc := range []struct {
		name, id string
	}{
		{"string id", `"listen-1"`},
		{"numeric id", `1795962658103`},
		{"escaped string id kept byte for byte", `"a\u0062\/c"`},
		{"zero", `0`},
		{"negative", `-7`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, nil)
				addKinds(s, kindTool)
				c := startListen(t, s, listenRequest(tc.id, `{"toolsListChanged":true}`), 0)
				ack := c.next(t)
				assert.Equal(t, ackOf(tc.id, `{"toolsListChanged":true}`), ack)
				wireschema.RequireValid(t, "SubscriptionsAcknowledgedNotification", []byte(ack))
				c.idle(t)
				assert.Equal(t, 1, s.Subscribers())

				s.CloseSubscriptions()
				res := c.end(t)
				assert.Equal(t, listenResult(tc.id), res)
				wireschema.RequireValid(t, "SubscriptionsListenResultResponse", []byte(res))
				assert.Equal(t, 0, s.Subscribers())
			})
		})
	}
}

func TestListenHonouredSubset(t *testing.T) {
	all := `{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a.txt","https://example.com/x?y=1"]}`
	for _, tc := range []struct {
		name   string
		kinds  componentKind
		filter string
		ack    string
	}{
		{"tools only: prompts and resources dropped", kindTool, all, `{"toolsListChanged":true}`},
		{"prompts only", kindPrompt, all, `{"promptsListChanged":true}`},
		{"resources: list and subscriptions", kindResource, all,
			`{"resourcesListChanged":true,"resourceSubscriptions":["file:///a.txt","https://example.com/x?y=1"]}`},
		{"everything", kindTool | kindPrompt | kindResource, all,
			`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a.txt","https://example.com/x?y=1"]}`},
		{"nothing registered", 0, all, `{}`},
		{"prompts asked, no prompts", kindTool, `{"promptsListChanged":true}`, `{}`},
		{"false is not asked", kindTool | kindPrompt, `{"toolsListChanged":false,"promptsListChanged":true}`, `{"promptsListChanged":true}`},
		{"empty filter", kindTool, `{}`, `{}`},
		{"empty subscriptions", kindResource, `{"resourceSubscriptions":[]}`, `{}`},
		{"unknown members ignored", kindTool, `{"taskIds":["t1"],"x-vendor":{"a":1},"toolsListChanged":true}`, `{"toolsListChanged":true}`},
		{"duplicate URIs once, in order", kindResource, `{"resourceSubscriptions":["file:///b","file:///a","file:///b"]}`,
			`{"resourceSubscriptions":["file:///b","file:///a"]}`},
		{"escaped URI unescaped and re-encoded", kindResource, `{"resourceSubscriptions":["file:\/\/\/\u00e9"]}`,
			`{"resourceSubscriptions":["file:///é"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(t, nil)
				addKinds(s, tc.kinds)
				c := startListen(t, s, listenRequest(`1`, tc.filter), 0)
				ack := c.next(t)
				assert.Equal(t, ackOf(`1`, tc.ack), ack)
				wireschema.RequireValid(t, "SubscriptionsAcknowledgedNotification", []byte(ack))
				c.idle(t)
			})
		})
	}
}

func TestListenDuplicateURIsPastMapThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindResource)
		uris := make([]string, 0, 40)
		for i := range 20 {
			u := `"file:///r` + string(rune('a'+i)) + `"`
			uris = append(uris, u, u)
		}
		c := startListen(t, s, listenRequest(`1`, `{"resourceSubscriptions":[`+strings.Join(uris, ",")+`]}`), 0)
		want := make([]string, 0, 20)
		for i := 0; i < len(uris); i += 2 {
			want = append(want, uris[i])
		}
		assert.Equal(t, ackOf(`1`, `{"resourceSubscriptions":[`+strings.Join(want, ",")+`]}`), c.next(t))
	})
}

func TestListenEventsOnlyForOptedInKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindTool|kindPrompt|kindResource)
		prompts := startListen(t, s, listenRequest(`"p"`, `{"promptsListChanged":true}`), 0)
		tools := startListen(t, s, listenRequest(`7`, `{"toolsListChanged":true,"resourcesListChanged":true}`), 0)
		prompts.next(t)
		tools.next(t)

		s.Publish(Event{Kind: ToolsListChanged})
		msg := tools.next(t)
		assert.Equal(t, listChangedOf("tools", `7`), msg)
		wireschema.RequireValid(t, "ToolListChangedNotification", []byte(msg))
		prompts.idle(t)

		addKinds(s, kindPrompt) // a real catalog change publishes prompts/list_changed
		msg = prompts.next(t)
		assert.Equal(t, listChangedOf("prompts", `"p"`), msg)
		wireschema.RequireValid(t, "PromptListChangedNotification", []byte(msg))
		tools.idle(t)

		addKinds(s, kindResource)
		msg = tools.next(t)
		assert.Equal(t, listChangedOf("resources", `7`), msg)
		wireschema.RequireValid(t, "ResourceListChangedNotification", []byte(msg))
		prompts.idle(t)

		s.NotifyResourceUpdated("file:///a") // nobody listed it
		s.Publish(Event{Kind: 0})            // not an event: ignored
		s.Publish(Event{Kind: 99})
		prompts.idle(t)
		tools.idle(t)

		s.CloseSubscriptions()
		assert.Equal(t, listenResult(`"p"`), prompts.end(t))
		assert.Equal(t, listenResult(`7`), tools.end(t))
	})
}

// TestListenTriggerTools follows the conformance suite: listen, then tools/call of a trigger
// tool on another "connection"; the event is tagged with the listen id, numeric and 13 digits.
func TestListenTriggerTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		triggerTools(s)
		addKinds(s, kindPrompt)
		tools := startListen(t, s, listenRequest(`1795962658103`, `{"toolsListChanged":true}`), 0)
		prompts := startListen(t, s, listenRequest(`1795962658104`, `{"promptsListChanged":true}`), 0)
		assert.Equal(t, ackOf(`1795962658103`, `{"toolsListChanged":true}`), tools.next(t))
		assert.Equal(t, ackOf(`1795962658104`, `{"promptsListChanged":true}`), prompts.next(t))

		reply := dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"test_trigger_tool_change"}}`)
		assert.Contains(t, reply, `Mutation triggered`)
		assert.Equal(t, listChangedOf("tools", `1795962658103`), tools.next(t))
		prompts.idle(t)

		reply = dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"test_trigger_prompt_change"}}`)
		assert.Contains(t, reply, `Mutation triggered`)
		assert.Equal(t, listChangedOf("prompts", `1795962658104`), prompts.next(t))
		tools.idle(t)
	})
}

func TestListenCoalescesListChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindTool|kindPrompt|kindResource)
		c := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["file:///a"]}`), 0)
		c.next(t)

		// Hold the stream inside Notify, then publish duplicates.
		s.NotifyResourceUpdated("file:///a")
		synctest.Wait()
		for range 5 {
			s.Publish(Event{Kind: PromptsListChanged})
			s.Publish(Event{Kind: ToolsListChanged})
		}
		assert.Equal(t, updatedOf("file:///a", `1`), c.next(t))
		// One of each, in the fixed order tools, prompts.
		assert.Equal(t, listChangedOf("tools", `1`), c.next(t))
		assert.Equal(t, listChangedOf("prompts", `1`), c.next(t))
		c.idle(t)

		// Later events are reported again.
		s.Publish(Event{Kind: ToolsListChanged})
		assert.Equal(t, listChangedOf("tools", `1`), c.next(t))
		c.idle(t)
	})
}

func TestListenResourceUpdated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindResource)
		a := startListen(t, s, listenRequest(`"a"`, `{"resourceSubscriptions":["file:///x","file:///y"]}`), 0)
		b := startListen(t, s, listenRequest(`"b"`, `{"resourceSubscriptions":["file:///y"]}`), 0)
		a.next(t)
		b.next(t)

		s.NotifyResourceUpdated("file:///z") // listed by nobody
		s.NotifyResourceUpdated("file:///x/sub")
		s.NotifyResourceUpdated("")
		a.idle(t)
		b.idle(t)

		s.NotifyResourceUpdated("file:///x")
		msg := a.next(t)
		assert.Equal(t, updatedOf("file:///x", `"a"`), msg)
		wireschema.RequireValid(t, "ResourceUpdatedNotification", []byte(msg))
		b.idle(t)

		s.NotifyResourceUpdated("file:///y")
		assert.Equal(t, updatedOf("file:///y", `"a"`), a.next(t))
		assert.Equal(t, updatedOf("file:///y", `"b"`), b.next(t))

		// While a is blocked writing x, y is queued once however often it changes.
		s.NotifyResourceUpdated("file:///x")
		synctest.Wait()
		s.NotifyResourceUpdated("file:///y")
		s.NotifyResourceUpdated("file:///y")
		s.NotifyResourceUpdated("file:///x")
		assert.Equal(t, updatedOf("file:///x", `"a"`), a.next(t))
		assert.Equal(t, updatedOf("file:///y", `"a"`), a.next(t))
		assert.Equal(t, updatedOf("file:///x", `"a"`), a.next(t))
		a.idle(t)
		assert.Equal(t, updatedOf("file:///y", `"b"`), b.next(t))
		b.idle(t)

		// The index forgets a stream when it ends.
		b.cancel()
		assert.Equal(t, "", b.end(t))
		s.NotifyResourceUpdated("file:///y")
		assert.Equal(t, updatedOf("file:///y", `"a"`), a.next(t))
		a.cancel()
		assert.Equal(t, "", a.end(t))
		assert.Empty(t, s.hub.byURI)
	})
}

func TestListenInvalidFilter(t *testing.T) {
	uris := func(n int) string {
		u := make([]string, n)
		for i := range u {
			u[i] = `"file:///r/` + strconv.Itoa(i) + `"`
		}
		return `{"resourceSubscriptions":[` + strings.Join(u, ",") + `]}`
	}
	const (
		missing = `{"code":-32602,"message":"Invalid params: notifications is required"}`
		object  = `{"code":-32602,"message":"Invalid params: notifications must be an object"}`
		boolean = `{"code":-32602,"message":"Invalid params: toolsListChanged, promptsListChanged and resourcesListChanged must be booleans"}`
		uriList = `{"code":-32602,"message":"Invalid params: resourceSubscriptions must be an array of absolute URIs"}`
		tooMany = `{"code":-32602,"message":"Invalid params: resourceSubscriptions lists more than 1000 URIs"}`
	)
	for _, tc := range []struct {
		name, params, err string
	}{
		{"missing", meta, missing},
		{"null", meta + `,"notifications":null`, object},
		{"array", meta + `,"notifications":[]`, object},
		{"string", meta + `,"notifications":"tools"`, object},
		{"tools string", meta + `,"notifications":{"toolsListChanged":"yes"}`, boolean},
		{"prompts null", meta + `,"notifications":{"promptsListChanged":null}`, boolean},
		{"resources number", meta + `,"notifications":{"resourcesListChanged":1}`, boolean},
		{"subscriptions object", meta + `,"notifications":{"resourceSubscriptions":{"a":"file:///a"}}`, uriList},
		{"subscriptions null", meta + `,"notifications":{"resourceSubscriptions":null}`, uriList},
		{"subscription number", meta + `,"notifications":{"resourceSubscriptions":["file:///a",1]}`, uriList},
		{"relative URI", meta + `,"notifications":{"resourceSubscriptions":["/etc/passwd"]}`, uriList},
		{"empty URI", meta + `,"notifications":{"resourceSubscriptions":[""]}`, uriList},
		{"scheme only", meta + `,"notifications":{"resourceSubscriptions":["file:"]}`, uriList},
		{"1001 URIs", meta + `,"notifications":` + uris(1001), tooMany},
		// Checked whatever the capabilities: a malformed request is malformed.
		{"bad URI with bool", meta + `,"notifications":{"toolsListChanged":true,"resourceSubscriptions":[true]}`, uriList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, nil)
			addKinds(s, kindTool|kindResource)
			sink := &recordingSink{}
			msg := `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{` + tc.params + `}}`
			got := string(s.Dispatch(context.Background(), []byte(msg), sink))
			assert.Equal(t, `{"jsonrpc":"2.0","id":3,"error":`+tc.err+`}`, got)
			assert.Empty(t, sink.messages())
			assert.Equal(t, 0, s.Subscribers())
		})
	}

	t.Run("1000 URIs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, nil)
			addKinds(s, kindResource)
			c := startListen(t, s, listenRequest(`1`, uris(1000)), 0)
			assert.Equal(t, ackOf(`1`, uris(1000)), c.next(t))
			c.idle(t)
		})
	})
}

func TestListenGracefulEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindTool|kindResource)
		a := startListen(t, s, listenRequest(`"a"`, `{"toolsListChanged":true}`), 0)
		b := startListen(t, s, listenRequest(`2`, `{"resourceSubscriptions":["file:///x"]}`), 0)
		a.next(t)
		b.next(t)
		assert.Equal(t, 2, s.Subscribers())

		// b is writing an event when the server closes: the event completes, nothing after it.
		s.NotifyResourceUpdated("file:///x")
		synctest.Wait()
		s.NotifyResourceUpdated("file:///x")
		s.CloseSubscriptions()
		s.CloseSubscriptions() // idempotent
		assert.Equal(t, listenResult(`"a"`), a.end(t))
		assert.Equal(t, updatedOf("file:///x", `2`), b.next(t))
		assert.Equal(t, listenResult(`2`), b.end(t))
		assert.Equal(t, 0, s.Subscribers())

		// New listens are refused; other methods are served.
		sink := &recordingSink{}
		got := string(s.Dispatch(context.Background(), []byte(listenRequest(`5`, `{"toolsListChanged":true}`)), sink))
		assert.Empty(t, sink.messages())
		assert.Equal(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Server is shutting down"}}`, got)
		s.Publish(Event{Kind: ToolsListChanged}) // harmless
		assert.Contains(t, dispatch(t, s, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{`+meta+`}}`), `"tools":[]`)
	})
}

// TestListenEndsAtCredentialExpiry checks that a stream served with an identity whose
// credential expires completes at that instant, as at a drain, and not a moment before; one
// without an expiry stays open.
func TestListenEndsAtCredentialExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindTool)
		start := time.Now()
		expiring := WithIdentity(context.Background(), &Identity{Principal: "alice", Expires: start.Add(time.Minute)})
		a := startListenWith(t, expiring, s, listenRequest(`"a"`, `{"toolsListChanged":true}`), 0)
		b := startListenWith(t, WithIdentity(context.Background(), &Identity{Principal: "bob"}), s, listenRequest(`"b"`, `{"toolsListChanged":true}`), 0)
		a.next(t)
		b.next(t)
		time.Sleep(time.Minute - time.Nanosecond)
		a.idle(t)
		assert.Equal(t, listenResult(`"a"`), a.end(t))
		assert.Equal(t, time.Minute, time.Since(start))
		b.idle(t)
		assert.Equal(t, 1, s.Subscribers())
	})
}

func TestListenClientGone(t *testing.T) {
	t.Run("context cancelled: no reply", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, nil)
			addKinds(s, kindTool)
			c := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true}`), 0)
			c.next(t)
			c.cancel()
			assert.Equal(t, "", c.end(t))
			assert.Equal(t, 0, s.Subscribers())
		})
	})
	t.Run("context cancelled while writing: no reply", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, nil)
			addKinds(s, kindTool)
			c := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true}`), 0)
			c.next(t)
			s.Publish(Event{Kind: ToolsListChanged})
			synctest.Wait()
			assert.Equal(t, "", c.gone(t))
		})
	})
	t.Run("ack fails: no reply", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, nil)
			addKinds(s, kindTool)
			c := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true}`), 1)
			assert.Equal(t, "", c.end(t))
			assert.Equal(t, 0, s.Subscribers())
		})
	})
	t.Run("event fails: no reply", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, nil)
			addKinds(s, kindTool|kindResource)
			c := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true,"resourceSubscriptions":["file:///x"]}`), 2)
			c.next(t)
			s.NotifyResourceUpdated("file:///x")
			assert.Equal(t, "", c.end(t))
			assert.Equal(t, 0, s.Subscribers())
			assert.Empty(t, s.hub.byURI)
		})
	})
	t.Run("no sink", func(t *testing.T) {
		s := newTestServer(t, nil)
		got := dispatch(t, s, listenRequest(`1`, `{}`))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"subscriptions/listen needs a notification stream"}}`, got)
	})
}

func TestListenOverflowEndsGracefully(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, &Config{SubscriptionBuffer: 2})
		addKinds(s, kindResource)
		c := startListen(t, s, listenRequest(`"o"`, `{"resourceSubscriptions":["file:///a","file:///b","file:///c"]}`), 0)
		c.next(t)

		s.NotifyResourceUpdated("file:///a") // being written
		synctest.Wait()
		s.NotifyResourceUpdated("file:///b") // queued
		s.NotifyResourceUpdated("file:///c") // queued: the queue is full
		s.NotifyResourceUpdated("file:///b") // already queued: no room needed
		synctest.Wait()
		require.False(t, s.hub.byURI["file:///a"].first.overflow.Load())
		s.NotifyResourceUpdated("file:///a") // overflow
		assert.Equal(t, updatedOf("file:///a", `"o"`), c.next(t))
		assert.Equal(t, listenResult(`"o"`), c.end(t))
		assert.Equal(t, 0, s.Subscribers())
	})
}

// TestListenPublishNeverBlocks opens a stream that stops reading after the ack, as the
// conformance harness does, and publishes far more than any buffer holds.
func TestListenPublishNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, &Config{SubscriptionBuffer: 4})
		addKinds(s, kindTool|kindPrompt|kindResource)
		abandoned := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a","file:///b","file:///c","file:///d","file:///e","file:///f"]}`), 0)
		live := startListen(t, s, listenRequest(`2`, `{"toolsListChanged":true}`), 0)
		abandoned.next(t)
		live.next(t)
		for i := range 10_000 {
			s.Publish(Event{Kind: EventKind(1 + i%3)})
			s.NotifyResourceUpdated("file:///" + string(rune('a'+i%6)))
		}
		// A blocking Publish would have deadlocked the bubble before this point. The live
		// stream may have reported once while the loop ran, and reports once more after it.
		assert.Equal(t, listChangedOf("tools", `2`), live.next(t))
		synctest.Wait()
		select {
		case m := <-live.sink.msgs:
			assert.Equal(t, listChangedOf("tools", `2`), m)
		default:
		}
		live.idle(t)
		assert.Equal(t, "", abandoned.gone(t))
	})
}

// TestListenPublishNeverBlocksRealTime is the same without synctest: many publishers against
// streams whose sink never returns.
func TestListenPublishNeverBlocksRealTime(t *testing.T) {
	s := newTestServer(t, &Config{SubscriptionBuffer: 1})
	addKinds(s, kindTool|kindResource)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var acks, done sync.WaitGroup
	for i := range 20 {
		acks.Add(1)
		done.Add(1)
		sink := &blockingSink{acked: acks.Done}
		go func() {
			defer done.Done()
			msg := listenRequest(`1`, `{"toolsListChanged":true,"resourceSubscriptions":["file:///a","file:///b"]}`)
			assert.Empty(t, s.Dispatch(ctx, []byte(msg), sink), "stream %d", i)
		}()
	}
	acks.Wait()
	var pubs sync.WaitGroup
	for range 8 {
		pubs.Go(func() {
			for i := range 5000 {
				s.Publish(Event{Kind: ToolsListChanged})
				s.NotifyResourceUpdated([]string{"file:///a", "file:///b"}[i%2])
			}
		})
	}
	pubs.Wait() // returns: nothing waited on the stalled streams
	cancel()
	done.Wait()
	assert.Equal(t, 0, s.Subscribers())
}

// blockingSink takes the ack, then blocks every later Notify until ctx ends.
type blockingSink struct {
	once  sync.Once
	acked func()
}

func (k *blockingSink) Notify(ctx context.Context, _ []byte) error {
	first := false
	k.once.Do(func() { first = true })
	if first {
		k.acked()
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func TestListenAuthorization(t *testing.T) {
	type call struct {
		phase  Phase
		method string
		c      Component
	}
	t.Run("refused URIs are dropped", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var mu sync.Mutex
			var calls []call
			s := newTestServer(t, &Config{Authorizer: AuthorizerFunc(func(_ context.Context, phase Phase, method string, c Component) error {
				mu.Lock()
				calls = append(calls, call{phase, method, c})
				mu.Unlock()
				switch c.URI {
				case "file:///secret":
					return ErrRefused
				case "file:///hidden":
					return NewError(CodeInvalidParams, "Resource not found", nil)
				}
				return nil
			})})
			addKinds(s, kindTool|kindResource)
			c := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true,"resourceSubscriptions":["file:///secret","file:///open","file:///hidden"]}`), 0)
			assert.Equal(t, ackOf(`1`, `{"toolsListChanged":true,"resourceSubscriptions":["file:///open"]}`), c.next(t))
			mu.Lock()
			assert.Equal(t, []call{
				{PhaseInvocation, MethodListen, Component{Kind: "resource", URI: "file:///secret", RequestedURI: "file:///secret"}},
				{PhaseInvocation, MethodListen, Component{Kind: "resource", URI: "file:///open", RequestedURI: "file:///open"}},
				{PhaseInvocation, MethodListen, Component{Kind: "resource", URI: "file:///hidden", RequestedURI: "file:///hidden"}},
			}, calls)
			mu.Unlock()

			s.NotifyResourceUpdated("file:///secret")
			s.NotifyResourceUpdated("file:///hidden")
			c.idle(t)
			s.NotifyResourceUpdated("file:///open")
			assert.Equal(t, updatedOf("file:///open", `1`), c.next(t))
		})
	})
	t.Run("asked about the registered resource or template", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var mu sync.Mutex
			var calls []call
			s := newTestServer(t, &Config{Authorizer: AuthorizerFunc(func(_ context.Context, phase Phase, method string, c Component) error {
				mu.Lock()
				calls = append(calls, call{phase, method, c})
				mu.Unlock()
				if c.Name == "secret-template" {
					return ErrRefused
				}
				return nil
			})})
			s.AddResource(Resource{URI: "a://open", Name: "open"}, func(context.Context, *Request, string) ([]ResourceContents, error) {
				return nil, nil
			})
			s.AddResourceTemplate(ResourceTemplate{URITemplate: "t://secret/{x}", Name: "secret-template"},
				func(context.Context, *Request, string, map[string]string) ([]ResourceContents, error) {
					return nil, nil
				})
			c := startListen(t, s, listenRequest(`1`, `{"resourceSubscriptions":["a://open","t://secret/9","a://none"]}`), 0)
			assert.Equal(t, ackOf(`1`, `{"resourceSubscriptions":["a://open","a://none"]}`), c.next(t))
			mu.Lock()
			assert.Equal(t, []call{
				{PhaseInvocation, MethodListen, Component{Kind: "resource", Name: "open", URI: "a://open"}},
				{PhaseInvocation, MethodListen, Component{Kind: "resource_template", Name: "secret-template", URI: "t://secret/{x}", RequestedURI: "t://secret/9"}},
				{PhaseInvocation, MethodListen, Component{Kind: "resource", URI: "a://none", RequestedURI: "a://none"}},
			}, calls)
			mu.Unlock()
		})
	})
	t.Run("concealed refusals are acknowledged like unknown URIs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, &Config{ConcealRefusals: true, Authorizer: AuthorizerFunc(func(_ context.Context, _ Phase, _ string, c Component) error {
				if c.URI == "file:///secret" {
					return ErrRefused
				}
				return nil
			})})
			addKinds(s, kindResource)
			c := startListen(t, s, listenRequest(`1`, `{"resourceSubscriptions":["file:///secret","file:///open"]}`), 0)
			assert.Equal(t, ackOf(`1`, `{"resourceSubscriptions":["file:///secret","file:///open"]}`), c.next(t))
			s.NotifyResourceUpdated("file:///secret")
			c.idle(t)
			s.NotifyResourceUpdated("file:///open")
			assert.Equal(t, updatedOf("file:///open", `1`), c.next(t))
			assert.NotContains(t, s.hub.byURI, "file:///secret")
		})
	})
	t.Run("all refused", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, &Config{Authorizer: AuthorizerFunc(func(context.Context, Phase, string, Component) error {
				return ErrRefused
			})})
			addKinds(s, kindResource)
			c := startListen(t, s, listenRequest(`1`, `{"resourceSubscriptions":["file:///a"]}`), 0)
			assert.Equal(t, ackOf(`1`, `{}`), c.next(t))
			c.idle(t)
			assert.Empty(t, s.hub.byURI)
		})
	})
	for name, policy := range map[string]AuthorizerFunc{
		"policy error": func(context.Context, Phase, string, Component) error { return errors.New("database down") },
		"policy panic": func(context.Context, Phase, string, Component) error { panic("bug") },
	} {
		t.Run(name, func(t *testing.T) {
			s := newTestServer(t, &Config{Authorizer: policy, Logger: slog.New(slog.DiscardHandler)})
			addKinds(s, kindResource)
			sink := &recordingSink{}
			msg := listenRequest(`1`, `{"resourceSubscriptions":["file:///a"]}`)
			got := string(s.Dispatch(context.Background(), []byte(msg), sink))
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Authorization policy failed"}}`, got)
			assert.Empty(t, sink.messages())
			assert.Equal(t, 0, s.Subscribers())
		})
	}
	t.Run("no URIs, policy not asked", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newTestServer(t, &Config{Authorizer: AuthorizerFunc(func(context.Context, Phase, string, Component) error {
				panic("not asked")
			}), Logger: slog.New(slog.DiscardHandler)})
			addKinds(s, kindTool) // no resources capability: the URIs are not honoured, not checked
			c := startListen(t, s, listenRequest(`1`, `{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}`), 0)
			assert.Equal(t, ackOf(`1`, `{"toolsListChanged":true}`), c.next(t))
		})
	})
}

func TestListenMetaChecked(t *testing.T) {
	s := newTestServer(t, nil)
	sink := &recordingSink{}
	got := string(s.Dispatch(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}`), sink))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}`, got)
	assert.Empty(t, sink.messages())
	require.True(t, (MethodListen == "subscriptions/listen"))
}

// TestListenRequestReleased checks that a stream keeps no view of the request: the input
// buffer is overwritten once the ack is out, and the events still carry the right id.
func TestListenRequestReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindResource)
		msg := []byte(listenRequest(`"req-42"`, `{"resourceSubscriptions":["file:///kept"]}`))
		sink := &listenSink{msgs: make(chan string)}
		reply := make(chan []byte, 1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			m := new(decode.Message)
			if !assert.NoError(t, s.decoder.Decode(m, msg)) {
				reply <- nil
				return
			}
			r := s.testHandle(ctx, m, sink, nil)
			reply <- r.Body
		}()
		assert.Equal(t, ackOf(`"req-42"`, `{"resourceSubscriptions":["file:///kept"]}`), <-sink.msgs)
		synctest.Wait()
		for i := range msg {
			msg[i] = 'X' // the transport may not do this, but the stream must not care
		}
		s.NotifyResourceUpdated("file:///kept")
		assert.Equal(t, updatedOf("file:///kept", `"req-42"`), <-sink.msgs)
		s.CloseSubscriptions()
		assert.Equal(t, listenResult(`"req-42"`), string(<-reply))
	})
}

// TestListenEventsLostCompletesOpenStreams checks that an EventsLost from the bus completes
// every stream then open with its completion response, as a drain does, while a stream
// opened afterwards is accepted and served: the client re-reads and listens again.
func TestListenEventsLostCompletesOpenStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		addKinds(s, kindTool|kindResource)
		a := startListen(t, s, listenRequest(`"a"`, `{"toolsListChanged":true}`), 0)
		b := startListen(t, s, listenRequest(`2`, `{"resourceSubscriptions":["file:///x"]}`), 0)
		a.next(t)
		b.next(t)

		s.Publish(Event{Kind: EventsLost})
		assert.Equal(t, listenResult(`"a"`), a.end(t))
		assert.Equal(t, listenResult(`2`), b.end(t))
		assert.Equal(t, uint64(1), s.EventStats().Lost)

		c := startListen(t, s, listenRequest(`3`, `{"toolsListChanged":true}`), 0)
		assert.Equal(t, ackOf(`3`, `{"toolsListChanged":true}`), c.next(t))
		c.idle(t)
		s.Publish(Event{Kind: ToolsListChanged})
		assert.Equal(t, listChangedOf("tools", `3`), c.next(t))
		c.idle(t)
	})
}

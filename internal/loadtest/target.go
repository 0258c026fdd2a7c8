package loadtest

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/fastmcp-go/fastmcp/internal/loopback"
)

// Dialect selects the request form a target is driven with.
type Dialect uint8

const (
	// Dialect2026 is revision 2026-07-28: every request carries its _meta (protocolVersion
	// and clientCapabilities) and mirrors MCP-Protocol-Version, Mcp-Method and Mcp-Name in
	// headers. It is the default: a legacy body would silently measure another code path.
	Dialect2026 Dialect = iota
	// DialectLegacy is the initialize-era stateless form (2025-11-25): no _meta, only the
	// MCP-Protocol-Version header. It measures a server's legacy path.
	DialectLegacy
)

// String returns the dialect's protocol revision.
func (d Dialect) String() string {
	if d == DialectLegacy {
		return LegacyVersion
	}
	return ProtocolVersion
}

// ParseDialect maps "2026-07-28" (or "") and "2025-11-25" (or "legacy") to a Dialect.
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "", ProtocolVersion, "2026":
		return Dialect2026, nil
	case LegacyVersion, "legacy":
		return DialectLegacy, nil
	}
	return 0, fmt.Errorf("loadtest: unknown dialect %q (2026-07-28 or 2025-11-25)", s)
}

// Protocol revisions and the header names a 2026-07-28 request mirrors.
const (
	ProtocolVersion = "2026-07-28"
	LegacyVersion   = "2025-11-25"

	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderSession         = "Mcp-Session-Id"
)

// Defaults of Target.
const (
	DefaultTool    = "echo"
	DefaultArgName = "text"
	DefaultText    = "hello"
)

// Target is an MCP endpoint and the tools/call a scenario sends it. The zero values of the
// tool fields select the demo catalog's echo tool: {"text":"hello"}.
type Target struct {
	// URL is the endpoint, such as http://127.0.0.1:8080/mcp, or https:// over TLS. Its host
	// must be a loopback address or localhost: load is never sent anywhere else.
	URL string
	// TLS configures the client side of an https URL, such as RootCAs trusting a test
	// certificate; nil means the system's roots. ServerName defaults to the URL's host and
	// NextProtos to http/1.1. Every connection handshakes once, when it is opened.
	TLS *tls.Config
	// Name labels the target in reports; the URL's host if empty.
	Name string
	// Dialect is the request form (2026-07-28 by default).
	Dialect Dialect
	// Tool is the tool called; DefaultTool if empty. Its result must echo Text as the text of
	// its first content block.
	Tool string
	// ArgName is the argument carrying the text; DefaultArgName if empty.
	ArgName string
	// Text is the echoed text; DefaultText if empty.
	Text string
	// PID is the server's process id when it is a local process (0 if unknown): memory
	// readings use it.
	PID int
	// CPUTree counts PID's descendants in its CPU time (a gateway with its stdio backends).
	CPUTree bool
	// Session, when set, is the Mcp-Session-Id every request carries: one initialize-era
	// session that all connections share (OpenSession opens it), for a server that keeps
	// sessions and refuses requests outside one.
	Session string
}

// label is the target's name for reports.
func (t *Target) label() string {
	if t.Name != "" {
		return t.Name
	}
	if u, err := url.Parse(t.URL); err == nil {
		return u.Host
	}
	return t.URL
}

// endpoint is a parsed Target: where to dial and the bytes every request shares.
type endpoint struct {
	t    Target
	addr string      // host:port to dial
	host string      // Host header
	path string      // request URI
	tls  *tls.Config // the client side of an https target; nil over http

	// The body of a call is bodyHead + id + bodyTail.
	bodyHead, bodyTail []byte
	// text is Text as a JSON string literal, compared with the echoed text.
	text []byte
}

// parse validates t and prepares its request bytes.
func (t Target) parse() (*endpoint, error) {
	if t.Tool == "" {
		t.Tool = DefaultTool
	}
	if t.ArgName == "" {
		t.ArgName = DefaultArgName
	}
	if t.Text == "" {
		t.Text = DefaultText
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("loadtest: target URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("loadtest: target URL %q: only http:// and https:// are supported", t.URL)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if !loopback.Host(host) {
		return nil, fmt.Errorf("loadtest: target %q is not a loopback address: load tests only target this machine", host)
	}
	ep := &endpoint{t: t, addr: net.JoinHostPort(host, port), host: u.Host, path: u.RequestURI()}
	if u.Scheme == "https" {
		ep.tls = clientTLS(t.TLS, host)
	}
	name, _ := json.Marshal(t.Tool)
	arg, _ := json.Marshal(t.ArgName)
	ep.text, _ = json.Marshal(t.Text)
	ep.bodyHead = []byte(`{"jsonrpc":"2.0","id":`)
	tail := `,"method":"tools/call","params":{"name":` + string(name) + `,"arguments":{` + string(arg) + `:` + string(ep.text) + `}`
	if t.Dialect == Dialect2026 {
		tail += `,"_meta":` + metaJSON
	}
	ep.bodyTail = []byte(tail + `}}`)
	return ep, nil
}

// metaJSON is the _meta object of a 2026-07-28 request.
const metaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// appendCall appends the body of a tools/call with the integer id.
func (ep *endpoint) appendCall(dst []byte, id int64) []byte {
	dst = append(dst, ep.bodyHead...)
	dst = strconv.AppendInt(dst, id, 10)
	return append(dst, ep.bodyTail...)
}

// requestBody builds the body of another method (listen, a progress call...) for this
// endpoint's dialect. params is the params object's members without _meta, without braces;
// extraMeta are members added to _meta (such as "progressToken":"p").
func (ep *endpoint) requestBody(id, method, params, extraMeta string) []byte {
	b := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + params
	if ep.t.Dialect == Dialect2026 || extraMeta != "" {
		if params != "" {
			b += ","
		}
		meta := ""
		if ep.t.Dialect == Dialect2026 {
			meta = metaJSON[1 : len(metaJSON)-1]
		}
		if extraMeta != "" {
			if meta != "" {
				meta += ","
			}
			meta += extraMeta
		}
		b += `"_meta":{` + meta + `}`
	}
	return []byte(b + `}}`)
}

package fastmcp

import "sync/atomic"

// The bounded label sets of an Observer: a method, version, transport or error code outside
// them is OtherLabel, so that no request can make a label of its own. Switches, which the
// compiler turns into a search by length and value, keep this off the profile.
//
// A request's labels are interned: every request of one method (and tool or prompt),
// version and transport is given the same *Labels, made on first use. An Observer then
// compares label sets by pointer, and RequestInfo is small enough to be passed in
// registers, which a struct of five strings is not.

// Labels are a request's bounded labels (see [Observer]). The server makes one per set and
// gives it to every request of that set: treat it as read-only.
type Labels struct {
	// Method is the JSON-RPC method when the server knows it, [OtherLabel] otherwise.
	Method string
	// Tool is the name of the tool a tools/call names, as the catalog spells it, or
	// [OtherLabel] when the catalog has none of that name; empty for other methods.
	Tool string
	// Prompt is, likewise, the prompt of prompts/get.
	Prompt string
	// ProtocolVersion is the revision the request is served in: a version this package
	// serves, [OtherLabel] for another, empty when the request named none.
	ProtocolVersion string
	// Network is the sink's [NetworkNamer] answer ([NetworkTCP], [NetworkPipe], else
	// [OtherLabel]), empty when it does not say.
	Network string
}

// labelSets are the interned label sets of one method, tool or prompt: one per version
// label and network label.
type labelSets [len(versionLabels)][len(networkLabels)]atomic.Pointer[Labels]

// get returns the label set of method, tool and prompt in version v and network n (indexes
// of versionLabels and networkLabels), making it on first use.
func (t *labelSets) get(method, tool, prompt string, v, n int) *Labels {
	p := &t[v][n]
	if l := p.Load(); l != nil {
		return l
	}
	l := &Labels{Method: method, Tool: tool, Prompt: prompt, ProtocolVersion: versionLabels[v], Network: networkLabels[n]}
	if p.CompareAndSwap(nil, l) {
		return l
	}
	return p.Load()
}

// versionLabels are the ProtocolVersion labels; versionIndex finds one.
var versionLabels = [...]string{"", Version, "2025-11-25", "2025-06-18", OtherLabel}

// versionIndex returns the index in versionLabels of the served version v names ("" for
// none), that of OtherLabel for any other.
func versionIndex[T string | []byte](v T) int {
	switch string(v) {
	case "":
		return 0
	case Version:
		return 1
	case "2025-11-25":
		return 2
	case "2025-06-18":
		return 3
	}
	return len(versionLabels) - 1
}

// networkLabels are the Network labels; networkIndex finds one.
var networkLabels = [...]string{"", NetworkTCP, NetworkPipe, OtherLabel}

func networkIndex(n string) int {
	switch n {
	case "":
		return 0
	case NetworkTCP:
		return 1
	case NetworkPipe:
		return 2
	}
	return len(networkLabels) - 1
}

// methodLabels are the Method labels, in the order of methodIndex.
var methodLabels = [...]string{
	MethodToolsCall, MethodToolsList, MethodDiscover, MethodPromptsList, MethodPromptsGet,
	MethodResourcesList, MethodResourceTemplates, MethodResourcesRead, MethodComplete,
	MethodListen, MethodInitialize, MethodPing, MethodSetLevel, MethodResourcesSubscribe,
	MethodResourcesUnsubscribe, OtherLabel,
}

// methodIndex returns the index in methodLabels of a method the server knows (of either
// era), that of OtherLabel for any other.
func methodIndex(method []byte) int {
	switch string(method) {
	case MethodToolsCall:
		return 0
	case MethodToolsList:
		return 1
	case MethodDiscover:
		return 2
	case MethodPromptsList:
		return 3
	case MethodPromptsGet:
		return 4
	case MethodResourcesList:
		return 5
	case MethodResourceTemplates:
		return 6
	case MethodResourcesRead:
		return 7
	case MethodComplete:
		return 8
	case MethodListen:
		return 9
	case MethodInitialize:
		return 10
	case MethodPing:
		return 11
	case MethodSetLevel:
		return 12
	case MethodResourcesSubscribe:
		return 13
	case MethodResourcesUnsubscribe:
		return 14
	}
	return len(methodLabels) - 1
}

// The methodIndex of the methods whose label set names a tool or a prompt.
const (
	methodIndexToolsCall  = 0
	methodIndexPromptsGet = 4
)

// MethodLabel returns method as a label: the server's own copy of a method it knows (of
// either era), [OtherLabel] for any other.
func MethodLabel(method []byte) string { return methodLabels[methodIndex(method)] }

// ErrorLabel returns code in decimal when it is in the table of [Code], [OtherLabel]
// otherwise (a handler's own code), so that an error label stays bounded.
func ErrorLabel(code Code) string {
	switch code {
	case CodeParseError:
		return "-32700"
	case CodeInvalidRequest:
		return "-32600"
	case CodeMethodNotFound:
		return "-32601"
	case CodeInvalidParams:
		return "-32602"
	case CodeInternalError:
		return "-32603"
	case CodeHeaderMismatch:
		return "-32020"
	case CodeMissingCapability:
		return "-32021"
	case CodeUnsupportedVersion:
		return "-32022"
	case CodeResourceNotFound:
		return "-32002"
	}
	return OtherLabel
}

package fastmcp

// The bounded label sets of an Observer: a method, version or error code outside them is
// OtherLabel, so that no request can make a label of its own. Switches, which the compiler
// turns into a search by length and value, keep this off the profile.

// versionLabel returns the served version v names, or OtherLabel.
func versionLabel(v []byte) string {
	switch string(v) {
	case Version:
		return Version
	case "2025-11-25":
		return "2025-11-25"
	case "2025-06-18":
		return "2025-06-18"
	}
	return OtherLabel
}

// MethodLabel returns method as a label: the server's own copy of a method it knows (of
// either era), [OtherLabel] for any other.
func MethodLabel(method []byte) string {
	switch string(method) {
	case MethodToolsCall:
		return MethodToolsCall
	case MethodToolsList:
		return MethodToolsList
	case MethodDiscover:
		return MethodDiscover
	case MethodPromptsList:
		return MethodPromptsList
	case MethodPromptsGet:
		return MethodPromptsGet
	case MethodResourcesList:
		return MethodResourcesList
	case MethodResourceTemplates:
		return MethodResourceTemplates
	case MethodResourcesRead:
		return MethodResourcesRead
	case MethodComplete:
		return MethodComplete
	case MethodListen:
		return MethodListen
	case MethodInitialize:
		return MethodInitialize
	case MethodPing:
		return MethodPing
	case MethodSetLevel:
		return MethodSetLevel
	case MethodResourcesSubscribe:
		return MethodResourcesSubscribe
	case MethodResourcesUnsubscribe:
		return MethodResourcesUnsubscribe
	}
	return OtherLabel
}

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

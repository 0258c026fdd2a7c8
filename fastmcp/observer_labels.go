package fastmcp

// The bounded label sets of an Observer: a method, version or error code outside them is
// OtherLabel, so that no request can make a label of its own.

// versionLabel returns the served version v names, or OtherLabel.
func versionLabel(v []byte) string {
	for _, known := range dialectVersions {
		if known != "" && string(v) == known {
			return known
		}
	}
	return OtherLabel
}

// knownMethods are the methods an Observer sees by name, both eras together.
var knownMethods = [...]string{
	MethodDiscover, MethodToolsList, MethodToolsCall, MethodPromptsList, MethodPromptsGet,
	MethodResourcesList, MethodResourceTemplates, MethodResourcesRead, MethodComplete, MethodListen,
	MethodInitialize, MethodPing, MethodSetLevel, MethodResourcesSubscribe, MethodResourcesUnsubscribe,
}

// MethodLabel returns method as a label: the server's own copy of a method it knows,
// [OtherLabel] for any other.
func MethodLabel(method []byte) string {
	for _, known := range knownMethods {
		if string(method) == known {
			return known
		}
	}
	return OtherLabel
}

// errorLabels are the decimal forms of the codes in the table of Code.
var errorLabels = map[Code]string{
	CodeParseError: "-32700", CodeInvalidRequest: "-32600", CodeMethodNotFound: "-32601",
	CodeInvalidParams: "-32602", CodeInternalError: "-32603", CodeHeaderMismatch: "-32020",
	CodeMissingCapability: "-32021", CodeUnsupportedVersion: "-32022", CodeResourceNotFound: "-32002",
}

// ErrorLabel returns code in decimal when it is in the table of [Code], [OtherLabel]
// otherwise (a handler's own code), so that an error label stays bounded.
func ErrorLabel(code Code) string {
	if l, ok := errorLabels[code]; ok {
		return l
	}
	return OtherLabel
}

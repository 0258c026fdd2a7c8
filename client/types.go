package client

import "encoding/json"

// Tool is one entry of tools/list. Raw is the whole entry as the server sent it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// Resource is one entry of resources/list.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Arguments   []struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Required    bool   `json:"required,omitempty"`
	} `json:"arguments,omitempty"`
}

// CallToolResult is a tools/call result. Its fields borrow nothing: Raw is the whole result
// object, Content and StructuredContent slices of it.
type CallToolResult struct {
	Raw               json.RawMessage
	Content           json.RawMessage
	StructuredContent json.RawMessage
	IsError           bool
}

// DiscoverResult is what the server says about itself: server/discover (modern) or the
// initialize result (legacy; TTLMs is then 0).
type DiscoverResult struct {
	SupportedVersions []string        `json:"supportedVersions,omitempty"`
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
	Instructions      string          `json:"instructions,omitempty"`
	TTLMs             int64           `json:"ttlMs,omitempty"`
	CacheScope        string          `json:"cacheScope,omitempty"`
	ServerInfo        json.RawMessage `json:"-"`
	Raw               json.RawMessage `json:"-"`
}

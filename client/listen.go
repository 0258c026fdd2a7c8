package client

import "context"

// Subscription is a subscriptions/listen stream. Not built yet: Listen returns
// ErrNotImplemented.
type Subscription struct{}

// ListenFilter selects the notifications a subscription carries.
type ListenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// Listen opens a subscriptions/listen stream. Not built yet: it returns ErrNotImplemented.
func (c *Client) Listen(ctx context.Context, f ListenFilter) (*Subscription, error) {
	return nil, ErrNotImplemented
}

package fastmcp

// EventKind names a change a listen stream may opt into.
type EventKind uint8

// The events of subscriptions/listen.
const (
	ToolsListChanged EventKind = iota + 1
	PromptsListChanged
	ResourcesListChanged
	ResourceUpdated
)

// Event is one change published to listen streams.
type Event struct {
	Kind EventKind
	// URI is the resource that changed, for ResourceUpdated.
	URI string
}

// EventBus carries events to listen streams. The default is in memory, local to one Server;
// an implementation over a pub/sub system fans events out across replicas.
type EventBus interface {
	// Publish delivers e to every matching subscriber. It must not block on slow subscribers.
	Publish(e Event)
	// Subscribe registers a subscriber; deliver is called for every event published until
	// the returned cancel function is called. deliver must not block.
	Subscribe(deliver func(Event)) (cancel func())
}

type hub struct{}

func newHub() *hub { return &hub{} }

func (h *hub) Publish(Event) {}

func (h *hub) Subscribe(func(Event)) func() { return func() {} }

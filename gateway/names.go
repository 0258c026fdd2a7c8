package gateway

import "strings"

// namer maps one backend's names and URIs to the Gateway's and back. The zero prefix (a
// transparent Gateway) maps everything to itself.
type namer struct {
	name         string // the backend's name, "" when transparent
	namePrefix   string // name + Separator
	schemePrefix string // name + SchemeSeparator
}

func newNamer(backend string, transparent bool) namer {
	if transparent {
		return namer{}
	}
	return namer{name: backend, namePrefix: backend + Separator, schemePrefix: backend + SchemeSeparator}
}

// Name is the Gateway's name of a backend's tool or prompt.
func (n namer) Name(own string) string { return n.namePrefix + own }

// URI is the Gateway's URI (or URI template) of a backend's resource (or template).
func (n namer) URI(own string) string { return n.schemePrefix + own }

// SplitName returns the backend and the backend's own name of a namespaced tool or prompt
// name: the inverse of the namespacing, false when name has no Separator.
func SplitName(name string) (backend, own string, ok bool) {
	backend, own, ok = strings.Cut(name, Separator)
	if !ok || !backendName.MatchString(backend) {
		return "", "", false
	}
	return backend, own, true
}

// SplitURI returns the backend and the backend's own URI of a namespaced resource URI (or
// URI template), false when its scheme names no backend.
func SplitURI(uri string) (backend, own string, ok bool) {
	backend, own, ok = strings.Cut(uri, SchemeSeparator)
	if !ok || !backendName.MatchString(backend) {
		return "", "", false
	}
	return backend, own, true
}

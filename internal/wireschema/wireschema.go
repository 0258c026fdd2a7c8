package wireschema

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

//go:embed schemas examples
var files embed.FS

// Latest is the newest embedded revision, used by [RequireValid].
const Latest = "2026-07-28"

// revisionNames lists the embedded revisions, newest first.
var revisionNames = []string{"2026-07-28", "2025-11-25", "2025-06-18"}

// Revisions returns the embedded revisions, newest first.
func Revisions() []string { return slices.Clone(revisionNames) }

// revision holds one schema file and its compiled definitions.
type revision struct {
	name string

	load    sync.Once
	loadErr error
	defsKey string          // "$defs" (2020-12) or "definitions" (draft-07)
	defs    map[string]bool // definition names in the file

	mu       sync.Mutex // guards compiler (not safe for concurrent use) and compiled
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

var revisions = func() map[string]*revision {
	m := make(map[string]*revision, len(revisionNames))
	for _, name := range revisionNames {
		m[name] = &revision{name: name}
	}
	return m
}()

// url is the resource name the schema file is registered under; it is never fetched.
func (r *revision) url() string { return "mem:///mcp/" + r.name + "/schema.json" }

func (r *revision) init() error {
	r.load.Do(func() {
		raw, err := files.ReadFile("schemas/" + r.name + "/schema.json")
		if err != nil {
			r.loadErr = fmt.Errorf("wireschema: read %s schema: %w", r.name, err)
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			r.loadErr = fmt.Errorf("wireschema: decode %s schema: %w", r.name, err)
			return
		}
		root, ok := doc.(map[string]any)
		if !ok {
			r.loadErr = fmt.Errorf("wireschema: %s schema is not an object", r.name)
			return
		}
		for _, key := range []string{"$defs", "definitions"} {
			if defs, ok := root[key].(map[string]any); ok {
				r.defsKey = key
				r.defs = make(map[string]bool, len(defs))
				for name := range defs {
					r.defs[name] = true
				}
				break
			}
		}
		if r.defs == nil {
			r.loadErr = fmt.Errorf("wireschema: %s schema has no definitions", r.name)
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(refuseLoader{})
		if err := c.AddResource(r.url(), doc); err != nil {
			r.loadErr = fmt.Errorf("wireschema: register %s schema: %w", r.name, err)
			return
		}
		r.compiler = c
		r.compiled = make(map[string]*jsonschema.Schema)
	})
	return r.loadErr
}

func (r *revision) schema(def string) (*jsonschema.Schema, error) {
	if err := r.init(); err != nil {
		return nil, err
	}
	if !r.defs[def] {
		return nil, fmt.Errorf("%w: %s has no definition %q", ErrUnknownDefinition, r.name, def)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if sch, ok := r.compiled[def]; ok {
		return sch, nil
	}
	sch, err := r.compiler.Compile(r.url() + "#/" + r.defsKey + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("wireschema: compile %s %s: %w", r.name, def, err)
	}
	r.compiled[def] = sch
	return sch, nil
}

// refuseLoader refuses to load any resource: the embedded schemas only use in-document references,
// and the JSON Schema meta-schemas are built into the validator.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("wireschema: refusing to load %q: only in-document references are allowed", url)
}

// Validate reports whether msg, one JSON value, matches definition def (for example
// "CallToolResultResponse") of revision rev (for example "2026-07-28"). It validates against
// #/$defs/<def> (#/definitions/<def> for 2025-06-18), never the root union. A mismatch is an error
// wrapping [ErrInvalid] with the validator's full report.
func Validate(rev, def string, msg []byte) error {
	r, ok := revisions[rev]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownRevision, rev)
	}
	sch, err := r.schema(def)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%w: %s %s: %v", ErrInvalid, rev, def, err)
	}
	return nil
}

// Definitions returns the sorted definition names of revision rev.
func Definitions(rev string) ([]string, error) {
	r, ok := revisions[rev]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownRevision, rev)
	}
	if err := r.init(); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(r.defs))
	for name := range r.defs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// ExampleDefinitions returns the sorted names of the definitions that have official 2026-07-28
// example vectors.
func ExampleDefinitions() []string {
	entries, err := fs.ReadDir(files, "examples")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// Examples returns the official 2026-07-28 example wire vectors for definition def, keyed by file
// name (for example "result-with-structured-content.json"). Each call returns fresh copies. It
// returns nil when def has no examples.
func Examples(def string) map[string][]byte {
	dir := path.Join("examples", def)
	if def == "" || path.Dir(dir) != "examples" {
		return nil
	}
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return nil
	}
	out := make(map[string][]byte, len(entries))
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".json" {
			continue
		}
		b, err := files.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		out[e.Name()] = b
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// RequireValid fails the test immediately unless msg matches definition def of revision [Latest].
func RequireValid(t testing.TB, def string, msg []byte) {
	t.Helper()
	RequireValidRev(t, Latest, def, msg)
}

// RequireValidRev fails the test immediately unless msg matches definition def of revision rev.
func RequireValidRev(t testing.TB, rev, def string, msg []byte) {
	t.Helper()
	err := Validate(rev, def, msg)
	require.NoError(t, err, "%s %s: message:\n%s", rev, def, msg)
}

// IsInvalid reports whether err is a schema mismatch (as opposed to an unknown revision or
// definition, or malformed JSON).
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }

package wirevector

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// Vector is one parsed vector file.
type Vector struct {
	File    string
	Comment string
	Setup   string
	Steps   []Step
}

// Legacy reports whether a step of v needs what only [RunSteps] gives an exchange: a
// protocol version carried beside the message, or messages of an initialize-era revision.
func (v *Vector) Legacy() bool {
	for _, st := range v.Steps {
		if st.HasVersion || st.Schema != wireschema.Latest {
			return true
		}
	}
	return false
}

// Step is one request and what it must produce.
type Step struct {
	Line       int // of the request marker, for messages
	Request    string
	RequestDef string
	// Version is the protocol version the transport carries beside the request (the
	// MCP-Protocol-Version header over HTTP; over stdio, the version the connection
	// negotiated with initialize), when HasVersion: the request marker's version=V.
	Version    string
	HasVersion bool
	// Schema is the revision the step's messages are validated against: the marker's
	// schema=REV, else Version when it names an embedded revision, else 2026-07-28.
	Schema   string
	NoReply  bool
	Reply    string
	ReplyDef string
	Notes    []string
	NoteDefs []string
}

var markerRE = regexp.MustCompile(`^-- (.+) --$`)

// Parse parses the text of a vector file.
func Parse(file string, data []byte) (*Vector, error) {
	v := &Vector{File: file}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	type section struct {
		name string
		args []string
		line int
		body []string
	}
	var sections []section
	var comment []string
	for i, l := range lines {
		if m := markerRE.FindStringSubmatch(l); m != nil {
			f := strings.Fields(m[1])
			sections = append(sections, section{name: f[0], args: f[1:], line: i + 1})
			if f[0] == "no" && len(f) == 2 && f[1] == "reply" {
				sections[len(sections)-1].name, sections[len(sections)-1].args = "no reply", nil
			}
			continue
		}
		if len(sections) == 0 {
			comment = append(comment, l)
			continue
		}
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		s := &sections[len(sections)-1]
		s.body = append(s.body, l)
	}
	v.Comment = strings.TrimSpace(strings.Join(comment, "\n"))
	if v.Comment == "" {
		return nil, fmt.Errorf("%s: no comment header saying what the vector covers", file)
	}
	oneLine := func(s section) (string, error) {
		if len(s.body) != 1 {
			return "", fmt.Errorf("%s:%d: section %q has %d lines, want 1", file, s.line, s.name, len(s.body))
		}
		return s.body[0], nil
	}
	var cur *Step
	for i, s := range sections {
		if i == 0 && s.name != "setup" {
			return nil, fmt.Errorf("%s:%d: the first section must be setup", file, s.line)
		}
		var err error
		switch s.name {
		case "setup":
			if i != 0 {
				return nil, fmt.Errorf("%s:%d: setup must come first, once", file, s.line)
			}
			v.Setup, err = oneLine(s)
		case "request":
			if cur != nil && !cur.NoReply && cur.Reply == "" {
				return nil, fmt.Errorf("%s:%d: the request at line %d has no reply section", file, s.line, cur.Line)
			}
			v.Steps = append(v.Steps, Step{Line: s.line})
			cur = &v.Steps[len(v.Steps)-1]
			if err = parseRequestArgs(cur, s.args); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, s.line, err)
			}
			cur.Request, err = oneLine(s)
		case "reply", "no reply":
			switch {
			case cur == nil:
				err = fmt.Errorf("%s:%d: %s before any request", file, s.line, s.name)
			case cur.NoReply || cur.Reply != "":
				err = fmt.Errorf("%s:%d: a second reply for the request at line %d", file, s.line, cur.Line)
			case s.name == "no reply":
				if len(s.body) != 0 {
					err = fmt.Errorf("%s:%d: no reply has a body", file, s.line)
				}
				cur.NoReply = true
			case len(s.args) != 1:
				err = fmt.Errorf("%s:%d: reply needs exactly one schema definition", file, s.line)
			default:
				cur.ReplyDef = s.args[0]
				cur.Reply, err = oneLine(s)
			}
		case "notifications":
			switch {
			case cur == nil:
				err = fmt.Errorf("%s:%d: notifications before any request", file, s.line)
			case cur.Notes != nil:
				err = fmt.Errorf("%s:%d: a second notifications section", file, s.line)
			case len(s.body) == 0:
				err = fmt.Errorf("%s:%d: empty notifications section (leave it out instead)", file, s.line)
			case len(s.args) != 1 && len(s.args) != len(s.body):
				err = fmt.Errorf("%s:%d: notifications needs one definition, or one per line", file, s.line)
			default:
				cur.Notes = s.body
				for j := range s.body {
					cur.NoteDefs = append(cur.NoteDefs, s.args[min(j, len(s.args)-1)])
				}
			}
		default:
			err = fmt.Errorf("%s:%d: unknown section %q", file, s.line, s.name)
		}
		if err != nil {
			return nil, err
		}
	}
	if v.Setup == "" {
		return nil, fmt.Errorf("%s: no setup section", file)
	}
	if len(v.Steps) == 0 {
		return nil, fmt.Errorf("%s: no request", file)
	}
	if cur != nil && !cur.NoReply && cur.Reply == "" {
		return nil, fmt.Errorf("%s:%d: the last request has no reply section", file, cur.Line)
	}
	return v, nil
}

// parseRequestArgs reads a request marker's arguments: at most one definition, and the
// options version=V and schema=REV.
func parseRequestArgs(st *Step, args []string) error {
	for _, a := range args {
		key, val, isOption := strings.Cut(a, "=")
		switch {
		case !isOption && st.RequestDef != "":
			return fmt.Errorf("request takes at most one definition")
		case !isOption:
			st.RequestDef = a
		case key == "version":
			st.Version, st.HasVersion = val, true
		case key == "schema":
			if !slices.Contains(wireschema.Revisions(), val) {
				return fmt.Errorf("schema=%s names no embedded revision", val)
			}
			st.Schema = val
		default:
			return fmt.Errorf("unknown request option %q", a)
		}
	}
	if st.Schema == "" {
		st.Schema = wireschema.Latest
		if st.HasVersion && slices.Contains(wireschema.Revisions(), st.Version) {
			st.Schema = st.Version
		}
	}
	return nil
}

// Load parses every vector file in dir.
func Load(t testing.TB, dir string) []*Vector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no vectors in %s", dir)
	var vs []*Vector
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		v, err := Parse(filepath.Base(f), data)
		require.NoError(t, err)
		vs = append(vs, v)
	}
	return vs
}

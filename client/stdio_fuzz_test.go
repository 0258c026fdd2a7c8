package client

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzStdioLines checks the framing of untrusted server output: every line returned is
// within the bound and has no newline; an over-long line is reported, never returned, and
// the reader always reaches the end of input, even read one byte at a time.
func FuzzStdioLines(f *testing.F) {
	for _, s := range []string{"", "\n", "{}\n", "a\r\nb", "\xef\xbb\xbf{}\n", "  \t\n{}\n", "0123456789abcdef0123\nx\n"} {
		f.Add([]byte(s), uint8(16))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		limit := int(max%64) + 1
		lr := newLineReader(iotest.OneByteReader(bytes.NewReader(in)), limit)
		for range len(in) + 1 {
			line, err := lr.next()
			switch {
			case errors.Is(err, io.EOF):
				return
			case errors.Is(err, ErrLineTooLong):
				if len(lr.head) > headBytes {
					t.Fatalf("head of %d bytes", len(lr.head))
				}
				continue
			case err != nil:
				t.Fatal(err)
			}
			if len(line) >= limit+1 || bytes.IndexByte(line, '\n') >= 0 || blank(line) {
				t.Fatalf("line %q with limit %d", line, limit)
			}
		}
		t.Fatal("the reader did not reach the end of input")
	})
}

// FuzzHeadID checks that reading the id from the cut-short start of a line never panics and
// only returns a slice of its input that is a complete id literal.
func FuzzHeadID(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"result":{`, `{"id":"a\"b","x`, `{"result":{"id":2},"id":3}`, `{"id":`, `{"id":12`, `[1]`, `{"a":[{"b":"]"}],"id":-4,`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		id := headID(in)
		if id == nil {
			return
		}
		if !bytes.Contains(in, id) {
			t.Fatalf("id %q is not from the input", id)
		}
		if c := id[0]; c == '"' {
			if len(id) < 2 || id[len(id)-1] != '"' {
				t.Fatalf("unterminated string id %q", id)
			}
		} else if c != '-' && (c < '0' || c > '9') {
			t.Fatalf("id %q is neither a number nor a string", id)
		}
	})
}

func TestHeadID(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{"text":"xxxx`: `1`,
		`{"result":{"id":2},"id":"a\"b","x`:              `"a\"b"`,
		`{"jsonrpc":"2.0","result":{"text":"xxxx`:        ``,
		`{"id":12`:               ``, // the number may go on
		`{"id":null,"error":{}}`: ``,
	} {
		if got := string(headID([]byte(in))); got != want {
			t.Errorf("headID(%q) = %q, want %q", in, got, want)
		}
	}
}

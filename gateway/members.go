package gateway

import "github.com/fastmcp-go/fastmcp/decode"

// editObject copies the JSON object raw (one the decoder accepted) member by member into a
// slice of its own: edit returns the value written for a member (its own v, or another), or
// nil to leave the member out. Keys are written as they came, escapes kept.
func editObject(raw []byte, edit func(key, v []byte) []byte) []byte {
	out := []byte{'{'}
	decode.Members(raw, func(key, v []byte, _ decode.Type) bool {
		if v = edit(key, v); v != nil {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(append(append(out, '"'), key...), '"', ':')
			out = append(out, v...)
		}
		return true
	})
	return append(out, '}')
}

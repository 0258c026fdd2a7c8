package fastmcp

import (
	"context"
	"testing"
)

func BenchmarkComponents(b *testing.B) {
	s := newTestServer(b, nil)
	addTestResources(s)
	addTestPrompts(s)
	cases := []struct{ name, msg string }{
		{"op=read/kind=exact", compReq("resources/read", `"uri":"test://static-text"`)},
		{"op=read/kind=template", compReq("resources/read", `"uri":"test://template/123/data"`)},
		{"op=read/kind=notfound", compReq("resources/read", `"uri":"test://nope"`)},
		{"op=list/kind=resources", compReq("resources/list", "")},
		{"op=get/kind=prompt", compReq("prompts/get", `"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}`)},
		{"op=complete/kind=prompt", compReq("completion/complete", `"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"test"}`)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			msg := []byte(c.msg)
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			ctx := context.Background()
			for b.Loop() {
				if s.Dispatch(ctx, msg, nil) == nil {
					b.Fatal("no reply")
				}
			}
		})
	}
}

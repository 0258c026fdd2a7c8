package uritemplate_test

import (
	"errors"
	"fmt"

	"github.com/fastmcp-go/fastmcp/internal/uritemplate"
)

func ExampleParse() {
	t, err := uritemplate.Parse("test://template/{id}/data")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Variables())

	_, err = uritemplate.Parse("files://{+path}")
	fmt.Println(errors.Is(err, uritemplate.ErrUnsupported))
	fmt.Println(err)
	// Output:
	// [id]
	// true
	// uritemplate: unsupported expression: operator '+': reserved expansion {+var} (level 2); only level-1 {var} expressions are supported (offset 9)
}

func ExampleTemplate_MatchAppend() {
	t := uritemplate.MustParse("db://{schema}/{table}.json")
	var buf [4]uritemplate.Var // reused across calls: no allocation
	vars, ok := t.MatchAppend(buf[:0], "db://public/user%20log.json")
	fmt.Println(ok, vars)

	_, ok = t.MatchAppend(buf[:0], "db://public/a/b.json")
	fmt.Println(ok)
	// Output:
	// true [{schema public} {table user log}]
	// false
}

func ExampleTemplate_Expand() {
	t := uritemplate.MustParse("file:///{name}")
	uri := t.Expand(map[string]string{"name": "notes/2024.txt"})
	fmt.Println(uri)
	m, ok := t.Match(uri)
	fmt.Println(ok, m["name"])
	// Output:
	// file:///notes%2F2024.txt
	// true notes/2024.txt
}

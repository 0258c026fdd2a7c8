// Package uritemplate parses and matches the RFC 6570 subset that fastmcp
// accepts for MCP resource templates, such as
//
//	test://template/{id}/data
//	file:///{name}
//	db://{schema}/{table}.json
//
// # Syntax
//
// A template is literal text and level-1 expressions, "{name}" (RFC 6570
// §1.2, simple string expansion). Nothing else is supported; [Parse] rejects
// the rest with an error that wraps [ErrUnsupported] and names the feature:
//
//   - operators: {+x} {#x} (level 2) and {.x} {/x} {;x} {?x} {&x} (level 3),
//     and the reserved operators = , ! @ |
//   - prefix {x:3} and explode {x*} modifiers (level 4)
//   - several variables in one expression, {x,y}
//
// Variable names follow the RFC 6570 varname rule: ALPHA, DIGIT, "_" and
// percent-encoded triplets, with single dots between them ("a.b", not ".a",
// "a." or "a..b"). Names are compared byte for byte.
//
// [Parse] also rejects, although RFC 6570 allows them:
//
//   - the same variable in two expressions ([ErrDuplicateVar]);
//   - two expressions with no literal between them, "{a}{b}"
//     ([ErrAdjacentVars]): every split of "xy" would be a valid match;
//   - the empty template ([ErrSyntax]).
//
// Literal text is any bytes other than '{' and '}' and is compared with the
// URI byte for byte: no case folding of the scheme or host and no
// percent-encoding normalization.
//
// # Matching
//
// [Template.Match] and [Template.MatchAppend] decide whether a URI is an
// expansion of the template and extract the variables. The rules:
//
//   - Each value is one or more bytes and contains no '/', '?' or '#'
//     (level-1 expansion percent-encodes them), so a variable never spans
//     path segments, and a template without a query matches no URI whose
//     variable part has one. "file:///{name}" matches "file:///a%2Fb"
//     (name "a/b") but not "file:///a/b".
//   - Literals before the first and after the last expression anchor the
//     URI at both ends.
//   - The literal after any other variable ends that variable at its first
//     occurrence (the shortest value). "x://{a}.{b}" matches "x://1.2.3" with
//     a "1" and b "2.3". The last variable takes everything up to the trailing
//     literal, so "x://{name}.json" matches "x://a.b.json" with name "a.b".
//   - Nothing is retried. Because values cannot contain delimiters, the
//     shortest choice never loses a match: a URI matches exactly when some
//     split into values exists, and the split chosen is the one whose value
//     ends come first in template order (the tests check this against a
//     backtracking matcher).
//   - Values are percent-decoded once, after the split. An invalid escape
//     ("%", "%4", "%zz") or a decoded value that is not valid UTF-8 means no
//     match. "+" is not a space.
//
// Matching runs in time linear in the length of the URI: literals after
// variables are found with a Knuth-Morris-Pratt scan whose tables are built by
// [Parse], each byte is examined a bounded number of times, and nothing is
// retried. The BenchmarkMatch/case=adversarial-* cases show it on 64 KiB and
// 1 MiB inputs, including one where naive substring search would cost
// O(len(uri) * len(literal)).
//
// # Expansion
//
// [Template.Expand] is level-1 expansion: every byte of a value that is not
// unreserved (ALPHA DIGIT - . _ ~) is percent-encoded with upper-case hex.
// Non-empty, valid UTF-8 values round-trip through Match, except when the
// encoded form of a value other than the last contains the literal that
// follows it: "x://{a}.{b}" expands a "1.2", b "3" to "x://1.2.3", which
// matches as a "1", b "2.3". FuzzMatch checks both behaviors.
//
// # Limits
//
//   - [MaxTemplateBytes] (1,024): longer templates are rejected with [ErrTooLong].
//   - [MaxVars] (32): more expressions are rejected with [ErrTooManyVars].
//
// URIs passed to Match are not limited here; the transport bounds the message.
//
// # Security
//
// Decoded values may contain '/', "..", NUL and any other character. Sanitize
// them before using them as file paths, SQL or shell arguments.
//
// # Example
//
//	t, err := uritemplate.Parse("test://template/{id}/data")
//	if err != nil {
//		return err
//	}
//	vars, ok := t.MatchAppend(buf[:0], "test://template/42/data")
//	// ok == true, vars == []Var{{Name: "id", Value: "42"}}
//
// A [Template] is immutable; its methods may be called from concurrently
// running goroutines.
package uritemplate

package uritemplate

import (
	"strconv"
	"strings"
)

// Limits enforced by [Parse].
const (
	// MaxTemplateBytes is the longest template Parse accepts, in bytes.
	MaxTemplateBytes = 1024
	// MaxVars is the largest number of expressions in one template.
	MaxVars = 32
)

// Template is a parsed resource template. It is immutable and safe for
// concurrent use.
type Template struct {
	raw    string
	prefix string     // literal text before the first expression
	vars   []variable // expressions, in template order
}

// variable is one expression and the literal that follows it.
type variable struct {
	name string
	// lit is the literal text up to the next expression or the end of the
	// template. Only the last variable's lit may be empty.
	lit string
	// next is the Knuth-Morris-Pratt failure table of lit: next[k] is the
	// length of the longest proper prefix of lit[:k+1] that is also its
	// suffix. It is nil for the last variable, whose literal is matched
	// against the end of the URI instead of searched for.
	next []int16
}

// Var is one variable bound by a match.
type Var struct {
	Name  string
	Value string
}

// Parse parses a template. It returns a [*ParseError] wrapping [ErrTooLong],
// [ErrTooManyVars], [ErrSyntax], [ErrUnsupported], [ErrDuplicateVar] or
// [ErrAdjacentVars]. See the package documentation for the accepted subset.
func Parse(s string) (*Template, error) {
	if len(s) > MaxTemplateBytes {
		return nil, parseError(MaxTemplateBytes, ErrTooLong,
			strconv.Itoa(len(s))+" bytes, the limit is "+strconv.Itoa(MaxTemplateBytes))
	}
	if s == "" {
		return nil, parseError(0, ErrSyntax, "empty template")
	}
	t := &Template{raw: s}
	if n := strings.Count(s, "{"); n > 0 {
		t.vars = make([]variable, 0, min(n, MaxVars))
	}
	litStart := 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '}':
			return nil, parseError(i, ErrSyntax, "'}' outside an expression")
		case '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return nil, parseError(i, ErrSyntax, "unclosed '{'")
			}
			if err := t.addVar(s, litStart, i, s[i+1:i+1+end]); err != nil {
				return nil, err
			}
			i += end + 2
			litStart = i
		default:
			i++
		}
	}
	tail := s[litStart:]
	if len(t.vars) == 0 {
		t.prefix = tail
		return t, nil
	}
	t.vars[len(t.vars)-1].lit = tail
	// One backing array for all failure tables; literals total at most
	// MaxTemplateBytes, so int16 entries suffice.
	total := 0
	for _, v := range t.vars[:len(t.vars)-1] {
		total += len(v.lit)
	}
	tables := make([]int16, total)
	for k := range t.vars[:len(t.vars)-1] {
		v := &t.vars[k]
		v.next = tables[:len(v.lit):len(v.lit)]
		tables = tables[len(v.lit):]
		fillFailureTable(v.next, v.lit)
	}
	return t, nil
}

// addVar records the literal s[litStart:open] and the expression expr, which
// starts with the '{' at offset open.
func (t *Template) addVar(s string, litStart, open int, expr string) error {
	lit := s[litStart:open]
	if len(t.vars) == 0 {
		t.prefix = lit
	} else {
		if lit == "" {
			return parseError(open, ErrAdjacentVars,
				"no literal text between {"+t.vars[len(t.vars)-1].name+"} and the next expression; matching would be ambiguous")
		}
		t.vars[len(t.vars)-1].lit = lit
	}
	if err := checkExpr(expr, open+1); err != nil {
		return err
	}
	for _, v := range t.vars {
		if v.name == expr {
			return parseError(open, ErrDuplicateVar, "variable "+strconv.Quote(expr)+" appears twice")
		}
	}
	if len(t.vars) == MaxVars {
		return parseError(open, ErrTooManyVars,
			"more than "+strconv.Itoa(MaxVars)+" expressions")
	}
	t.vars = append(t.vars, variable{name: expr})
	return nil
}

// operatorName describes the RFC 6570 operators; all are unsupported.
func operatorName(c byte) string {
	switch c {
	case '+':
		return "reserved expansion {+var} (level 2)"
	case '#':
		return "fragment expansion {#var} (level 2)"
	case '.':
		return "label expansion {.var} (level 3)"
	case '/':
		return "path segment expansion {/var} (level 3)"
	case ';':
		return "path-style parameter expansion {;var} (level 3)"
	case '?':
		return "form-style query expansion {?var} (level 3)"
	case '&':
		return "form-style query continuation {&var} (level 3)"
	case '=', ',', '!', '@', '|':
		return "an operator RFC 6570 reserves for future use"
	}
	return ""
}

// checkExpr validates the text between '{' and '}' as one level-1 varname.
// off is the offset of expr in the template.
func checkExpr(expr string, off int) error {
	const only = "; only level-1 {var} expressions are supported"
	if expr == "" {
		return parseError(off-1, ErrSyntax, "empty expression {}")
	}
	if op := operatorName(expr[0]); op != "" {
		return parseError(off, ErrUnsupported, "operator "+strconv.QuoteRune(rune(expr[0]))+": "+op+only)
	}
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case isVarChar(c):
		case c == '%':
			if i+2 >= len(expr) || !isHex(expr[i+1]) || !isHex(expr[i+2]) {
				return parseError(off+i, ErrSyntax, "invalid percent-encoding in variable name")
			}
			i += 2
		case c == '.':
			if i == 0 || i == len(expr)-1 || expr[i-1] == '.' {
				return parseError(off+i, ErrSyntax, "'.' in a variable name must be between two name characters")
			}
		case c == ':':
			return parseError(off+i, ErrUnsupported, "prefix modifier {var:n} (level 4)"+only)
		case c == '*':
			return parseError(off+i, ErrUnsupported, "explode modifier {var*} (level 4)"+only)
		case c == ',':
			return parseError(off+i, ErrUnsupported, "several variables in one expression {a,b} (level 3)"+only)
		default:
			return parseError(off+i, ErrSyntax, "invalid character "+strconv.QuoteRune(rune(c))+" in variable name")
		}
	}
	return nil
}

func isVarChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// failureTable builds the Knuth-Morris-Pratt table of lit.
func failureTable(lit string) []int16 {
	next := make([]int16, len(lit))
	fillFailureTable(next, lit)
	return next
}

// fillFailureTable fills next, which has len(lit) entries.
func fillFailureTable(next []int16, lit string) {
	k := 0
	for i := 1; i < len(lit); i++ {
		for k > 0 && lit[i] != lit[k] {
			k = int(next[k-1])
		}
		if lit[i] == lit[k] {
			k++
		}
		next[i] = int16(k)
	}
}

// MustParse is like [Parse] but panics on error. It is meant for templates
// fixed at compile time.
func MustParse(s string) *Template {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

// String returns the template exactly as given to [Parse].
func (t *Template) String() string { return t.raw }

// Variables returns the variable names in template order, for example to
// answer completion/complete for a template argument. The slice is a copy.
func (t *Template) Variables() []string {
	names := make([]string, len(t.vars))
	for i, v := range t.vars {
		names[i] = v.name
	}
	return names
}

// NumVars returns the number of variables, which is the number of [Var]
// values a successful match appends.
func (t *Template) NumVars() int { return len(t.vars) }

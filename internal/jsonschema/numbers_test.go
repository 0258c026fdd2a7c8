package jsonschema

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/jsonnum"
)

// TestHugeNumbers: numbers whose exact value is huge are judged as JSON Schema judges them,
// without computing that value (issue 10, defect 12).
func TestHugeNumbers(t *testing.T) {
	for _, tc := range []struct {
		schema, instance string
		want             string // "" for valid
	}{
		{numbersSchema, hugeNumbers, ""},
		{`{"type":"integer"}`, `1e3999999`, ""}, // an integer, though Go's big.Rat cannot read it
		{`{"type":"integer"}`, `1e` + strings.Repeat("9", 30), ""},
		{`{"type":"integer"}`, `-1e999999`, ""},
		{`{"type":"integer"}`, `1e-999999`, "arguments: expected integer, got number"},
		{`{"type":"integer"}`, `1.` + strings.Repeat("0", 5000) + `1`, "arguments: expected integer, got number"},
		{`{"type":"integer"}`, `1.` + strings.Repeat("0", 5000), ""},
		{`{"type":"integer","maximum":100}`, `1e999999`, "arguments: must be <= 100"},
		{`{"type":"integer","minimum":100}`, `1e999999`, ""},
		{`{"type":"integer","minimum":100}`, `-1e999999`, "arguments: must be >= 100"},
		{`{"type":"number","exclusiveMinimum":0}`, `1e-999999`, ""},
		{`{"type":"number","exclusiveMinimum":0}`, `-1e-999999`, "arguments: must be > 0"},
		{`{"type":"number","maximum":0.5}`, `0.5` + strings.Repeat("0", 3000) + `1`, "arguments: must be <= 0.5"},
		{`{"type":"number","maximum":0.5}`, `0.4` + strings.Repeat("9", 3000), ""},
		{`{"type":"number","maximum":0.5}`, `0.5` + strings.Repeat("0", 3000), ""},
		{`{"multipleOf":3}`, `3e999999`, ""},
		{`{"multipleOf":3}`, `1e999999`, "arguments: must be a multiple of 3"},
		{`{"multipleOf":0.25}`, `25e999999`, ""},
		{`{"multipleOf":0.25}`, `1.` + strings.Repeat("0", 500) + `1`, "arguments: must be a multiple of 0.25"},
		{`{"multipleOf":0.25}`, `1e-999999`, "arguments: must be a multiple of 0.25"},
		{`{"multipleOf":1024}`, `1e999999`, ""},
		{`{"multipleOf":7}`, `1` + strings.Repeat("0", 60) + `e999999`, "arguments: must be a multiple of 7"},
		{`{"enum":[1,2]}`, `1.` + strings.Repeat("0", 999) + `e0`, ""},
		{`{"enum":[1,2]}`, `1e999999`, "arguments: must be one of 1, 2"},
		{`{"const":0}`, `-0e999999`, ""},
		{`{"type":"array","uniqueItems":true}`, `[1,2,1e999999]`,
			"arguments: /2: number 1e999999 is outside the range this schema can check (at most 100 significant digits, a magnitude below 1e400, no digit finer than 1e-400)"},
		{`{"type":"array","uniqueItems":true}`, `[1e999999,1e999998]`, "arguments: /0: number 1e999999 is outside the range this schema can check (at most 100 significant digits, a magnitude below 1e400, no digit finer than 1e-400) (and 1 more error)"},
		{`{"type":"array","uniqueItems":true}`, `[1e300,1e299]`, ""},
		{`{"properties":{"n":{"maximum":100},"a":{"uniqueItems":true}}}`, `{"n":1e999999}`, "arguments: /n: must be <= 100"},
		{`{"properties":{"n":{"maximum":100},"a":{"uniqueItems":true}}}`, `{"a":[{"n":1e999999}]}`,
			"arguments: /a/0/n: number 1e999999 is outside the range this schema can check (at most 100 significant digits, a magnitude below 1e400, no digit finer than 1e-400)"},
		{`{"multipleOf":0.5}`, `1e999999`, ""},
		{`{"multipleOf":0.5}`, `1` + strings.Repeat("1", 200) + `e999999`,
			"arguments: number " + strings.Repeat("1", 31) + "… is outside the range this schema can check (at most 100 significant digits, a magnitude below 1e400, no digit finer than 1e-400)"},
	} {
		t.Run(QuoteNumber(tc.schema+" "+tc.instance), func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			err := s.Validate([]byte(tc.instance))
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// TestPreparedNumbersAreSmall measures the work: whatever the instance's numbers, those the
// validator computes with are short literals of bounded exponent.
func TestPreparedNumbersAreSmall(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","minimum":-5,"maximum":1000000,"multipleOf":0.001}}}}`)
	lits := []string{"1e999999", "-1e999999", "1e-999999", "1e3999999", "1.5e999999", "0." + strings.Repeat("3", 20000),
		"1" + strings.Repeat("0", 60) + "e900", "1." + strings.Repeat("0", 9000), "7", "-0.0"}
	inst := `{"a":[` + strings.Join(lits, ",") + `]}`
	v, err := santhosh.UnmarshalJSON(bytes.NewReader([]byte(inst)))
	require.NoError(t, err)
	v, err = s.prepare(context.Background(), v)
	require.NoError(t, err)
	for _, n := range v.(map[string]any)["a"].([]any) {
		lit := string(n.(json.Number))
		assert.LessOrEqual(t, len(lit), 256, lit)
		x, ok := jsonnum.Parse([]byte(lit))
		require.True(t, ok, lit)
		assert.True(t, x.N <= maxExactDigits && x.Exp <= maxExactExponent && x.Last() >= -maxExactExponent, lit)
	}
}

func TestSchemaNumbersBounded(t *testing.T) {
	for _, schema := range []string{
		`{"maximum":1e400}`, `{"minimum":-1e999999}`, `{"multipleOf":1e-401}`,
		`{"enum":[1.` + strings.Repeat("1", 100) + `]}`, `{"default":1e999999}`,
	} {
		_, err := Compile([]byte(schema))
		require.ErrorIs(t, err, ErrInvalidSchema, schema)
		assert.Contains(t, err.Error(), "outside the supported range", schema)
	}
	for _, schema := range []string{`{"maximum":1.7976931348623157e308}`, `{"minimum":5e-324}`, `{"multipleOf":1e-400}`} {
		_, err := Compile([]byte(schema))
		assert.NoError(t, err, schema)
	}
}

func TestValidateContext(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"type":"integer"}}`)
	inst := []byte("[" + strings.TrimSuffix(strings.Repeat("1.0,", 3000), ",") + "]")
	require.NoError(t, s.ValidateContext(context.Background(), inst))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, s.ValidateContext(ctx, inst), context.Canceled)
	assert.ErrorIs(t, s.ValidateDecodedContext(ctx, inst), context.Canceled)
}

// standInSchemas are the schema shapes FuzzStandIn checks stand-ins against; %[1]s and %[2]s
// are the fuzzer's constants.
var standInSchemas = []string{
	`{"type":"integer"}`,
	`{"minimum":%[1]s,"maximum":%[2]s}`,
	`{"exclusiveMinimum":%[1]s,"exclusiveMaximum":%[2]s}`,
	`{"multipleOf":%[1]s}`,
	`{"type":"integer","multipleOf":%[1]s,"maximum":%[2]s}`,
	`{"enum":[%[1]s,%[2]s,"x"]}`,
	`{"const":%[1]s}`,
	`{"anyOf":[{"multipleOf":%[1]s},{"type":"integer","minimum":%[2]s}]}`,
	`{"not":{"exclusiveMaximum":%[2]s},"multipleOf":%[1]s}`,
}

// FuzzStandIn checks that a number's stand-in is judged as the number itself, for short
// numbers the validator can judge exactly.
func FuzzStandIn(f *testing.F) {
	for _, seed := range [][3]string{
		{"3", "100", "1e5"}, {"0.25", "-1", "2.5e1"}, {"7", "7", "7.000001"}, {"1e-3", "0.5", "0.50000001"},
		{"2", "1e10", "123456789012345678901234567890"}, {"0.1", "-0.1", "-1e-30"}, {"1", "2", "1.0"},
		{"1e10", "5", "4e15"}, {"0.125", "8", "3.375"}, {"1.5", "1.5", "1.5e0"}, {"99", "0", "-0.0"},
	} {
		for i := range standInSchemas {
			f.Add(uint8(i), seed[0], seed[1], seed[2])
		}
	}
	f.Fuzz(func(t *testing.T, shape uint8, c1, c2, x string) {
		if !smallLiteral(c1) || !smallLiteral(c2) || !smallLiteral(x) {
			return
		}
		if n, _ := jsonnum.Parse([]byte(c1)); n.Zero() && shape%uint8(len(standInSchemas)) != 0 {
			c1 = "1" // multipleOf must be positive
		} else if n.Neg {
			c1 = c1[1:]
		}
		src := strings.NewReplacer("%[1]s", c1, "%[2]s", c2).Replace(standInSchemas[int(shape)%len(standInSchemas)])
		s, err := Compile([]byte(src))
		if err != nil {
			return
		}
		n, _ := jsonnum.Parse([]byte(x))
		sub, ok := s.numbers.standIn(nil, n, false)
		if !ok {
			return
		}
		want := s.sch.Validate(json.Number(x)) == nil
		if got := s.sch.Validate(json.Number(sub)) == nil; got != want {
			t.Fatalf("schema %s: %s is valid: %v, its stand-in %s: %v", src, x, want, sub, got)
		}
	})
}

// smallLiteral reports whether lit is a JSON number literal math/big reads fast.
func smallLiteral(lit string) bool {
	x, ok := jsonnum.Parse([]byte(lit))
	return ok && len(lit) <= 40 && (x.N == 0 || x.Exp < 60 && x.Last() > -60)
}

func TestQuoteNumber(t *testing.T) {
	assert.Equal(t, "1e999999", QuoteNumber("1e999999"))
	long := "1" + strings.Repeat("0", 40)
	assert.Equal(t, long[:31]+"…", QuoteNumber(long))
	assert.Equal(t, 32, len([]rune(QuoteNumber(long))))
}

package xmlfmt

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// sparkNumbers is testdata/spark_numbers.json: values read and inferred by
// PySpark's XML source (testdata/spark_numbers.py wrote it).
type sparkNumbers struct {
	Spark  string               `json:"spark"`
	Values []string             `json:"values"`
	Read   map[string][]*string `json:"read"`
	Infer  map[string][]string  `json:"infer"`
}

func loadSparkNumbers(t *testing.T) sparkNumbers {
	t.Helper()
	b, err := os.ReadFile("testdata/spark_numbers.json")
	if err != nil {
		t.Fatal(err)
	}
	var g sparkNumbers
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNumbersAsSpark reads every value of the golden file into each type
// and infers its type alone, and compares with what Spark read: the
// sign-safe integers, the NumberFormat fallback of doubles, commas and
// Unicode digits in decimals, 1/0 booleans, the inference cascade.
func TestNumbersAsSpark(t *testing.T) {
	g := loadSparkNumbers(t)
	var doc strings.Builder
	doc.WriteString("<rows>")
	for _, v := range g.Values {
		fmt.Fprintf(&doc, "<row><v>%s</v></row>", html.EscapeString(v))
	}
	doc.WriteString("</rows>")
	for ddl, want := range g.Read {
		typ, err := schema.ParseDDLType(ddl)
		if err != nil {
			t.Fatal(err)
		}
		s := &schema.StructType{Fields: []schema.Field{{Name: "v", Type: typ, Nullable: true}}}
		rows, _, err := read(t, doc.String(), s, fileformat.ReadOptions{Options: map[string]string{"rowTag": "row"}})
		if err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
		if len(rows) != len(g.Values) {
			t.Fatalf("%s: %d rows for %d values", ddl, len(rows), len(g.Values))
		}
		for i, v := range g.Values {
			if !sameAsSpark(rows[i][0], want[i]) {
				t.Errorf("%q read as %s: %v, Spark %s read %s", v, ddl, rows[i][0], g.Spark, sparkText(want[i]))
			}
		}
	}
	for opt, want := range g.Infer {
		pd := strings.HasSuffix(opt, "=true")
		for i, v := range g.Values {
			s, err := infer(t, "<rows><row><v>"+html.EscapeString(v)+"</v></row></rows>",
				fileformat.InferOptions{Options: map[string]string{"rowTag": "row"}, InferColumnTypes: true, PrefersDecimal: pd})
			if err != nil {
				t.Fatal(err)
			}
			got := "(none)"
			if f := s.FieldIndex("v"); f >= 0 {
				got = strings.ToLower(schema.DDLType(s.Fields[f].Type))
			}
			if got != want[i] {
				t.Errorf("%q with %s infers %s, Spark %s infers %s", v, opt, got, g.Spark, want[i])
			}
		}
	}
}

func sparkText(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// sameAsSpark compares a value read with the text PySpark printed for it.
func sameAsSpark(got any, want *string) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	w := *want
	switch x := got.(type) {
	case float64:
		return sameFloat(x, w)
	case float32:
		return sameFloat(float64(x), w)
	case bool:
		return (w == "True") == x && (w == "True" || w == "False")
	case schema.Decimal:
		r, ok := new(big.Rat).SetString(w)
		return ok && r.Cmp(new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))) == 0 &&
			x.Scale == len(w)-strings.IndexByte(w, '.')-1
	case int64, int32, int16, int8:
		return fmt.Sprint(x) == w
	}
	return false
}

func sameFloat(x float64, w string) bool {
	switch w {
	case "nan":
		return math.IsNaN(x)
	case "inf":
		return math.IsInf(x, 1)
	case "-inf":
		return math.IsInf(x, -1)
	}
	f, err := strconv.ParseFloat(w, 64)
	return err == nil && f == x && math.Signbit(f) == math.Signbit(x)
}

// FuzzNumbers: the number parsers never panic, NumberFormat reads a
// prefix (text after the number changes nothing), and a value inferred as
// LONG, DECIMAL or DOUBLE reads back as that type.
func FuzzNumbers(f *testing.F) {
	for _, v := range []string{"1,234.5E3", "-∞", "١.٥", "12abc", "0x1p3", "+-5", "1e400", ",5", "0.0050", "NaNx", "1E-", "--"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if a, ok := numberFormatPrefix(s); ok {
			b, ok := numberFormatPrefix(s + "x")
			if !ok || !(a == b || math.IsNaN(a) && math.IsNaN(b)) || math.Signbit(a) != math.Signbit(b) {
				t.Errorf("%q: %v, with x after it %v %v", s, a, b, ok)
			}
		}
		if inferLong(s) {
			if _, ok := xmlIntegral(schema.Long, s); !ok {
				t.Errorf("%q infers LONG but does not read as one", s)
			}
		}
		if d, ok := inferDecimal(s); ok {
			if _, ok := xmlDecimal(s, d); !ok {
				t.Errorf("%q infers %s but does not read as one", s, schema.DDLType(d))
			}
		}
		if inferDouble(s) {
			if _, ok := xmlDouble(s); !ok {
				t.Errorf("%q infers DOUBLE but does not read as one", s)
			}
		}
		for _, pt := range []schema.PrimitiveType{schema.Integer, schema.Short, schema.Byte} {
			if v, ok := xmlIntegral(pt, s); ok {
				if w, ok := xmlIntegral(schema.Long, s); !ok || fmt.Sprint(v) != fmt.Sprint(w) {
					t.Errorf("%q reads as %s %v but as LONG %v %v", s, schema.DDLType(pt), v, w, ok)
				}
			}
		}
	})
}

// TestXMLDecimalSyntax: DECIMAL text is BigDecimal's syntax once its
// commas are dropped, so white space anywhere refuses it (Java's
// new BigDecimal(" 5") throws), also where a dropped comma leaves it at
// an end.
func TestXMLDecimalSyntax(t *testing.T) {
	dt := schema.DecimalType{Precision: 10, Scale: 2}
	for _, tc := range []struct {
		in   string
		want string // unscaled, "" for refused
	}{
		{"1,000", "100000"},
		{",5", "500"},
		{"٤٥.٦", "4560"},
		{", 5", ""},
		{"5 ", ""},
		{" 5", ""},
		{"1 000", ""},
		{"5\u00a0", ""},
	} {
		d, ok := xmlDecimal(tc.in, dt)
		got := ""
		if ok {
			got = d.Unscaled.String()
		}
		if got != tc.want {
			t.Errorf("xmlDecimal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package predicate

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

var testCols = []Column{
	{"id", schema.Long},
	{"name", schema.String},
	{"day", schema.DateType},
	{"ts", schema.Timestamp},
	{"amount", schema.DecimalType{Precision: 10, Scale: 2}},
	{"score", schema.Double},
	{"ok", schema.Boolean},
	{"Country", schema.String},
	{"tags", &schema.ArrayType{Element: schema.String}},
	{"a b", schema.Integer},
}

func date(s string) schema.Date {
	t, _ := time.Parse("2006-01-02", s)
	return schema.Date(t.Unix() / 86400)
}

func ts(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t
}

// row is a test row keyed by lower-case column name.
type row map[string]any

func (r row) get(i int) any { return r[strings.ToLower(testCols[i].Name)] }

func TestEval(t *testing.T) {
	base := row{"id": int64(5), "name": "Ann", "day": date("2024-01-15"), "ts": ts("2024-01-15 10:30:00"),
		"amount": schema.Decimal{Unscaled: big.NewInt(1050), Scale: 2}, "score": 2.5, "ok": true, "country": "DE", "a b": int32(7)}
	cases := []struct {
		pred string
		r    row
		want Truth
	}{
		{"id = 5", base, True},
		{"id == 5", base, True},
		{"id <> 5", base, False},
		{"id != 4", base, True},
		{"id < 6 AND id > 4", base, True},
		{"id <= 5 and id >= 5", base, True},
		{"5 = id", base, True},
		{"6 > id", base, True},
		{"id = '5'", base, True},
		{"id > 4.5", base, True},
		{"id < 5.0001", base, True},
		{"id = 5L", base, True},
		{"id = -5", row{"id": int64(-5)}, True},
		{"name = 'Ann'", base, True},
		{`name = "Ann"`, base, True},
		{"name > 'Al'", base, True},
		{"name = 'ann'", base, False},
		{"NAME = 'Ann'", base, True},
		{"country = 'DE'", base, True},
		{"`a b` = 7", base, True},
		{"day = '2024-01-15'", base, True},
		{"day >= DATE '2024-01-01' AND day < DATE '2024-02-01'", base, True},
		{"day BETWEEN '2024-01-01' AND '2024-01-31'", base, True},
		{"day NOT BETWEEN '2024-01-01' AND '2024-01-31'", base, False},
		{"day > TIMESTAMP '2024-01-15 00:00:00'", base, False},
		{"day = TIMESTAMP '2024-01-15 00:00:00'", base, True},
		{"ts >= '2024-01-15'", base, True},
		{"ts < '2024-01-15 10:30:00.000001'", base, True},
		{"ts = TIMESTAMP '2024-01-15T10:30:00Z'", base, True},
		{"ts = '2024-01-15 11:30:00+01:00'", base, True},
		{"ts > DATE '2024-01-16'", base, False},
		{"amount = 10.5", base, True},
		{"amount = '10.50'", base, True},
		{"amount > 10.49", base, True},
		{"score = 2.5", base, True},
		{"score = 2.5D", base, True},
		{"score > 2", base, True},
		{"score < 1e1", base, True},
		{"score = 'NaN'", row{"score": math.NaN()}, True},
		{"score > 1e300", row{"score": math.NaN()}, True},
		{"ok", base, True},
		{"NOT ok", base, False},
		{"ok = true", base, True},
		{"ok = 'true'", base, True},
		{"id IN (1, 2, 5)", base, True},
		{"id IN (1, 2)", base, False},
		{"id NOT IN (1, 2)", base, True},
		{"id IN (1, NULL)", base, Null},
		{"id NOT IN (1, NULL)", base, Null},
		{"id IN (5, NULL)", base, True},
		// NULL semantics.
		{"id = 5", row{}, Null},
		{"id <> 5", row{}, Null},
		{"NOT (id = 5)", row{}, Null},
		{"id = 5 OR name = 'Ann'", row{"name": "Ann"}, True},
		{"id = 5 AND name = 'Bob'", row{"name": "Ann"}, False},
		{"id = 5 AND name = 'Ann'", row{"name": "Ann"}, Null},
		{"id IS NULL", row{}, True},
		{"id IS NOT NULL", row{}, False},
		{"id IS NULL", base, False},
		{"id <=> NULL", row{}, True},
		{"id <=> 5", row{}, False},
		{"id <=> 5", base, True},
		{"id = NULL", base, Null},
		{"NULL", base, Null},
		{"TRUE", base, True},
		{"NOT FALSE", base, True},
		{"(id = 1 OR id = 5) AND NOT (name = 'Bob')", base, True},
		{"id = 1 OR id = 5 AND name = 'Bob'", base, False}, // AND binds tighter
		{"NOT id = 5", base, False},
		{"! (id = 5)", base, False},
		// A row value that does not cast compares as NULL.
		{"name = 5", base, Null},
		{"name = 5", row{"name": "5"}, True},
		{"'x\\'y' = name", row{"name": "x'y"}, True},
	}
	for _, c := range cases {
		t.Run(c.pred, func(t *testing.T) {
			e, err := Parse(c.pred)
			if err != nil {
				t.Fatal(err)
			}
			b, err := e.Bind(testCols)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.Eval(c.r.get); got != c.want {
				t.Fatalf("Eval = %v, want %v", got, c.want)
			}
			// The canonical SQL means the same.
			e2, err := Parse(e.SQL())
			if err != nil {
				t.Fatalf("re-parsing %s: %v", e.SQL(), err)
			}
			b2, err := e2.Bind(testCols)
			if err != nil {
				t.Fatalf("binding %s: %v", e.SQL(), err)
			}
			if got := b2.Eval(c.r.get); got != c.want {
				t.Fatalf("canonical %s: Eval = %v, want %v", e.SQL(), got, c.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		pred string
		want error
		msg  string
	}{
		{"", ErrSyntax, "empty"},
		{"   ", ErrSyntax, "empty"},
		{"id =", ErrSyntax, "end of predicate"},
		{"id = 1 AND", ErrSyntax, "end of predicate"},
		{"(id = 1", ErrSyntax, "want )"},
		{"id = 1)", ErrSyntax, `unexpected ")"`},
		{"id IN 1", ErrSyntax, "want ( after IN"},
		{"id IN (1 2)", ErrSyntax, "want , or )"},
		{"id BETWEEN 1 OR 2", ErrSyntax, "want AND in BETWEEN"},
		{"id IS 5", ErrSyntax, "want NULL after IS"},
		{"id NOT 5", ErrSyntax, "want IN or BETWEEN"},
		{"name = 'abc", ErrSyntax, "unterminated string"},
		{"`abc = 1", ErrSyntax, "unterminated"},
		{"a < b < c", ErrSyntax, "chained"},
		{"id = 1 ; DROP", ErrSyntax, `unexpected ";"`},
		{"id = 12abc", ErrSyntax, "bad number"},
		{"id = 1.2.3", ErrSyntax, "bad number"},
		{"DATE 'x' = day", ErrSyntax, "not a date"},
		{"id + 1 = 2", ErrUnsupported, "arithmetic"},
		{"upper(name) = 'A'", ErrUnsupported, "function upper()"},
		{"name LIKE 'a%'", ErrUnsupported, "LIKE"},
		{"t.id = 1", ErrUnsupported, "nested"},
		{"id = -name", ErrUnsupported, "unary -"},
		{"id = 1 -- c", ErrUnsupported, "comments"},
		{strings.Repeat("(", 500) + "id = 1" + strings.Repeat(")", 500), ErrSyntax, "nested too deeply"},
		{strings.Repeat("NOT ", 500) + "ok", ErrSyntax, "nested too deeply"},
	}
	for _, c := range cases {
		t.Run(c.pred, func(t *testing.T) {
			_, err := Parse(c.pred)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("Parse(%q) = %v, want %v containing %q", c.pred, err, c.want, c.msg)
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	cases := []struct {
		pred string
		want error
		msg  string
	}{
		{"nope = 1", ErrColumn, "column nope is not in the table (columns: id, name, day"},
		{"tags = 'a'", ErrColumn, "type array<string>"},
		{"day = 'soon'", ErrType, "not a date"},
		{"id = 'x'", ErrType, "not a number"},
		{"ts > 'yesterday'", ErrType, "not a timestamp"},
		{"id = DATE '2024-01-01'", ErrType, "cannot compare"},
		{"ok = 5", ErrType, "cannot compare"},
		{"id", ErrType, "not a boolean condition"},
		{"id AND ok", ErrType, "not a boolean condition"},
		{"NOT name", ErrType, "not a boolean condition"},
		{"'maybe' OR ok", ErrType, "not a boolean condition"},
	}
	for _, c := range cases {
		t.Run(c.pred, func(t *testing.T) {
			e, err := Parse(c.pred)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Bind(testCols)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("Bind(%q) = %v, want %v containing %q", c.pred, err, c.want, c.msg)
			}
		})
	}
}

func TestColumns(t *testing.T) {
	e, err := Parse("id = 1 AND (ID > 0 OR `a b` IS NULL) AND day IN ('2024-01-01')")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.Columns(), ","); got != "id,a b,day" {
		t.Fatalf("Columns = %s", got)
	}
	b, err := e.Bind(testCols)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Columns(); len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 9 {
		t.Fatalf("bound Columns = %v", got)
	}
}

// TestPossible checks the file-level answer against the predicate's
// results on rows inside each range.
func TestPossible(t *testing.T) {
	stats := func(min, max any, nulls, n int64) Range {
		return Range{Min: min, Max: max, NullCount: nulls, NumRecords: n}
	}
	cases := []struct {
		pred string
		rg   map[string]Range
		want Set
	}{
		{"id = 5", map[string]Range{"id": stats(int64(1), int64(4), 0, 10)}, Of(False)},
		{"id = 5", map[string]Range{"id": stats(int64(5), int64(5), 0, 10)}, Of(True)},
		{"id = 5", map[string]Range{"id": stats(int64(5), int64(5), 2, 10)}, Of(True) | Of(Null)},
		{"id = 5", map[string]Range{"id": stats(int64(1), int64(9), 0, 10)}, Of(True) | Of(False)},
		{"id > 5", map[string]Range{"id": stats(int64(6), int64(9), 0, 10)}, Of(True)},
		{"id > 5", map[string]Range{"id": stats(int64(1), int64(5), 0, 10)}, Of(False)},
		{"5 < id", map[string]Range{"id": stats(int64(6), int64(9), 0, 10)}, Of(True)},
		{"id >= 5 AND id < 10", map[string]Range{"id": stats(int64(5), int64(9), 0, 10)}, Of(True)},
		{"id BETWEEN 1 AND 3", map[string]Range{"id": stats(int64(5), int64(9), 0, 10)}, Of(False)},
		{"id IN (1, 7)", map[string]Range{"id": stats(int64(2), int64(6), 0, 10)}, Of(False)},
		{"id <> 5", map[string]Range{"id": stats(int64(5), int64(5), 0, 10)}, Of(False)},
		{"id IS NULL", map[string]Range{"id": stats(int64(5), int64(5), 0, 10)}, Of(False)},
		{"id IS NULL", map[string]Range{"id": stats(nil, nil, 10, 10)}, Of(True)},
		{"id = 5", map[string]Range{"id": stats(nil, nil, 10, 10)}, Of(Null)},
		{"id <=> 5", map[string]Range{"id": stats(nil, nil, 10, 10)}, Of(False)},
		{"id = 5", map[string]Range{"id": Unknown}, Any},
		{"day = '2024-01-15'", map[string]Range{"day": {Exact: true, Value: date("2024-01-15")}}, Of(True)},
		{"day = '2024-01-15'", map[string]Range{"day": {Exact: true, Value: date("2024-01-16")}}, Of(False)},
		{"day = '2024-01-15'", map[string]Range{"day": {Exact: true}}, Of(Null)},
		{"day IS NULL", map[string]Range{"day": {Exact: true}}, Of(True)},
		{"day = '2024-01-15' AND id > 5", map[string]Range{"day": {Exact: true, Value: date("2024-01-16")}, "id": Unknown}, Of(False)},
		{"day = '2024-01-15' OR id > 5", map[string]Range{"day": {Exact: true, Value: date("2024-01-15")}, "id": Unknown}, Of(True)},
		{"NOT (day = '2024-01-15')", map[string]Range{"day": {Exact: true, Value: date("2024-01-15")}}, Of(False)},
		{"ts >= '2024-01-01' AND ts < '2024-02-01'", map[string]Range{"ts": stats(ts("2024-01-02 00:00:00"), ts("2024-01-30 00:00:00"), 0, 3)}, Of(True)},
		{"amount > 10", map[string]Range{"amount": stats(schema.Decimal{Unscaled: big.NewInt(1001), Scale: 2}, schema.Decimal{Unscaled: big.NewInt(9999), Scale: 2}, 0, 3)}, Of(True)},
		// Strings and floats: statistics are not trusted.
		{"name = 'x'", map[string]Range{"name": stats("a", "b", 0, 3)}, Of(True) | Of(False) | Of(Null)},
		{"score > 5", map[string]Range{"score": stats(1.0, 2.0, 0, 3)}, Of(True) | Of(False) | Of(Null)},
		{"ok", map[string]Range{"ok": {Exact: true, Value: true}}, Of(True)},
		{"ok", map[string]Range{"ok": stats(false, false, 0, 3)}, Of(False)},
		{"name = 'x'", map[string]Range{"name": {Exact: true, Value: "x"}}, Of(True)},
		{"country = 'DE'", map[string]Range{"country": {Exact: true, Value: "FR"}}, Of(False)},
	}
	for _, c := range cases {
		t.Run(c.pred, func(t *testing.T) {
			e, err := Parse(c.pred)
			if err != nil {
				t.Fatal(err)
			}
			b, err := e.Bind(testCols)
			if err != nil {
				t.Fatal(err)
			}
			got := b.Possible(func(i int) Range {
				if r, ok := c.rg[strings.ToLower(testCols[i].Name)]; ok {
					return r
				}
				t.Fatalf("asked for column %s", testCols[i].Name)
				return Unknown
			})
			if got != c.want {
				t.Fatalf("Possible = %03b, want %03b", got, c.want)
			}
		})
	}
}

// TestPossibleSound evaluates predicates on every row of small integer
// ranges and checks that each result is among the possible ones.
func TestPossibleSound(t *testing.T) {
	preds := []string{"id = 3", "id <> 3", "id < 3", "id <= 3", "id > 3", "id >= 3", "id <=> 3", "3 > id",
		"id IN (1, 4)", "id NOT IN (2, 3)", "id BETWEEN 2 AND 4", "NOT (id > 2 AND id < 5)", "id IS NULL OR id > 4",
		"id IS NOT NULL AND id = 1", "id = 3 OR id = NULL"}
	for _, p := range preds {
		e, err := Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.Bind(testCols)
		if err != nil {
			t.Fatal(err)
		}
		for lo := int64(0); lo <= 6; lo++ {
			for hi := lo; hi <= 6; hi++ {
				for _, nulls := range []int64{0, 1} {
					rg := Range{Min: lo, Max: hi, NullCount: nulls, NumRecords: hi - lo + 1 + nulls}
					set := b.Possible(func(int) Range { return rg })
					vals := []any{}
					for v := lo; v <= hi; v++ {
						vals = append(vals, v)
					}
					if nulls > 0 {
						vals = append(vals, nil)
					}
					for _, v := range vals {
						got := b.Eval(func(int) any { return v })
						if !set.Has(got) {
							t.Fatalf("%s on [%d,%d] nulls=%d: row %v gives %v, not in %03b", p, lo, hi, nulls, v, got, set)
						}
					}
				}
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"id = 5", "day BETWEEN '2024-01-01' AND '2024-01-31'", "a IN (1, 2, NULL) OR NOT b IS NULL",
		"`x``y` <=> -1.5e3", "ts > TIMESTAMP '2024-01-01 00:00:00'", "NOT (id <> 1 AND name = \"a\\\"b\")", "ok", "id = 10L AND s = 'x'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Parse(%q): error %v is neither ErrSyntax nor ErrUnsupported", s, err)
			}
			return
		}
		// The canonical form parses to itself.
		canon := e.SQL()
		e2, err := Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q) = %s, which does not parse: %v", s, canon, err)
		}
		if e2.SQL() != canon {
			t.Fatalf("Parse(%q): canonical %s re-parses as %s", s, canon, e2.SQL())
		}
		// Binding to arbitrary columns never panics; a bound predicate
		// evaluates on an all-NULL row and on unknown metadata.
		cols := testCols
		for _, c := range e.Columns() {
			cols = append(cols, Column{Name: c, Type: schema.String})
		}
		if b, err := e.Bind(cols); err == nil {
			b.Eval(func(int) any { return nil })
			b.Possible(func(int) Range { return Unknown })
		}
	})
}

package hivepart

import (
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-28": "2026-11-28",
		"São Paulo":  "São Paulo",
		"a/b":        "a%2Fb",
		"x=y":        "x%3Dy",
		"50%":        "50%25",
		"t:1":        "t%3A1",
	} {
		if got := Escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		typ       schema.Type
		in, want  string
		wantError bool
	}{
		{schema.String, " a b ", " a b ", false},
		{schema.Integer, "42", "42", false},
		{schema.Integer, "4000000000", "", true},
		{schema.Long, "4000000000", "4000000000", false},
		{schema.Byte, "x", "", true},
		{schema.Boolean, "TRUE", "true", false},
		{schema.Boolean, "yes", "", true},
		{schema.Double, "1.5", "1.5", false},
		{schema.Float, "nope", "", true},
		{schema.DateType, "2026-1-2", "2026-01-02", false},
		{schema.DateType, "2026-13-01", "", true},
		{schema.Timestamp, "2026-01-02 03:04:05+01:00", "2026-01-02T02:04:05.000000Z", false},
		{schema.TimestampNTZ, "2026-01-02T03:04:05.5", "2026-01-02 03:04:05.500000", false},
		{schema.TimestampNTZ, "2026-01-02T03:04:05Z", "", true},
		{schema.DecimalType{Precision: 5, Scale: 2}, "-1.5", "-1.50", false},
		{schema.DecimalType{Precision: 5, Scale: 2}, "0.05", "0.05", false},
		{schema.DecimalType{Precision: 3, Scale: 2}, "12.5", "", true},
		{schema.Binary, "x", "", true},
	}
	for _, tc := range tests {
		got, err := Value(tc.typ, tc.in)
		if (err != nil) != tc.wantError || got != tc.want {
			t.Errorf("Value(%s, %q) = %q, %v; want %q (error %v)", tc.typ, tc.in, got, err, tc.want, tc.wantError)
		}
	}
}

// FuzzValue: Value never panics, and a value it accepts is in normal form
// (parsing it again gives it back).
func FuzzValue(f *testing.F) {
	types := []schema.Type{schema.String, schema.Integer, schema.Long, schema.Double, schema.Boolean,
		schema.DateType, schema.Timestamp, schema.TimestampNTZ, schema.DecimalType{Precision: 5, Scale: 2}}
	for _, s := range []string{"42", "1.5", "TRUE", "2026-1-2", "2026-01-02 03:04:05+01:00", "-1.5", ""} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, ti uint8, v string) {
		typ := types[int(ti)%len(types)]
		out, err := Value(typ, v)
		if err != nil {
			return
		}
		if again, err := Value(typ, out); err != nil || again != out {
			t.Fatalf("Value(%s, %q) = %q, but Value(%s, %q) = %q, %v", schema.DDLType(typ), v, out, schema.DDLType(typ), out, again, err)
		}
	})
}

package optspec

import (
	"strings"
	"testing"
)

type target struct {
	b bool
	n int
	z int64
	s string
}

func TestBuilders(t *testing.T) {
	specs := map[string]Spec[*target]{
		"bool":     Bool("b", func(t *target) *bool { return &t.b }),
		"posint":   PosInt("n", func(t *target) *int { return &t.n }),
		"bytes":    Bytes("z", func(t *target) *int64 { return &t.z }, true),
		"bytesReq": Bytes("z", func(t *target) *int64 { return &t.z }, false),
		"string":   String("s", func(t *target) *string { return &t.s }),
	}
	tests := []struct {
		spec, in string
		wantGet  string
		wantShow bool
		wantErr  bool
	}{
		{"bool", "TRUE", "true", true, false},
		{"bool", "no", "", false, true},
		{"posint", "7", "7", true, false},
		{"posint", "0", "", false, true},
		{"bytes", "10k", "10k", true, false},
		{"bytes", "0", "", false, true},
		{"bytesReq", "1g", "1g", true, false},
		{"string", "  a b ", "a b", true, false},
		{"string", "  ", "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.spec+"="+tc.in, func(t *testing.T) {
			o := specs[tc.spec]
			var x target
			err := o.Set(&x, tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Set(%q) accepted", tc.in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, show := o.Get(&x)
			if got != tc.wantGet || show != tc.wantShow {
				t.Errorf("Get = %q, %v; want %q, %v", got, show, tc.wantGet, tc.wantShow)
			}
		})
	}
	// An optional byte size is hidden while unset; a required one is shown.
	var x target
	if _, show := specs["bytes"].Get(&x); show {
		t.Error("optional bytes option shown while 0")
	}
	if _, show := specs["bytesReq"].Get(&x); !show {
		t.Error("required bytes option hidden while 0")
	}
	if err := specs["bytes"].Set(&x, "0"); err == nil || !strings.Contains(err.Error(), "greater than 0") {
		t.Errorf("bytes 0: %v", err)
	}
}

func TestDocumentedAndRefused(t *testing.T) {
	o := Bool("b", func(t *target) *bool { return &t.b }).Documented("false", "meaning")
	if o.Default != "false" || o.Doc != "meaning" || o.Refused {
		t.Errorf("Documented: %+v", o)
	}
	r := Refused[*target]("r", "why")
	if !r.Refused || r.Doc != "why" || r.Set != nil || r.Get != nil {
		t.Errorf("Refused: %+v", r)
	}
}

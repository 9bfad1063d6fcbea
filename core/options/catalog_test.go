package options

import (
	"errors"
	"testing"
)

// TestCatalogDocumentsEveryOption: every option has a meaning, and a
// refused one says "not supported yet" when parsed, whatever its value.
func TestCatalogDocumentsEveryOption(t *testing.T) {
	for _, d := range Catalog() {
		if d.Doc == "" {
			t.Errorf("option %s has no doc line in the registry", d.Name)
		}
		if d.Status != Refused || d.Scope == "delta source" {
			continue
		}
		raw := map[string]string{d.Name: "x"}
		if d.Scope == "reader" || d.Scope == "cloudFiles" {
			f := FormatJSON
			if len(d.Formats) > 0 {
				f = d.Formats[0]
			}
			raw["cloudFiles.format"] = string(f)
		}
		_, err := Parse(raw, baseLoc())
		if !errors.Is(err, ErrUnsupportedOption) {
			t.Errorf("refused option %s: Parse = %v, want ErrUnsupportedOption", d.Name, err)
		}
	}
}

package options

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOptionsDoc fails when docs/options.md is not what the registry
// generates; UPDATE_DOCS=1 (or -update) rewrites it.
func TestOptionsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "options.md")
	got := Markdown()
	if *update || os.Getenv("UPDATE_DOCS") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run UPDATE_DOCS=1 go test ./core/options -run TestOptionsDoc)", err)
	}
	if string(want) != got {
		t.Errorf("docs/options.md is out of date: run UPDATE_DOCS=1 go test ./core/options -run TestOptionsDoc")
	}
}

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

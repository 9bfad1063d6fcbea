package options_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/options/optdoc"
)

// TestOptionsDoc fails when docs/options.md is not what the registry
// generates; UPDATE_DOCS=1 (or -update) rewrites it.
func TestOptionsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "options.md")
	got := optdoc.Markdown()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" || os.Getenv("UPDATE_DOCS") != "" {
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

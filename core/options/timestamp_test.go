package options

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestModifiedAndRecursiveOptions(t *testing.T) {
	dir := t.TempDir()
	loc := Locations{StreamID: "s", Source: filepath.Join(dir, "in"), Table: filepath.Join(dir, "t"), CheckpointLocation: filepath.Join(dir, "c"), SchemaLocation: filepath.Join(dir, "c")}
	s, err := Parse(map[string]string{"cloudFiles.format": "json", "MODIFIEDAFTER": "2020-06-01T13:00:00", "modifiedBefore": "2020-06-01 15:00:00+01:00", "recursiveFileLookup": "TRUE"}, loc)
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Reader.ModifiedAfter; a == nil || !a.Equal(time.Date(2020, 6, 1, 13, 0, 0, 0, time.UTC)) {
		t.Errorf("ModifiedAfter = %v", a)
	}
	if b := s.Reader.ModifiedBefore; b == nil || !b.Equal(time.Date(2020, 6, 1, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("ModifiedBefore = %v", b)
	}
	if !s.Reader.RecursiveFileLookup {
		t.Error("RecursiveFileLookup = false")
	}
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"modifiedAfter": "2020-06-01T13:00:00", "modifiedBefore": "2020-06-01T13:00:00"}, "modifiedBefore"},
		{map[string]string{"modifiedAfter": "2020-06-01T25:00:00"}, "modifiedAfter"},
		{map[string]string{"modifiedBefore": "last week"}, "modifiedBefore"},
		{map[string]string{"recursiveFileLookup": "true", "cloudFiles.partitionColumns": "day"}, "recursiveFileLookup"},
		{map[string]string{"recursiveFileLookup": "maybe"}, "recursiveFileLookup"},
	} {
		tc.opts["cloudFiles.format"] = "json"
		_, err := Parse(tc.opts, loc)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != tc.want {
			t.Errorf("Parse(%v) = %v, want an error for option %s", tc.opts, err, tc.want)
		}
	}
	if _, err := Parse(map[string]string{"cloudFiles.format": "json", "recursiveFileLookup": "false", "cloudFiles.partitionColumns": "day"}, loc); err != nil {
		t.Errorf("recursiveFileLookup=false with partition columns: %v", err)
	}
}

// TestLocationsComparedOnRealPaths: a checkpoint or table reached through a
// symbolic link is where the link leads.
func TestLocationsComparedOnRealPaths(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in")
	if err := os.MkdirAll(filepath.Join(src, "ck"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(src, "ck"), filepath.Join(dir, "cklink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(dir, "srclink")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		loc    Locations
		option string
	}{
		{"checkpoint through a link", Locations{Source: src, Table: filepath.Join(dir, "t"), CheckpointLocation: filepath.Join(dir, "cklink", "new")}, "checkpointLocation"},
		{"schema location through a link", Locations{Source: src, Table: filepath.Join(dir, "t"), CheckpointLocation: filepath.Join(dir, "c"), SchemaLocation: filepath.Join(dir, "cklink")}, "cloudFiles.schemaLocation"},
		{"table through a link", Locations{Source: src, Table: filepath.Join(dir, "cklink", "table"), CheckpointLocation: filepath.Join(dir, "c")}, "table"},
		{"source through a link", Locations{Source: filepath.Join(dir, "srclink"), Table: filepath.Join(dir, "t"), CheckpointLocation: filepath.Join(src, "ck2")}, "checkpointLocation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.loc.StreamID = "s"
			if tc.loc.SchemaLocation == "" {
				tc.loc.SchemaLocation = tc.loc.CheckpointLocation
			}
			_, err := Parse(map[string]string{"cloudFiles.format": "json"}, tc.loc)
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != tc.option || !strings.Contains(err.Error(), "symbolic links") {
				t.Fatalf("Parse = %v, want an error for %s naming the symbolic links", err, tc.option)
			}
		})
	}
	// The same locations without links are fine.
	if _, err := Parse(map[string]string{"cloudFiles.format": "json"}, Locations{StreamID: "s", Source: src, Table: filepath.Join(dir, "t"), CheckpointLocation: filepath.Join(dir, "c"), SchemaLocation: filepath.Join(dir, "c")}); err != nil {
		t.Fatal(err)
	}
}

// TestValidateComparesRealPaths: a stream's checkpoint that lies in
// another stream's source through a symbolic link is refused too.
func TestValidateComparesRealPaths(t *testing.T) {
	dir := t.TempDir()
	srcB := filepath.Join(dir, "raw", "b")
	if err := os.MkdirAll(filepath.Join(srcB, "_chk"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(srcB, "_chk"), filepath.Join(dir, "chk_a")); err != nil {
		t.Fatal(err)
	}
	cfg := configJSON(
		streamJSON("a", filepath.Join(dir, "raw", "a"), filepath.Join(dir, "lake", "a"), filepath.Join(dir, "chk_a", "a"), ""),
		streamJSON("b", srcB, filepath.Join(dir, "lake", "b"), filepath.Join(dir, "chk", "b"), ""),
	)
	_, err := LoadConfig(strings.NewReader(cfg))
	if !errors.Is(err, ErrSharedLocation) || !strings.Contains(err.Error(), "source directory") {
		t.Fatalf("LoadConfig = %v, want stream a's checkpoint refused as inside stream b's source", err)
	}
	// Without the link the same layout is fine.
	cfg = configJSON(
		streamJSON("a", filepath.Join(dir, "raw", "a"), filepath.Join(dir, "lake", "a"), filepath.Join(dir, "chk", "a"), ""),
		streamJSON("b", srcB, filepath.Join(dir, "lake", "b"), filepath.Join(dir, "chk", "b"), ""),
	)
	if _, err := LoadConfig(strings.NewReader(cfg)); err != nil {
		t.Fatal(err)
	}
}

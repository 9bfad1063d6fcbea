package bench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// readAll returns the uncompressed bytes of every file of ds, in name order.
func readAll(t *testing.T, ds Dataset) []byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(ds.Dir, "part-*"))
	if err != nil || len(names) != ds.Files {
		t.Fatalf("%d files in %s (err %v), manifest says %d", len(names), ds.Dir, err, ds.Files)
	}
	var all bytes.Buffer
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = f
		if filepath.Ext(n) == ".gz" {
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			r = zr
		}
		if _, err := io.Copy(&all, r); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		f.Close()
	}
	return all.Bytes()
}

func TestEnsure(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
	}{
		{"plain", Spec{Files: 3, FileBytes: 40 << 10, Seed: 1}},
		{"gzip", Spec{Files: 2, FileBytes: 40 << 10, Seed: 1, Gzip: true}},
		{"other seed", Spec{Files: 1, FileBytes: 10 << 10, Seed: 99}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			ds, err := Ensure(cache, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			data := readAll(t, ds)
			if int64(len(data)) != ds.RawBytes {
				t.Fatalf("files hold %d bytes, manifest says %d", len(data), ds.RawBytes)
			}
			if ds.RawBytes < int64(tc.spec.Files*tc.spec.FileBytes) {
				t.Fatalf("RawBytes %d below %d files × %d", ds.RawBytes, tc.spec.Files, tc.spec.FileBytes)
			}
			if tc.spec.Gzip == (ds.DiskBytes == ds.RawBytes) {
				t.Fatalf("gzip=%v but disk %d vs raw %d bytes", tc.spec.Gzip, ds.DiskBytes, ds.RawBytes)
			}
			// Every line is a JSON object; the schema's nulls, nesting and
			// arrays all occur.
			var rows int64
			seen := map[string]bool{}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("line %d: %v: %s", rows+1, err, sc.Text())
				}
				rows++
				for k, v := range m {
					switch v.(type) {
					case nil:
						seen["null "+k] = true
					case map[string]any:
						seen["object"] = true
					case []any:
						seen["array"] = true
					case bool:
						seen["bool"] = true
					}
				}
			}
			if rows != ds.Rows {
				t.Fatalf("%d lines, manifest says %d rows", rows, ds.Rows)
			}
			for _, want := range []string{"null amount", "null message", "null tags", "object", "array", "bool"} {
				if !seen[want] {
					t.Errorf("no %s value in %d rows", want, rows)
				}
			}
			// A second call reuses the cache; a fresh cache regenerates the same bytes.
			again, err := Ensure(cache, tc.spec)
			if err != nil || again != ds {
				t.Fatalf("cached Ensure = %+v, %v; want %+v", again, err, ds)
			}
			fresh, err := Ensure(t.TempDir(), tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(readAll(t, fresh), data) {
				t.Fatal("same spec generated different bytes")
			}
		})
	}
}

func TestEnsureRejectsEmptySpec(t *testing.T) {
	for _, s := range []Spec{{Files: 0, FileBytes: 10}, {Files: 1, FileBytes: 0}} {
		if _, err := Ensure(t.TempDir(), s); err == nil {
			t.Errorf("Ensure(%+v) succeeded", s)
		}
	}
}

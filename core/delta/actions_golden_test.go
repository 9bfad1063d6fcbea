package delta

import (
	"github.com/tributary-io/tributary/core/delta/action"

	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func goldenActions() []Action {
	ts := int64(1700000000000)
	rv := int64(4)
	blind := true
	off := int32(1)
	tight := true
	st, _ := (&Stats{NumRecords: 2, MinValues: map[string]any{"id": 1, "s": "a<b"}, MaxValues: map[string]any{"id": 9}, NullCount: map[string]any{"id": 0}, TightBounds: &tight}).Encode()
	return []Action{
		{CommitInfo: &CommitInfo{Timestamp: ts, Operation: "STREAMING UPDATE", OperationParameters: map[string]any{"outputMode": "Append", "queryId": "q", "epochId": "5"},
			ReadVersion: &rv, IsolationLevel: "Serializable", IsBlindAppend: &blind, EngineInfo: "tributary", Extra: map[string]any{"clientVersion": "x/1"}}},
		{Protocol: &Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"timestampNtz"}, WriterFeatures: []string{"timestampNtz", "appendOnly"}}},
		{Metadata: &Metadata{ID: "id-1", SchemaString: `{"type":"struct","fields":[]}`, CreatedTime: &ts}},
		{Add: &Add{Path: "p=a%20b/part-0.parquet", PartitionValues: action.PartitionValuesOf(map[string]string{"p": "a b"}), Size: 10, ModificationTime: ts, DataChange: true, Stats: st}},
		{Remove: &Remove{Path: "old.parquet", DeletionTimestamp: ts, DataChange: true, ExtendedFileMetadata: true, Size: 5,
			DeletionVector: &DeletionVector{StorageType: "u", PathOrInlineDv: "ab^-aqEH.-t@S}K{vb[*k^", Offset: &off, SizeInBytes: 34, Cardinality: 2}}},
		{Txn: &Txn{AppID: "stream", Version: 5, LastUpdated: &ts}},
		{CDC: &CDC{Path: "_change_data/c.parquet", Size: 3}},
		{DomainMetadata: &DomainMetadata{Domain: "delta.x", Configuration: "{}"}},
	}
}

func TestEncodeActionsGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeActions(&buf, goldenActions()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "golden", "commit.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(want) {
		t.Fatalf("encoded commit differs from %s:\n%s", golden, buf.String())
	}
	// Decoding gives back the same actions.
	var got []Action
	if err := ReadActions(bytes.NewReader(want), func(a Action) error { got = append(got, a); return nil }); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := EncodeActions(&again, got); err != nil {
		t.Fatal(err)
	}
	if again.String() != string(want) {
		t.Fatalf("decode+encode is not stable:\n%s", again.String())
	}
	if got[0].CommitInfo.Extra["clientVersion"] != "x/1" {
		t.Errorf("commitInfo extra lost: %+v", got[0].CommitInfo)
	}
}

func TestEncodePathObjectKey(t *testing.T) {
	tests := []struct{ key, path string }{
		{"part-0.parquet", "part-0.parquet"},
		{"p=a b/x.parquet", "p=a%20b/x.parquet"},
		{"p=100%/x", "p=100%25/x"},
		{"d=2024-01-01 10:00:00/f", "d=2024-01-01%2010%3A00%3A00/f"},
		{"ü/+#?", "%C3%BC/+%23%3F"},
	}
	for _, tc := range tests {
		if got := EncodePath(tc.key); got != tc.path {
			t.Errorf("EncodePath(%q) = %q, want %q", tc.key, got, tc.path)
		}
		if got, err := ObjectKey(tc.path); err != nil || got != tc.key {
			t.Errorf("ObjectKey(%q) = %q, %v; want %q", tc.path, got, err, tc.key)
		}
	}
	for _, abs := range []string{"s3://bucket/x.parquet", "file:/tmp/x", "/tmp/x"} {
		if _, err := ObjectKey(abs); !errors.Is(err, ErrAbsolutePath) {
			t.Errorf("ObjectKey(%q) err = %v, want ErrAbsolutePath", abs, err)
		}
	}
	if _, err := ObjectKey("bad%zz"); err == nil {
		t.Error("bad escape accepted")
	}
}

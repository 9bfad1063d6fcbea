package delta

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
		{Add: &Add{Path: "p=a%20b/part-0.parquet", PartitionValues: PartitionValuesOf(map[string]string{"p": "a b"}), Size: 10, ModificationTime: ts, DataChange: true, Stats: st}},
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

func TestParseAction(t *testing.T) {
	tests := []struct {
		name, line string
		kind       string
		err        bool
	}{
		{"add", `{"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}`, "add", false},
		{"unknown kind", `{"futureAction":{"x":1}}`, "futureAction", false},
		{"unknown field kept out", `{"txn":{"appId":"a","version":1,"newField":true}}`, "txn", false},
		{"two kinds", `{"add":{"path":"a"},"txn":{"appId":"a","version":1}}`, "", true},
		{"null kind", `{"add":null}`, "", true},
		{"add without path", `{"add":{"size":1}}`, "", true},
		{"txn without appId", `{"txn":{"version":1}}`, "", true},
		{"empty object", `{}`, "", true},
		{"not an object", `[1]`, "", true},
		{"bad json", `{"add":`, "", true},
		{"wrong type", `{"add":{"path":1}}`, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseAction([]byte(tc.line))
			if tc.err {
				if !errors.Is(err, ErrMalformedAction) {
					t.Fatalf("err = %v, want ErrMalformedAction", err)
				}
				return
			}
			if err != nil || a.Kind() != tc.kind {
				t.Fatalf("kind %q err %v, want %q", a.Kind(), err, tc.kind)
			}
		})
	}
}

func TestReadActionsLines(t *testing.T) {
	in := "{\"txn\":{\"appId\":\"a\",\"version\":1}}\n\n  \r\n{\"remove\":{\"path\":\"x\",\"dataChange\":false}}" // no final newline
	var kinds []string
	if err := ReadActions(strings.NewReader(in), func(a Action) error { kinds = append(kinds, a.Kind()); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kinds, []string{"txn", "remove"}) {
		t.Fatalf("kinds %v", kinds)
	}
	err := ReadActions(strings.NewReader("{\"txn\":{\"appId\":\"a\",\"version\":1}}\n{oops\n"), func(Action) error { return nil })
	if !errors.Is(err, ErrMalformedAction) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want malformed line 2", err)
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

func TestStatsRoundTrip(t *testing.T) {
	in := `{"numRecords":3,"minValues":{"a":12345678901234567890,"s":{"x":"q"}},"maxValues":{"a":2},"nullCount":{"a":0},"tightBounds":false}`
	st, err := ParseStats(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := st.Encode()
	if err != nil || out != in {
		t.Fatalf("round trip:\n%s\n%s (%v)", out, in, err)
	}
	if _, err := ParseStats(`{"numRecords":"x"}`); err == nil {
		t.Error("bad stats accepted")
	}
}

func FuzzParseAction(f *testing.F) {
	f.Add([]byte(`{"add":{"path":"a%20b","partitionValues":{"p":null},"size":1,"modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":1}"}}`))
	f.Add([]byte(`{"commitInfo":{"timestamp":1,"operation":"WRITE","x":{"y":[1,2]}}}`))
	f.Add([]byte(`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":[],"writerFeatures":["appendOnly"]}}`))
	f.Add([]byte(`{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{}","partitionColumns":[],"configuration":{},"createdTime":1}}`))
	f.Add([]byte(`{"remove":{"path":"x","deletionVector":{"storageType":"i","pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L","sizeInBytes":40,"cardinality":6}}}`))
	f.Add([]byte(`{"unknown":1}`))
	f.Add([]byte(`{"txn":{"appId":"a","version":-1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		a, err := ParseAction(line)
		if err != nil {
			return
		}
		if a.Unknown != "" {
			return
		}
		var buf bytes.Buffer
		if err := EncodeActions(&buf, []Action{a}); err != nil {
			t.Fatalf("parsed action does not encode: %v", err)
		}
		b, err := ParseAction(bytes.TrimSpace(buf.Bytes()))
		if err != nil {
			t.Fatalf("encoded action does not parse: %v\n%s", err, buf.String())
		}
		if b.Kind() != a.Kind() {
			t.Fatalf("kind %s became %s", a.Kind(), b.Kind())
		}
		var buf2 bytes.Buffer
		if err := EncodeActions(&buf2, []Action{b}); err != nil || buf2.String() != buf.String() {
			t.Fatalf("encoding not stable:\n%s\n%s", buf.String(), buf2.String())
		}
	})
}

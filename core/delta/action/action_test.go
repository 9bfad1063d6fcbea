package action

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

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

package badrecords

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore/memstore"
)

func TestSink(t *testing.T) {
	created := time.Date(2026, 12, 1, 13, 4, 5, 0, time.FixedZone("x", 3600))
	tests := []struct {
		name    string
		records []formats.BadRecord
		files   [][2]string
		want    map[string]string // key -> content
	}{
		{name: "nothing bad", want: map[string]string{}},
		{
			name:    "records and files",
			records: []formats.BadRecord{{Record: `{"a":`, Reason: "malformed"}, {Record: "<x>", Reason: "bad & worse"}},
			files:   [][2]string{{"s3://b/in/gone.json", "deleted since it was discovered"}},
			want: map[string]string{
				"20261201T120405/bad_records/batch-7.json": `{"path":"s3://b/in/a.json","record":"{\"a\":","reason":"malformed"}` + "\n" +
					`{"path":"s3://b/in/a.json","record":"<x>","reason":"bad & worse"}` + "\n",
				"20261201T120405/bad_files/batch-7.json": `{"path":"s3://b/in/gone.json","reason":"deleted since it was discovered"}` + "\n",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			s := New(st, t.TempDir(), created, 7)
			defer s.Discard()
			hook := s.Hook("s3://b/in/a.json")
			for _, r := range tc.records {
				hook(r)
			}
			for _, f := range tc.files {
				s.File(f[0], f[1])
			}
			if err := s.Upload(ctx); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, key := range []string{"20261201T120405/bad_records/batch-7.json", "20261201T120405/bad_files/batch-7.json"} {
				rc, err := st.Get(ctx, key)
				if err != nil {
					continue
				}
				b, _ := io.ReadAll(rc)
				rc.Close()
				got[key] = string(b)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("objects %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%s:\n%s\nwant\n%s", k, got[k], w)
				}
			}
		})
	}
}

func TestNilSinkAndNoStore(t *testing.T) {
	var s *Sink
	if s.Hook("x") != nil {
		t.Error("a nil sink gives a hook")
	}
	s.File("x", "y")
	s.Discard()
	if err := s.Upload(context.Background()); err != nil {
		t.Errorf("nil sink Upload = %v", err)
	}
	n := New(nil, t.TempDir(), time.Now(), 1)
	n.File("x", "y")
	if err := n.Upload(context.Background()); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Errorf("Upload without a store = %v, want an error", err)
	}
}

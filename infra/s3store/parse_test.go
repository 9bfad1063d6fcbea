package s3store_test

import (
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/s3store"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		in                     string
		wantBucket, wantPrefix string
		wantErr                bool
	}{
		{"s3://my-bucket/data/events", "my-bucket", "data/events", false},
		{"s3://my-bucket/data/events/", "my-bucket", "data/events", false},
		{"s3://my-bucket", "my-bucket", "", false},
		{"s3://my-bucket/", "my-bucket", "", false},
		{"s3://b.with.dots/a b/c%20d/é", "b.with.dots", "a b/c%20d/é", false},
		{"s3://my-bucket/a?b#c", "my-bucket", "a?b#c", false},
		{"s3://my-bucket//a", "", "", true},
		{"s3://my-bucket/a/../b", "", "", true},
		{"s3://my-bucket/a//", "", "", true},
		{"s3://", "", "", true},
		{"s3://ab/x", "", "", true},
		{"s3://My-Bucket/x", "", "", true},
		{"s3://-bucket/x", "", "", true},
		{"s3://bucket_x/x", "", "", true},
		{"s3a://bucket/x", "", "", true},
		{"https://bucket.s3.amazonaws.com/x", "", "", true},
		{"bucket/x", "", "", true},
		{"", "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			b, p, err := s3store.ParseURL(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseURL(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.in) {
					t.Fatalf("error %q does not name the input", err)
				}
				return
			}
			if b != tc.wantBucket || p != tc.wantPrefix {
				t.Fatalf("ParseURL(%q) = %q, %q; want %q, %q", tc.in, b, p, tc.wantBucket, tc.wantPrefix)
			}
		})
	}
}

func FuzzParseURL(f *testing.F) {
	for _, seed := range []string{
		"s3://my-bucket/data/events", "s3://my-bucket", "s3://my-bucket/", "s3://b.c/a b/%20/é",
		"s3://my-bucket//a", "s3://", "s3a://x/y", "", "s3://abc/a/./b", "s3://abc/\xff",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		b, p, err := s3store.ParseURL(in)
		if err != nil {
			return
		}
		if len(b) < 3 || len(b) > 63 || strings.ContainsAny(b, "/ ") {
			t.Fatalf("ParseURL(%q) accepted bucket %q", in, b)
		}
		if p != "" {
			if err := objstore.ValidateKey(p); err != nil {
				t.Fatalf("ParseURL(%q) returned invalid prefix %q: %v", in, p, err)
			}
		}
		// Round trip: formatting and parsing again gives the same parts.
		again := "s3://" + b
		if p != "" {
			again += "/" + p
		}
		b2, p2, err := s3store.ParseURL(again)
		if err != nil || b2 != b || p2 != p {
			t.Fatalf("round trip of %q via %q = %q, %q, %v", in, again, b2, p2, err)
		}
	})
}

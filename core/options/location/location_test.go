package location

import "testing"

func TestLocation(t *testing.T) {
	tests := []struct {
		in   string
		want Location
	}{
		{"s3://bucket/a/b/", Location{"s3", "bucket", "a/b"}},
		{"s3a://bucket/a//b", Location{"s3", "bucket", "a/b"}},
		{"S3://bucket", Location{"s3", "bucket", ""}},
		{"file:///tmp/x/", Location{"file", "", "/tmp/x"}},
		{"file:/tmp/x", Location{"file", "", "/tmp/x"}},
		{"/tmp/x/../y", Location{"file", "", "/tmp/y"}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "s3:///x", "gs://b/x", "abfss://c@a/x", "file://relative"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
	contains := []struct {
		a, b string
		want bool
	}{
		{"s3://b/t", "s3://b/t/_checkpoints", true},
		{"s3://b/t", "s3://b/t", true},
		{"s3://b/t", "s3://b/tx", false},
		{"s3://b/", "s3://b/anything", true},
		{"s3://b/t", "s3://c/t/x", false},
		{"/data/t", "/data/t/x", true},
		{"/data/t", "s3://data/t/x", false},
		{"/", "/x", true},
	}
	for _, tt := range contains {
		a, _ := Parse(tt.a)
		b, _ := Parse(tt.b)
		if got := a.Contains(b); got != tt.want {
			t.Errorf("%s.Contains(%s) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

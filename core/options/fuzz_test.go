package options

import (
	"errors"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"testing"
)

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1 day", "14 days", "interval 1 week", "2 hours 30 minutes", "1.5 seconds", "-1 day", "1 year", "", "10s", "106752 days", "0.000000001 seconds"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := sparkvalue.ParseDuration(s)
		if err != nil {
			return
		}
		back, err := sparkvalue.ParseDuration(sparkvalue.FormatDuration(d))
		if err != nil || back != d {
			t.Fatalf("sparkvalue.ParseDuration(%q) = %v; FormatDuration gives %q which parses to %v, %v", s, d, sparkvalue.FormatDuration(d), back, err)
		}
	})
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"1024", "10k", "512m", "10g", "1gb", "1.5g", "", "8388608t", "7P"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := sparkvalue.ParseBytes(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("sparkvalue.ParseBytes(%q) = %d < 0", s, n)
		}
		if back, err := sparkvalue.ParseBytes(sparkvalue.FormatBytes(n)); err != nil || back != n {
			t.Fatalf("sparkvalue.ParseBytes(sparkvalue.FormatBytes(%d)) = %d, %v", n, back, err)
		}
	})
}

// FuzzParse feeds arbitrary options and locations to Parse: it must never
// panic, every error must wrap ErrInvalidOption, and an accepted stream's
// Effective options must parse back to the same effective options.
func FuzzParse(f *testing.F) {
	f.Add("cloudFiles.format", "json", "cloudFiles.maxFileAge", "14 days", "s3://raw/in", "s3://lake/t", "s3://lake/t/_checkpoints/a", "")
	f.Add("cloudFiles.format", "binaryFile", "pathGlobFilter", "*.png", "/data/in", "/data/t", "/data/chk", "")
	f.Add("startingVersion", "latest", "maxBytesPerTrigger", "1g", "s3://lake/bronze", "s3://lake/silver", "s3://chk/s", "delta")
	f.Add("cloudFiles.format", "csv", "cloudFiles.schemaEvolutionMode", "addNewColumnsWithTypeWidening", "s3://a/b", "s3://a/c", "s3://a/d", "")
	f.Add("CLOUDFILES.FORMAT", "XML", "trigger", "processingTime=1 hour", "s3://a/b", "s3://a/b/c", "s3://a/d", "cloudFiles")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, src, table, ckpt, format string) {
		loc := Locations{StreamID: "fuzz", Source: src, Table: table, CheckpointLocation: ckpt, SchemaLocation: "s3://schemas/fuzz", SourceFormat: format}
		s, err := Parse(map[string]string{k1: v1, k2: v2}, loc)
		if err != nil {
			if !errors.Is(err, ErrInvalidOption) {
				t.Fatalf("error %v does not wrap ErrInvalidOption", err)
			}
			return
		}
		eff := s.Effective()
		if !s.CloudFiles.ValidateOptions && s.SourceFormat == SourceCloudFiles {
			return // ignored options are not part of Effective
		}
		again, err := Parse(eff, loc)
		if err != nil {
			t.Fatalf("Effective options %v do not parse: %v", eff, err)
		}
		got := again.Effective()
		if len(got) != len(eff) {
			t.Fatalf("Effective round trip: %v != %v", eff, got)
		}
		for k, v := range eff {
			if got[k] != v {
				t.Fatalf("Effective round trip: %s=%q became %q", k, v, got[k])
			}
		}
	})
}

package gcpace

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Settings
	}{
		{"not a Lambda function", nil, Settings{Percent: DefaultPercent}},
		{"2 GB function", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "2048"}, Settings{Percent: DefaultPercent, Limit: 1536 << 20}},
		{"512 MB function", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512"}, Settings{Percent: DefaultPercent, Limit: 384 << 20}},
		{"GOGC set by the operator", map[string]string{"GOGC": "100", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024"}, Settings{Percent: -1, Limit: 768 << 20}},
		{"GOMEMLIMIT set by the operator", map[string]string{"GOMEMLIMIT": "900MiB", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024"}, Settings{Percent: DefaultPercent}},
		{"both set", map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "2048"}, Settings{Percent: -1}},
		{"unreadable memory size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "2 GB"}, Settings{Percent: DefaultPercent}},
		{"zero memory size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "0"}, Settings{Percent: DefaultPercent}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Choose(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Fatalf("Choose = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestApply(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	env := map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024"}
	s := Apply(func(k string) string { return env[k] })
	if got := debug.SetGCPercent(-1); got != DefaultPercent {
		t.Errorf("GC percent after Apply = %d, want %d", got, DefaultPercent)
	}
	debug.SetGCPercent(DefaultPercent)
	if got := debug.SetMemoryLimit(-1); got != s.Limit || got != 768<<20 {
		t.Errorf("memory limit after Apply = %d, want %d (Settings %+v)", got, 768<<20, s)
	}
	// The operator's GOGC is kept.
	debug.SetGCPercent(123)
	Apply(func(k string) string { return map[string]string{"GOGC": "123"}[k] })
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("GC percent with GOGC=123 set = %d, want it kept", got)
	}
}

func FuzzChoose(f *testing.F) {
	for _, s := range []string{"2048", "0", "-1", "", " 512 ", "9223372036854775807", "1e3", "2 GB"} {
		f.Add(s, "", "")
	}
	f.Add("1024", "100", "")
	f.Add("1024", "", "1GiB")
	f.Fuzz(func(t *testing.T, mem, gogc, limit string) {
		env := map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": mem, "GOGC": gogc, "GOMEMLIMIT": limit}
		s := Choose(func(k string) string { return env[k] })
		if s.Percent != DefaultPercent && s.Percent != -1 {
			t.Fatalf("Percent %d", s.Percent)
		}
		if s.Limit < 0 {
			t.Fatalf("negative limit %d for memory %q", s.Limit, mem)
		}
		if s.Limit > 0 && strings.TrimSpace(limit) != "" {
			t.Fatalf("limit %d chosen although GOMEMLIMIT=%q", s.Limit, limit)
		}
	})
}

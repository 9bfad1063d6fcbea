package state_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/state"
)

func TestSkipReason(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "gzip: invalid header", "gzip: invalid header"},
		{"empty", "", "unknown"},
		{"invalid", "a\xffb", "a\uFFFDb"},
		{"limit", strings.Repeat("y", state.MaxSkipReasonBytes), strings.Repeat("y", state.MaxSkipReasonBytes)},
		{"over", strings.Repeat("y", state.MaxSkipReasonBytes+1), strings.Repeat("y", state.MaxSkipReasonBytes)},
		{"twoByteRuneAtLimit", strings.Repeat("y", state.MaxSkipReasonBytes-1) + "ü", strings.Repeat("y", state.MaxSkipReasonBytes-1)},
		{"fourByteRuneFits", strings.Repeat("y", state.MaxSkipReasonBytes-4) + "🙂z", strings.Repeat("y", state.MaxSkipReasonBytes-4) + "🙂"},
		// The replacement character is longer than the byte it replaces.
		{"invalidNearLimit", strings.Repeat("y", state.MaxSkipReasonBytes-2) + "\xff", strings.Repeat("y", state.MaxSkipReasonBytes-2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := state.SkipReason(tc.in); got != tc.want {
				t.Errorf("SkipReason(%.30q...) = %.30q... (%d bytes), want %.30q... (%d bytes)", tc.in, got, len(got), tc.want, len(tc.want))
			}
		})
	}
}

func FuzzSkipReason(f *testing.F) {
	for _, s := range []string{"", "x", "a\xffb", strings.Repeat("日", 400), strings.Repeat("z", 1200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := state.SkipReason(in)
		if got == "" || len(got) > state.MaxSkipReasonBytes || !utf8.ValidString(got) {
			t.Fatalf("SkipReason(%q) = %q: empty, too long or invalid UTF-8", in, got)
		}
		if in != "" && utf8.ValidString(in) && !strings.HasPrefix(in, got) {
			t.Fatalf("SkipReason(%q) = %q is not a prefix of the valid input", in, got)
		}
		if again := state.SkipReason(got); again != got {
			t.Fatalf("SkipReason not idempotent: %q then %q", got, again)
		}
	})
}

package options_test

import (
	"slices"
	"strings"
	"testing"
)

// costCases are the behavioural cases of the cost area's options.
func costCases() []optionCase {
	return []optionCase{
		{name: "useIncrementalListing=true lists only keys after the previous listing's last key", options: []string{"cloudFiles.useIncrementalListing"}, run: func(t *testing.T) {
			// Keys "2024-01-02" then "2024-01-01" (late, under an earlier
			// key) then "2024-01-03": an incremental listing finds the
			// first and the third only, as Auto Loader documents; a full
			// listing (false, and auto, which never guesses) finds all.
			for _, tc := range []struct {
				mode string
				want []string
			}{
				{"true", []string{"2024-01-02", "2024-01-03"}},
				{"TRUE", []string{"2024-01-02", "2024-01-03"}},
				{"false", []string{"2024-01-01", "2024-01-02", "2024-01-03"}},
				{"auto", []string{"2024-01-01", "2024-01-02", "2024-01-03"}},
			} {
				p := newPipe(t)
				opts := map[string]string{"cloudFiles.useIncrementalListing": tc.mode}
				p.write("day=2024-01-02/a.json", `{"d":"2024-01-02"}`+"\n")
				p.mustRun(opts)
				p.write("day=2024-01-01/late.json", `{"d":"2024-01-01"}`+"\n")
				p.write("day=2024-01-03/b.json", `{"d":"2024-01-03"}`+"\n")
				p.mustRun(opts)
				got := p.column("d")
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Errorf("useIncrementalListing=%s: rows %v, want %v", tc.mode, got, tc.want)
				}
			}
			if _, err := newPipe(t).load(map[string]string{"cloudFiles.useIncrementalListing": "sometimes"}); err == nil || !strings.Contains(err.Error(), "cloudFiles.useIncrementalListing") {
				t.Errorf("useIncrementalListing=sometimes: %v, want an error naming the option", err)
			}
		}},
	}
}

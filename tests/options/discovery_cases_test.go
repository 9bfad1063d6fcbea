package options_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/infra/streams"
)

// discoveryCases are the behavioural cases of the discovery area (owner: helper listing).
func discoveryCases() []optionCase {
	// at is the bound the modification-time cases use.
	at := time.Date(2020, 6, 1, 13, 0, 0, 0, time.UTC)
	// timed writes one file per modification time around at.
	timed := func(t *testing.T) *pipe {
		p := newPipe(t)
		for name, mod := range map[string]time.Time{
			"early": at.Add(-time.Hour),
			"exact": at, // excluded by both bounds: Spark compares strictly
			"1ms":   at.Add(time.Millisecond),
			"late":  at.Add(24 * time.Hour),
		} {
			path := p.write(name+".json", `{"f":"`+name+`"}`+"\n")
			if err := os.Chtimes(path, mod, mod); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	registered := func(p *pipe) []string {
		var out []string
		for _, e := range p.entries() {
			out = append(out, e.Path)
		}
		return out
	}
	return []optionCase{
		{name: "modifiedAfter discovers only files modified strictly after it (UTC unless zoned)", options: []string{"modifiedAfter"}, run: func(t *testing.T) {
			for _, v := range []string{"2020-06-01T13:00:00", "2020-06-01 15:00:00+02:00", "2020-06-01T13:00:00Z"} {
				p := timed(t)
				p.mustRun(map[string]string{"modifiedAfter": v})
				if got := p.column("f"); !slices.Equal(got, []string{"1ms", "late"}) {
					t.Errorf("modifiedAfter=%s: rows %v, want [1ms late]", v, got)
				}
				if got := registered(p); !slices.Equal(got, []string{"1ms.json", "late.json"}) {
					t.Errorf("modifiedAfter=%s: registered %v: a filtered file must not be registered", v, got)
				}
			}
			p := timed(t)
			p.mustRun(nil)
			if got := p.column("f"); len(got) != 4 {
				t.Errorf("without modifiedAfter: rows %v, want all 4", got)
			}
			if _, err := newPipe(t).load(map[string]string{"modifiedAfter": "June 1st"}); err == nil || !strings.Contains(err.Error(), "modifiedAfter") {
				t.Errorf("unparsable modifiedAfter: %v, want an error naming the option", err)
			}
		}},
		{name: "modifiedBefore discovers only files modified strictly before it", options: []string{"modifiedBefore"}, run: func(t *testing.T) {
			p := timed(t)
			p.mustRun(map[string]string{"modifiedBefore": "2020-06-01T13:00:00"})
			if got := p.column("f"); !slices.Equal(got, []string{"early"}) {
				t.Errorf("rows %v, want [early]", got)
			}
			// A window with modifiedAfter; a file arriving later inside it
			// is found by the next run.
			p = timed(t)
			opts := map[string]string{"modifiedAfter": "2020-06-01T12:00:00", "modifiedBefore": "2020-06-02T12:00:00"}
			p.mustRun(opts)
			if got := p.column("f"); !slices.Equal(got, []string{"1ms", "exact"}) {
				t.Errorf("window: rows %v, want [1ms exact]", got)
			}
			path := p.write("later-copy.json", `{"f":"later copy"}`+"\n")
			mod := at.Add(time.Hour)
			os.Chtimes(path, mod, mod)
			p.mustRun(opts)
			if got := p.column("f"); !slices.Equal(got, []string{"1ms", "exact", "later copy"}) {
				t.Errorf("window, second run: rows %v", got)
			}
			if _, err := newPipe(t).load(map[string]string{"modifiedAfter": "2020-06-02", "modifiedBefore": "2020-06-01"}); err == nil || !strings.Contains(err.Error(), "modifiedBefore") {
				t.Errorf("empty window: %v, want an error naming modifiedBefore", err)
			}
		}},
		{name: "recursiveFileLookup=true skips partition inference (refuses partitionColumns); subdirectories are listed either way", options: []string{"recursiveFileLookup"}, run: func(t *testing.T) {
			write := func(p *pipe) {
				p.write("day=1/a.json", `{"f":"a"}`+"\n")
				p.write("day=2/not/a/partition/b.json", `{"f":"b"}`+"\n")
			}
			for _, v := range []string{"true", "false"} {
				p := newPipe(t)
				write(p)
				p.mustRun(map[string]string{"recursiveFileLookup": v})
				if got := p.column("f"); !slices.Equal(got, []string{"a", "b"}) {
					t.Errorf("recursiveFileLookup=%s: rows %v, want [a b] (Auto Loader always lists subdirectories)", v, got)
				}
				if slices.ContainsFunc(p.schema(), func(c string) bool { return strings.HasPrefix(c, "day ") }) {
					t.Errorf("recursiveFileLookup=%s: schema %v has a partition column nobody asked for", v, p.schema())
				}
			}
			p := newPipe(t)
			write(p)
			p.mustRun(map[string]string{"recursiveFileLookup": "false", "cloudFiles.partitionColumns": "day"})
			if got := p.column("day"); !slices.Equal(got, []string{"1", "2"}) {
				t.Errorf("partitionColumns=day: day column %v, want [1 2]", got)
			}
			_, err := newPipe(t).run(map[string]string{"recursiveFileLookup": "true", "cloudFiles.partitionColumns": "day"})
			if err == nil || !strings.Contains(err.Error(), "recursiveFileLookup") || !strings.Contains(err.Error(), "partition") {
				t.Errorf("recursiveFileLookup=true with partitionColumns: %v, want a load error naming both", err)
			}
		}},
		{name: "pathGlobFilter: brace alternatives select names; an unreadable entry outside the glob is not recorded; a bad glob is refused at load", options: []string{"pathGlobFilter"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"a":"json"}`+"\n")
			p.write("b.txt", `{"a":"txt"}`+"\n")
			p.write("c.csv", `{"a":"csv"}`+"\n")
			for _, name := range []string{"d.log", "e.json"} { // dangling links: unreadable entries
				if err := os.Symlink(filepath.Join(p.root, "nowhere"), filepath.Join(p.src, name)); err != nil {
					t.Fatal(err)
				}
			}
			p.mustRun(map[string]string{"pathGlobFilter": "*.{json,txt}"})
			if got := p.column("a"); !slices.Equal(got, []string{"json", "txt"}) {
				t.Errorf("pathGlobFilter=*.{json,txt}: rows %v, want a.json's and b.txt's", got)
			}
			var paths []string
			for _, e := range p.entries() {
				paths = append(paths, e.Path)
			}
			if !slices.Equal(paths, []string{"a.json", "b.txt", "e.json"}) {
				t.Errorf("pathGlobFilter=*.{json,txt}: recorded %v, want a.json, b.txt and the unreadable e.json (not d.log)", paths)
			}
			// The CLI's load check (streams.Env.Validate); "*.{json" is an
			// unclosed group to Hadoop's GlobPattern.
			for _, bad := range []string{"a[", "*.{json"} {
				s, err := newPipe(t).load(map[string]string{"pathGlobFilter": bad})
				if err == nil {
					err = streams.Env{}.Validate(s)
				}
				if err == nil || !strings.Contains(err.Error(), "pathGlobFilter") {
					t.Errorf("pathGlobFilter=%s: %v, want a load error naming the option", bad, err)
				}
			}
		}},
	}
}

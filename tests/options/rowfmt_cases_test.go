package options_test

import (
	"slices"
	"testing"
)

// rowfmtCases are the behavioural cases of the rowfmt area's options (text,
// binaryFile, avro and xml readers).
func rowfmtCases() []optionCase {
	return []optionCase{
		{name: "wholeText makes each text file one row", options: []string{"wholeText"}, run: func(t *testing.T) {
			const data = "a\nb\r\nc"
			on := rowfmtPipe(t, "text", map[string]string{"f.txt": data}, map[string]string{"wholeText": "true"})
			if got := on.column("value"); !slices.Equal(got, []string{data}) {
				t.Errorf("wholeText=true: value %q, want the whole file", got)
			}
			off := rowfmtPipe(t, "text", map[string]string{"f.txt": data}, nil)
			if got := off.column("value"); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("default: value %q, want one row per line", got)
			}
		}},
	}
}

// rowfmtPipe ingests files (name -> content) with cloudFiles.format=format
// and opts, and returns the pipe.
func rowfmtPipe(t *testing.T, format string, files map[string]string, opts map[string]string) *pipe {
	t.Helper()
	p := newPipe(t)
	for name, content := range files {
		p.writeBytes(name, []byte(content))
	}
	all := map[string]string{"cloudFiles.format": format}
	for k, v := range opts {
		all[k] = v
	}
	p.mustRun(all)
	return p
}

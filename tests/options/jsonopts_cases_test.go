package options_test

import (
	"slices"
	"testing"
)

// jsonoptsCases are the behavioural cases of the jsonopts area's options:
// the JSON parser and datetime options, and typed, null and escaped
// partition values.
func jsonoptsCases() []optionCase {
	return []optionCase{
		{name: "schemaHints types a partition column; empty and __HIVE_DEFAULT_PARTITION__ values are null", options: []string{"cloudFiles.schemaHints", "cloudFiles.partitionColumns"}, run: func(t *testing.T) {
			write := func(p *pipe) {
				p.write("day=2026-01-02/city=New York/a.json", `{"id":1}`+"\n")
				p.write("day=__HIVE_DEFAULT_PARTITION__/city=S%C3%A3o Paulo/b.json", `{"id":2}`+"\n")
				p.write("day=2026-1-3/city=/c.json", `{"id":3}`+"\n")
			}
			typed := newPipe(t)
			write(typed)
			typed.mustRun(map[string]string{"cloudFiles.partitionColumns": "day,city", "cloudFiles.schemaHints": "day DATE"})
			if got := typed.schema(); !slices.Equal(got, []string{"id STRING", "_rescued_data STRING", "day DATE", "city STRING"}) {
				t.Errorf("typed: schema %v", got)
			}
			if got := typed.column("day"); !slices.Equal(got, []string{"2026-01-02", "2026-01-03", "null"}) {
				t.Errorf("typed: day %v", got)
			}
			if got := typed.column("city"); !slices.Equal(got, []string{"New York", "São Paulo", "null"}) {
				t.Errorf("typed: city %v", got)
			}
			plain := newPipe(t)
			write(plain)
			plain.mustRun(map[string]string{"cloudFiles.partitionColumns": "day,city"})
			if got := plain.schema(); !slices.Equal(got, []string{"id STRING", "_rescued_data STRING", "day STRING", "city STRING"}) {
				t.Errorf("untyped: schema %v", got)
			}
			if got := plain.column("day"); !slices.Equal(got, []string{"2026-01-02", "2026-1-3", "null"}) {
				t.Errorf("untyped: day %v (the directory text, nulls kept)", got)
			}
		}},
	}
}

package options_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// colfmtFixture reads a golden Parquet input file of package parquetfmt.
func colfmtFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "formats", "parquetfmt", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// orcFixture reads a golden ORC input file of package orcfmt.
func orcFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "formats", "orcfmt", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// colfmtCases are the behavioural cases of the colfmt area's options.
func colfmtCases() []optionCase {
	return []optionCase{
		{name: "cloudFiles.format orc: footers give the schema, mergeSchema unions them, a file that is not ORC fails naming it or is skipped with ignoreCorruptFiles", options: []string{"cloudFiles.format", "mergeSchema", "ignoreCorruptFiles"}, run: func(t *testing.T) {
			run := func(extra map[string]string, bad bool) (*pipe, error) {
				p := newPipe(t)
				p.writeBytes("a.orc", orcFixture(t, "a.orc")) // id int, name
				p.writeBytes("b.orc", orcFixture(t, "b.orc")) // id long, name, age int
				if bad {
					p.write("c.orc", `{"id": 3}`+"\n")
				}
				opts := map[string]string{"cloudFiles.format": "ORC", "cloudFiles.schemaEvolutionMode": "rescue"}
				for k, v := range extra {
					opts[k] = v
				}
				_, err := p.run(opts)
				return p, err
			}
			base, err := run(nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := base.schema(), []string{"id INT", "name STRING", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) {
				t.Errorf("without mergeSchema: schema %v, want %v (a.orc's footer)", got, want)
			}
			if got, want := base.column("name"), []string{"Bob", "John", "Mary"}; !reflect.DeepEqual(got, want) {
				t.Errorf("names %v, want %v", got, want)
			}
			if got := base.column("_rescued_data"); len(got) != 3 || !strings.Contains(strings.Join(got, " "), `"age":25,"id":2147483648`) {
				t.Errorf("without mergeSchema: rescued %v, want b.orc's id and age rescued", got)
			}
			merged, err := run(map[string]string{"mergeSchema": "true"}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := merged.schema(), []string{"id BIGINT", "name STRING", "age INT", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) {
				t.Errorf("mergeSchema=true: schema %v, want %v", got, want)
			}
			if got, want := merged.column("id"), []string{"1", "2", "2147483648"}; !reflect.DeepEqual(got, want) {
				t.Errorf("mergeSchema=true: ids %v, want %v", got, want)
			}
			if _, err := run(nil, true); err == nil || !strings.Contains(err.Error(), "c.orc") {
				t.Errorf("corrupt file: %v, want an error naming c.orc", err)
			}
			skipped, err := run(map[string]string{"ignoreCorruptFiles": "true"}, true)
			if err != nil {
				t.Fatalf("ignoreCorruptFiles: %v", err)
			}
			if got, want := skipped.column("name"), []string{"Bob", "John", "Mary"}; !reflect.DeepEqual(got, want) {
				t.Errorf("ignoreCorruptFiles: names %v, want %v", got, want)
			}
		}},
		{name: "mergeSchema (parquet): inference unions the sampled footers; without it the first file's schema rescues the second's long id and new age", options: []string{"mergeSchema"}, run: func(t *testing.T) {
			run := func(extra map[string]string) *pipe {
				p := newPipe(t)
				p.writeBytes("a.parquet", colfmtFixture(t, "a.parquet")) // id int, name
				p.writeBytes("b.parquet", colfmtFixture(t, "b.parquet")) // id long, name, age int
				opts := map[string]string{"cloudFiles.format": "parquet", "cloudFiles.schemaEvolutionMode": "rescue"}
				for k, v := range extra {
					opts[k] = v
				}
				p.mustRun(opts)
				return p
			}
			base := run(nil)
			if got, want := base.schema(), []string{"id INT", "name STRING", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) {
				t.Errorf("without mergeSchema: schema %v, want %v (a.parquet's footer)", got, want)
			}
			if got := base.column("_rescued_data"); len(got) != 3 || !strings.Contains(strings.Join(got, " "), `"age":25,"id":2147483648`) {
				t.Errorf("without mergeSchema: rescued %v, want b.parquet's id and age rescued", got)
			}
			merged := run(map[string]string{"mergeSchema": "true"})
			if got, want := merged.schema(), []string{"id BIGINT", "name STRING", "age INT", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) {
				t.Errorf("mergeSchema=true: schema %v, want %v", got, want)
			}
			if got, want := merged.column("id"), []string{"1", "2", "2147483648"}; !reflect.DeepEqual(got, want) {
				t.Errorf("mergeSchema=true: ids %v, want %v", got, want)
			}
			if got, want := merged.column("age"), []string{"25", "null", "null"}; !reflect.DeepEqual(got, want) {
				t.Errorf("mergeSchema=true: ages %v, want %v", got, want)
			}
		}},
		{name: "ignoreCorruptFiles (parquet): a file that is not Parquet fails the run naming it; with the option it is skipped and the others are read", options: []string{"ignoreCorruptFiles"}, run: func(t *testing.T) {
			write := func(p *pipe) {
				p.writeBytes("a.parquet", colfmtFixture(t, "a.parquet"))
				p.write("b.parquet", `{"id": 3}`+"\n")
			}
			p := newPipe(t)
			write(p)
			if _, err := p.run(map[string]string{"cloudFiles.format": "parquet"}); err == nil || !strings.Contains(err.Error(), "b.parquet") {
				t.Errorf("corrupt file: %v, want an error naming b.parquet", err)
			}
			p = newPipe(t)
			write(p)
			p.mustRun(map[string]string{"cloudFiles.format": "parquet", "ignoreCorruptFiles": "true"})
			if got, want := p.column("id"), []string{"1", "2"}; !reflect.DeepEqual(got, want) {
				t.Errorf("ignoreCorruptFiles: ids %v, want %v", got, want)
			}
		}},
		{name: "cloudFiles.schemaEvolutionMode (parquet): addNewColumns stops once on b.parquet's new age column, the restart reads it; the long id that does not fit int is rescued", options: []string{"cloudFiles.schemaEvolutionMode"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.writeBytes("a.parquet", colfmtFixture(t, "a.parquet"))
			p.writeBytes("b.parquet", colfmtFixture(t, "b.parquet"))
			opts := map[string]string{"cloudFiles.format": "parquet", "cloudFiles.schemaEvolutionMode": "addNewColumns", "cloudFiles.maxFilesPerTrigger": "1"}
			if _, err := p.run(opts); err == nil || !strings.Contains(err.Error(), "age") {
				t.Fatalf("first run: %v, want the stream stopped on the new column age", err)
			}
			p.mustRun(opts)
			if got, want := p.schema(), []string{"id INT", "name STRING", "age INT", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) {
				t.Errorf("schema %v, want %v", got, want)
			}
			if got, want := p.column("age"), []string{"25", "null", "null"}; !reflect.DeepEqual(got, want) {
				t.Errorf("ages %v, want %v", got, want)
			}
			if got := p.column("_rescued_data"); !strings.Contains(strings.Join(got, " "), `{"id":2147483648,"_file_path":`) {
				t.Errorf("rescued %v, want b.parquet's long id", got)
			}
		}},
	}
}

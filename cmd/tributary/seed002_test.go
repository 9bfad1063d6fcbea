package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/infra/localfs"
)

// TestSeed002CSV is seed 002's example through the CLI, in CSV as the seed
// writes it: 1.csv (id,name with 1/John and 2/Mary) is ingested, then
// 2.csv (id,name,age with 2147483648,Bob,25) arrives and the stream runs
// again (and once more, as a job's retry would). For each schema evolution
// mode the table's schema and rows are compared with
// testdata/seed002/<case>.golden (go test -update rewrites them), which
// hold what the seed lists: rescued values are CSV text, so the seed's
// {"id": 2147483648} is {"id":"2147483648"}, with the file's _file_path.
// failOnNewColumns fails on age, naming it and 2.csv, on every run (the
// issue's decision: the seed's mode table wins over its example table).
func TestSeed002CSV(t *testing.T) {
	tests := []struct {
		name, mode string
		file1      string
		file2      string
		extra      []string
		// wantRun2 are the exit code and error text of the runs after 2.csv
		// arrives.
		wantRun2, wantRun3 int
		errRun2            []string
	}{
		{name: "addNewColumns", mode: "addNewColumns", file1: "id,name\n1,John\n2,Mary\n", file2: "id,name,age\n2147483648,Bob,25\n",
			wantRun2: 1, wantRun3: 0, errRun2: []string{"new columns found", "age", "2.csv"}},
		{name: "rescue", mode: "rescue", file1: "id,name\n1,John\n2,Mary\n", file2: "id,name,age\n2147483648,Bob,25\n"},
		{name: "failOnNewColumns", mode: "failOnNewColumns", file1: "id,name\n1,John\n2,Mary\n", file2: "id,name,age\n2147483648,Bob,25\n",
			wantRun2: 1, wantRun3: 1, errRun2: []string{"failOnNewColumns", "age", "2.csv"}},
		{name: "none", mode: "none", file1: "id,name\n1,John\n2,Mary\n", file2: "id,name,age\n2147483648,Bob,25\n"},
		{name: "addNewColumnsWithTypeWidening", mode: "addNewColumnsWithTypeWidening", file1: "id,name\n1,John\n2,Mary\n", file2: "id,name,age\n2147483648,Bob,25\n",
			extra: []string{"delta.enableTypeWidening=true"}, wantRun2: 1, wantRun3: 0, errRun2: []string{"schema evolved", "added age", "id: integer -> long", "2.csv"}},
		// Without delta.enableTypeWidening the table cannot take the wider
		// id: every run fails naming the property, the first file stays.
		{name: "addNewColumnsWithTypeWidening-table-off", mode: "addNewColumnsWithTypeWidening", file1: "id,name\n1,John\n2,Mary\n", file2: "id,name,age\n2147483648,Bob,25\n",
			wantRun2: 1, wantRun3: 1, errRun2: []string{"delta.enableTypeWidening", "id: integer -> long", "2.csv"}},
		// The seed's own text puts a space after each comma; Spark keeps
		// it unless ignoreLeadingWhiteSpace is true, which then gives the
		// same table as addNewColumns above.
		{name: "addNewColumns-spaces", mode: "addNewColumns", file1: "id, name\n1, John\n2, Mary\n", file2: "id, name, age\n2147483648, Bob, 25\n",
			extra: []string{"ignoreLeadingWhiteSpace=true"}, wantRun2: 1, wantRun3: 0, errRun2: []string{"new columns found", "age", "2.csv"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			args := []string{"run", "--source", c.src, "--table", c.table, "--checkpoint", c.cp,
				"--option", "cloudFiles.format=csv", "--option", "header=true", "--option", "cloudFiles.inferColumnTypes=true",
				"--option", "cloudFiles.schemaEvolutionMode=" + tc.mode}
			for _, o := range tc.extra {
				args = append(args, "--option", o)
			}
			c.file("1.csv", tc.file1)
			if _, errs, code := c.exec(args...); code != 0 {
				t.Fatalf("run 1: exit %d: %s", code, errs)
			}
			c.file("2.csv", tc.file2)
			_, errs, code := c.exec(args...)
			if code != tc.wantRun2 {
				t.Fatalf("run 2: exit %d, want %d: %s", code, tc.wantRun2, errs)
			}
			for _, s := range tc.errRun2 {
				if !strings.Contains(errs, s) {
					t.Errorf("run 2: error %q does not name %q", errs, s)
				}
			}
			_, errs, code = c.exec(args...)
			if code != tc.wantRun3 {
				t.Fatalf("run 3: exit %d, want %d: %s", code, tc.wantRun3, errs)
			}
			if tc.wantRun3 != 0 {
				for _, s := range tc.errRun2 {
					if !strings.Contains(errs, s) {
						t.Errorf("run 3: error %q does not name %q", errs, s)
					}
				}
			}
			got := seedTable(t, c)
			golden := filepath.Join("testdata", "seed002", tc.name+".golden")
			if *updateGolden {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("table differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// seedTable renders the table's schema and rows (sorted), with the source
// directory in rescued data written as $SRC.
func seedTable(t *testing.T, c *cli) string {
	t.Helper()
	store, err := localfs.New(c.table)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(store).Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var names []string
	for _, f := range snap.Schema().Fields {
		names = append(names, f.Name)
		fmt.Fprintf(&b, "%s %s", f.Name, schema.DDLType(f.Type))
		if tc, ok := f.Metadata["delta.typeChanges"]; ok {
			js, _ := json.Marshal(tc)
			fmt.Fprintf(&b, " delta.typeChanges=%s", js)
		}
		b.WriteString("\n")
	}
	b.WriteString("--\n")
	var rows []string
	for a := range snap.Files() {
		key, err := delta.ObjectKey(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(c.table, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		sch, rs, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			var cells []string
			for _, n := range names {
				i := sch.FieldIndex(n)
				if i < 0 || r[i] == nil {
					cells = append(cells, "NULL")
					continue
				}
				v := r[i]
				if s, ok := v.(string); ok {
					cells = append(cells, strings.ReplaceAll(s, c.src, "$SRC"))
					continue
				}
				js, _ := json.Marshal(v)
				cells = append(cells, string(js))
			}
			rows = append(rows, strings.Join(cells, "\t"))
		}
	}
	sort.Strings(rows)
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	return b.String()
}

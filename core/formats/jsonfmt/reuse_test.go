package jsonfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestReusedPlanReadsAsFresh reads files one after the other with one
// ReadOptions.Reuse (each reader closed before the next opens, as the
// engine's decoders do) and checks every file's rows and stats against a
// reader with a freshly compiled plan; a plan left by a reader of another
// schema or rescued data column is not used.
func TestReusedPlanReadsAsFresh(t *testing.T) {
	ctx := context.Background()
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "a", Type: schema.Long, Nullable: true},
		{Name: "B", Type: schema.String, Nullable: true},
		{Name: "n", Type: &schema.StructType{Fields: []schema.Field{{Name: "x", Type: schema.Double, Nullable: true}}}, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	other := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.String, Nullable: true}}}
	files := []string{
		`{"a":1,"B":"x","n":{"x":1.5}}` + "\n" + `{"B":"y","a":2}`,
		`{"b":"case","a":"not a long","n":{"x":2}}` + "\n" + `{"n":null,"zz":1}`,
		`{"n":{"x":3,"y":4},"a":3}`,
		`{"_rescued_data":"v","a":4}`,
	}
	read := func(sch *schema.StructType, content string, rescue string, reuse *fileformat.Reuse) ([][]any, fileformat.ReadStats) {
		t.Helper()
		rr, err := Format{}.Open(ctx, strings.NewReader(content), sch, fileformat.ReadOptions{FilePath: "f.json", RescuedDataColumn: rescue, Reuse: reuse})
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		for {
			row, err := rr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, row)
		}
		st := rr.Stats()
		rr.Close()
		rr.Close() // a second Close leaves nothing more
		return rows, st
	}
	reuse := &fileformat.Reuse{}
	for round := 0; round < 2; round++ {
		for _, rescue := range []string{"_rescued_data", ""} {
			for i, f := range files {
				got, gotSt := read(s, f, rescue, reuse)
				want, wantSt := read(s, f, rescue, nil)
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotSt, wantSt) {
					t.Errorf("round %d, rescue %q, file %d: rows %v stats %+v with a reused plan, want %v %+v", round, rescue, i, got, gotSt, want, wantSt)
				}
			}
		}
		if got, _ := read(other, files[0], "", reuse); !reflect.DeepEqual(got, [][]any{{"1"}, {"2"}}) {
			t.Errorf("other schema after a reused plan: %v", got)
		}
	}
	if reuse.Take() == nil || reuse.Take() != nil {
		t.Errorf("reuse should hold exactly one plan after sequential reads (each taken once, left once)")
	}
}

// TestReusedPlanBatchPath reads random documents in column batches three
// times with one Reuse (so the second and third readers run on the plans,
// column plan and fast decoder the previous one left) and checks the
// Parquet content, statistics, read stats and bad records against a
// reader without Reuse.
func TestReusedPlanBatchPath(t *testing.T) {
	g := docGen{rand.New(rand.NewPCG(5, 2026))}
	for i := range 150 {
		c := g.randomCase()
		want := batchPath(t, c.doc, c.s, c.opts, 3, 1, 0)
		reuse := &fileformat.Reuse{}
		for round := range 3 {
			opts := c.opts
			opts.Reuse = reuse
			got := batchPath(t, c.doc, c.s, opts, 3, 1, 0)
			where := fmt.Sprintf("case %d, read %d with a reused plan\nschema %s\ndoc:\n%s", i, round, c.s, c.doc)
			compareResults(t, want, got, where)
			if want.err == "" {
				sameParquet(t, want.file, got.file)
			}
		}
	}
}

package sink

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/sink/predicate"
)

// countingFiles counts the reads of each data file.
type countingFiles struct {
	Files
	reads map[string]int
}

func (c *countingFiles) Read(ctx context.Context, a *delta.Add) (*schema.StructType, [][]any, error) {
	c.reads[a.Path]++
	return c.Files.Read(ctx, a)
}

func TestReplacePlan(t *testing.T) {
	tests := []struct {
		name   string
		parts  []string
		where  string
		target [][]string // files: partition, then rows
		batch  [][]string
		want   []string
		// readTarget is how many target files were read (the others were
		// decided by partition values or statistics).
		readTarget      int
		removed, copied int64
		deleted         int64
	}{
		{name: "partition predicate: the partition's files go whole, unread", parts: []string{"p"}, where: "p = 'a'",
			target: [][]string{{"a", "1=old", "2=old"}, {"a", "3=old"}, {"b", "1=old"}},
			batch:  [][]string{{"a", "1=new"}},
			want:   []string{"1=new@a", "1=old@b"}, removed: 2, deleted: 3},
		{name: "partition IN list and NULL partition kept", parts: []string{"p"}, where: "p IN ('a', 'b')",
			target: [][]string{{"a", "1=old"}, {"b", "2=old"}, {"c", "3=old"}, {"", "4=old"}},
			batch:  [][]string{{"b", "5=new"}},
			want:   []string{"3=old@c", "4=old", "5=new@b"}, removed: 2, deleted: 2},
		{name: "data predicate: stats decide whole files, a straddling file is rewritten", where: "id >= 10",
			target: [][]string{{"", "1=a", "5=b", "10=c", "12=d"}, {"", "20=e", "30=f"}, {"", "1=g", "2=h"}},
			batch:  [][]string{{"", "11=new"}},
			want:   []string{"11=new", "1=a", "1=g", "2=h", "5=b"}, readTarget: 1, removed: 2, copied: 2, deleted: 4},
		{name: "rows where the predicate is NULL are kept", where: "id > 5",
			target: [][]string{{"", "null=x", "10=y", "3=z"}},
			batch:  [][]string{{"", "6=new"}},
			want:   []string{"3=z", "6=new", "null=x"}, readTarget: 1, removed: 1, copied: 2, deleted: 1},
		{name: "no row matches: nothing removed", where: "id BETWEEN 100 AND 200",
			target: [][]string{{"", "1=a"}},
			batch:  [][]string{{"", "150=new"}},
			want:   []string{"150=new", "1=a"}},
		{name: "string data column (statistics not trusted): read, only matching rows go", where: "v = 'b' OR v IS NULL",
			target: [][]string{{"", "1=a", "2=b"}},
			batch:  [][]string{{"", "3=b"}},
			want:   []string{"1=a", "3=b"}, readTarget: 1, removed: 1, copied: 1, deleted: 1},
		{name: "partition and data columns", parts: []string{"p"}, where: "p = 'a' AND id < 3",
			target: [][]string{{"a", "1=x", "5=y"}, {"b", "1=z"}},
			batch:  [][]string{{"a", "2=new"}},
			want:   []string{"1=z@b", "2=new@a", "5=y@a"}, readTarget: 1, removed: 1, copied: 1, deleted: 1},
		{name: "an empty batch still deletes the matching rows (as Delta)", parts: []string{"p"}, where: "p = 'a'",
			target: [][]string{{"a", "1=old"}, {"b", "2=old"}},
			want:   []string{"2=old@b"}, removed: 1, deleted: 1},
		{name: "new table", where: "id > 0",
			batch: [][]string{{"", "1=new"}},
			want:  []string{"1=new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.parts...)
			var snap *delta.Snapshot
			targets := map[string]bool{}
			if len(tt.target) > 0 {
				var adds []delta.Add
				for _, f := range tt.target {
					a := w.file(f[0], f[1:]...)
					targets[a.Path] = true
					adds = append(adds, a)
				}
				snap = w.commit(adds...)
			}
			var batch []delta.Add
			for _, f := range tt.batch {
				batch = append(batch, w.file(f[0], f[1:]...))
			}
			where, err := predicate.Parse(tt.where)
			if err != nil {
				t.Fatal(err)
			}
			files := &countingFiles{Files: w.files, reads: map[string]int{}}
			r := &Replace{Where: where, Files: files}
			plan, err := r.Plan(context.Background(), snap, w.schema(), batch)
			if err != nil {
				t.Fatal(err)
			}
			if got := w.rows(snap, plan.Actions); !slices.Equal(got, tt.want) {
				t.Errorf("rows %v, want %v", got, tt.want)
			}
			read := 0
			for p, n := range files.reads {
				if targets[p] {
					read += n
				}
			}
			if read != tt.readTarget {
				t.Errorf("%d target files read, want %d", read, tt.readTarget)
			}
			m := plan.Metrics
			if m.NumRemovedFiles != tt.removed || m.NumCopiedRows != tt.copied || m.NumDeletedRows != tt.deleted {
				t.Errorf("metrics %+v, want %d removed files, %d copied rows, %d deleted rows", m, tt.removed, tt.copied, tt.deleted)
			}
			for _, a := range plan.Actions {
				if a.Remove != nil && !a.Remove.DataChange || a.Add != nil && !a.Add.DataChange {
					t.Errorf("action without dataChange: %+v", a)
				}
			}
			if err := plan.Check(snap); err != nil {
				t.Fatal(err)
			}
			ci := &delta.CommitInfo{OperationParameters: map[string]any{"queryId": "q"}}
			plan.CommitInfo(ci, tt.parts)
			if ci.Operation != "WRITE" || ci.OperationParameters["mode"] != "Overwrite" || ci.OperationParameters["predicate"] != tt.where || ci.OperationParameters["queryId"] != "q" {
				t.Errorf("commitInfo %+v", ci)
			}
		})
	}
}

// schema is the table's schema (with the partition column).
func (w *world) schema() *schema.StructType {
	if len(w.parts) == 0 {
		return testSchema
	}
	return &schema.StructType{Fields: append(slices.Clone(testSchema.Fields), schema.Field{Name: "p", Type: schema.String, Nullable: true})}
}

func TestReplaceMismatch(t *testing.T) {
	tests := []struct {
		name, where string
		parts       []string
		batch       [][]string
		want        string
	}{
		{name: "data column", where: "id > 5", batch: [][]string{{"", "6=ok", "1=bad"}},
			want: "[DELTA_REPLACE_WHERE_MISMATCH] Written data does not conform to partial table overwrite condition or constraint 'id > 5'.\n" +
				"[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] CHECK constraint EXPRESSION(id > 5) (id > 5) violated by row with values:\n - id : 1"},
		{name: "NULL does not satisfy the predicate", where: "id > 5", batch: [][]string{{"", "null=x"}},
			want: " - id : null"},
		{name: "partition column", where: "p = 'a'", parts: []string{"p"}, batch: [][]string{{"a", "1=ok"}, {"b", "2=bad"}},
			want: "constraint 'p = 'a''.\n[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] CHECK constraint EXPRESSION(p = 'a') (p = 'a') violated by row with values:\n - p : b"},
		{name: "NULL partition", where: "p = 'a'", parts: []string{"p"}, batch: [][]string{{"", "2=bad"}},
			want: " - p : null"},
		{name: "every referenced column is shown", where: "p = 'a' AND id < 3", parts: []string{"p"}, batch: [][]string{{"a", "7=bad"}},
			want: " - id : 7\n - p : a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.parts...)
			snap := w.commit(w.file(map[bool]string{true: "a"}[len(tt.parts) > 0], "100=old", "1=old"))
			var batch []delta.Add
			for _, f := range tt.batch {
				batch = append(batch, w.file(f[0], f[1:]...))
			}
			where, _ := predicate.Parse(tt.where)
			plan, err := (&Replace{Where: where, Files: w.files}).Plan(context.Background(), snap, w.schema(), batch)
			if !errors.Is(err, ErrReplaceWhereMismatch) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Plan = %v, %v; want ErrReplaceWhereMismatch containing %q", plan, err, tt.want)
			}
		})
	}
}

func TestReplaceBindErrors(t *testing.T) {
	w := newWorld(t)
	snap := w.commit(w.file("", "1=a"))
	for where, want := range map[string]string{
		"nope = 1":  "option replaceWhere=nope = 1: predicate: bad column: column nope is not in the table (columns: id, v)",
		"id = 'x'":  "'x' is not a number",
		"v IN (1,)": "",
	} {
		e, err := predicate.Parse(where)
		if err != nil {
			if want != "" {
				t.Fatalf("Parse(%q): %v", where, err)
			}
			continue
		}
		_, err = (&Replace{Where: e, Files: w.files}).Plan(context.Background(), snap, testSchema, nil)
		if !errors.Is(err, ErrReplaceWhere) || !strings.Contains(err.Error(), want) {
			t.Errorf("Plan(%q) = %v, want ErrReplaceWhere containing %q", where, err, want)
		}
	}
}

func TestReplaceCheckConflict(t *testing.T) {
	w := newWorld(t)
	snap := w.commit(w.file("", "1=a"))
	where, _ := predicate.Parse("id = 1")
	plan, err := (&Replace{Where: where, Files: w.files}).Plan(context.Background(), snap, testSchema, []delta.Add{w.file("", "1=b")})
	if err != nil {
		t.Fatal(err)
	}
	later := w.commit(w.file("", "2=c"))
	if err := plan.Check(later); !errors.Is(err, ErrConflict) {
		t.Fatalf("Check after a concurrent append = %v, want ErrConflict", err)
	}
}

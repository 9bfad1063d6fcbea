package ingest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
)

// seed002 ingests seed 002's example: a table whose id column is an INT,
// then a file whose id needs a long and which brings a new age column.
type seed002 struct {
	w    *world
	mode options.SchemaEvolutionMode
	res  SchemaConfig
}

func newSeed002(t *testing.T, mode options.SchemaEvolutionMode, rescue bool) *seed002 {
	s := &seed002{w: newWorld(), mode: mode}
	s.res = SchemaConfig{InferColumnTypes: true, Hints: "id INT", EvolutionMode: mode, NoRescue: !rescue}
	s.put(t, "in/1.json", `{"id": 1, "name": "John"}`+"\n"+`{"id": 2, "name": "Mary"}`+"\n")
	if _, err := s.run(t); err != nil {
		t.Fatalf("first file: %v", err)
	}
	s.put(t, "in/2.json", `{"id": 2147483648, "name": "Bob", "age": 25}`+"\n")
	return s
}

func (s *seed002) put(t *testing.T, key, body string) {
	if err := s.w.src.Put(context.Background(), key, strings.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	s.w.discover(t)
}

func (s *seed002) run(t *testing.T) (Summary, error) {
	e := s.w.engine(t, Limits{MaxFiles: 1000})
	e.Config.Schema = s.res
	return e.RunAvailableNow(context.Background(), nil)
}

// rows returns the table's rows as maps keyed by column name.
func (s *seed002) rows(t *testing.T) (cols []string, out []map[string]any) {
	ctx := context.Background()
	snap, err := delta.NewTable(s.w.table).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range snap.Schema().Fields {
		cols = append(cols, f.Name)
	}
	for add := range snap.Files() {
		rc, _ := s.w.table.Get(ctx, add.Path)
		data, _ := io.ReadAll(rc)
		rc.Close()
		fileSchema, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		// Files written before an evolution lack the new columns: map by name.
		for _, r := range rows {
			m := map[string]any{}
			for i, f := range fileSchema.Fields {
				m[f.Name] = r[i]
			}
			out = append(out, m)
		}
	}
	return cols, out
}

func (s *seed002) bob(t *testing.T) (cols []string, bob map[string]any) {
	cols, rows := s.rows(t)
	for _, r := range rows {
		if r["name"] == "Bob" {
			if bob != nil {
				t.Fatal("Bob twice")
			}
			bob = r
		}
	}
	if bob == nil || len(rows) != 3 {
		t.Fatalf("rows %v", rows)
	}
	return cols, bob
}

func TestSeed002EvolutionModes(t *testing.T) {
	t.Run("addNewColumns", func(t *testing.T) {
		s := newSeed002(t, options.EvolveAddNewColumns, true)
		if _, err := s.run(t); !errors.Is(err, ErrSchemaEvolved) || !strings.Contains(err.Error(), "age") {
			t.Fatalf("want the stream to stop on the new column age, got %v", err)
		}
		if _, err := s.run(t); err != nil {
			t.Fatalf("rerun with the evolved schema: %v", err)
		}
		cols, bob := s.bob(t)
		if strings.Join(cols, ",") != "id,name,age,_rescued_data" {
			t.Fatalf("columns %v: age must be appended before the rescued column", cols)
		}
		if bob["id"] != nil || bob["age"] != int64(25) {
			t.Fatalf("Bob = %v", bob)
		}
		if r, _ := bob["_rescued_data"].(string); !strings.Contains(r, `"id":2147483648`) || strings.Contains(r, "age") {
			t.Fatalf("rescued %q: the id must be rescued, age is a column now", r)
		}
	})
	t.Run("rescue", func(t *testing.T) {
		s := newSeed002(t, options.EvolveRescue, true)
		if _, err := s.run(t); err != nil {
			t.Fatal(err)
		}
		cols, bob := s.bob(t)
		if strings.Join(cols, ",") != "id,name,_rescued_data" || bob["id"] != nil {
			t.Fatalf("cols %v, Bob %v", cols, bob)
		}
		if r, _ := bob["_rescued_data"].(string); !strings.Contains(r, `"id":2147483648`) || !strings.Contains(r, `"age":25`) {
			t.Fatalf("rescued %q", r)
		}
	})
	t.Run("failOnNewColumns", func(t *testing.T) {
		s := newSeed002(t, options.EvolveFailOnNewColumns, true)
		for i := 0; i < 2; i++ {
			if _, err := s.run(t); !errors.Is(err, ErrNewColumns) || !strings.Contains(err.Error(), "in/2.json") {
				t.Fatalf("run %d: want ErrNewColumns naming the file, got %v", i, err)
			}
		}
		if _, rows := s.rows(t); len(rows) != 2 {
			t.Fatalf("the failing batch must not commit: %d rows", len(rows))
		}
	})
	t.Run("none", func(t *testing.T) {
		s := newSeed002(t, options.EvolveNone, false)
		if _, err := s.run(t); err != nil {
			t.Fatal(err)
		}
		cols, bob := s.bob(t)
		if strings.Join(cols, ",") != "id,name" || bob["id"] != nil {
			t.Fatalf("cols %v, Bob %v", cols, bob)
		}
	})
	t.Run("none with rescuedDataColumn", func(t *testing.T) {
		s := newSeed002(t, options.EvolveNone, true)
		if _, err := s.run(t); err != nil {
			t.Fatal(err)
		}
		cols, bob := s.bob(t)
		if strings.Join(cols, ",") != "id,name,_rescued_data" || !strings.Contains(bob["_rescued_data"].(string), "2147483648") {
			t.Fatalf("cols %v, Bob %v", cols, bob)
		}
	})
}

func TestRescuedDataNamesTheFullSourcePath(t *testing.T) {
	s := newSeed002(t, options.EvolveRescue, true)
	s.w.engineHook = func(e *Engine) { e.Config.SourceURI = "s3://landing/raw/" }
	if _, err := s.run(t); err != nil {
		t.Fatal(err)
	}
	_, bob := s.bob(t)
	if r, _ := bob["_rescued_data"].(string); !strings.Contains(r, `"_file_path":"s3://landing/raw/in/2.json"`) {
		t.Fatalf("rescued %q", r)
	}
}

package csvfmt

import (
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvcol"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvopt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// headerVariant is doc with its first line replaced by another header of
// the same schema's names: the same, reordered, in another case, with a
// column more or less, a repeated or an empty name, or the null value.
func headerVariant(r *rand.Rand, doc string, opts fileformat.ReadOptions, names []string) string {
	sep := ","
	if v, ok := opts.Options["sep"]; ok {
		sep = v
	}
	hn := append([]string(nil), names...)
	switch r.Intn(9) {
	case 0:
		hn = append(hn, "extra")
	case 1:
		hn[0] = strings.ToUpper(hn[0])
	case 2:
		r.Shuffle(len(hn), func(i, j int) { hn[i], hn[j] = hn[j], hn[i] })
	case 3:
		hn = hn[:len(hn)-1]
	case 4:
		hn = append(hn, hn[0])
	case 5:
		hn[len(hn)-1] = ""
	case 6:
		hn[0] = "NA"
	}
	_, rest, _ := strings.Cut(doc, "\n")
	return strings.Join(hn, sep) + "\n" + rest
}

// checkHeaderMemo reads the documents one after the other as a batch's
// readers do (one fileformat.Reuse: the options and the last header's
// column map shared), with Next and with ReadBatch, and each alone: the
// same Parquet content, statistics, errors and bad records.
func checkHeaderMemo(t *testing.T, docs []string, opts fileformat.ReadOptions, sch func(i int) *schema.StructType) {
	t.Helper()
	for _, batch := range []bool{false, true} {
		shared := opts
		shared.Reuse = &fileformat.Reuse{}
		for i, doc := range docs {
			s := sch(i)
			if batch && !csvcol.Batchable(s) {
				continue
			}
			got := readPath(t, doc, s, shared, batch, 4)
			want := readPath(t, doc, s, opts, batch, 4)
			if got.err != want.err || got.rows != want.rows || got.rescued != want.rescued || got.stats != want.stats ||
				!reflect.DeepEqual(got.read, want.read) || !reflect.DeepEqual(got.bad, want.bad) {
				t.Fatalf("file %d (batch %v) read after others: %+v\nalone: %+v\ndoc %q", i, batch, got, want, doc)
			}
			sameParquet(t, got.file, want.file)
		}
	}
}

// TestHeaderMemoMatchesAlone: files of a batch read with the header map
// the file before left (when their header rows are equal) read as they do
// alone, over random documents, schemas and options, headers changing
// from file to file, and the schema changing between files.
func TestHeaderMemoMatchesAlone(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for range 150 {
		doc, s, opts := randomCase(r)
		opts.Options["header"] = "true"
		var names []string
		for _, f := range s.Fields {
			if f.Name != "_rescued_data" && f.Name != "_corrupt_record" {
				names = append(names, f.Name)
			}
		}
		docs := []string{doc}
		for range 6 {
			if r.Intn(2) == 0 {
				docs = append(docs, docs[len(docs)-1]) // the same header
			} else {
				docs = append(docs, headerVariant(r, doc, opts, names))
			}
		}
		// Another schema, its data columns in reverse order (the same
		// names): the map made for s does not fit it.
		other := schema.StructType{Fields: slices.Clone(s.Fields)}
		slices.Reverse(other.Fields[:len(names)])
		checkHeaderMemo(t, docs, opts, func(i int) *schema.StructType {
			if i == 4 {
				return &other
			}
			return s
		})
	}
}

// TestHeaderMemoHit: a second file with the same header takes the first
// one's map (the same HeaderMap), one with another header makes its own.
func TestHeaderMemoHit(t *testing.T) {
	s := strSchema("id", "name", "_rescued_data")
	reuse := &fileformat.Reuse{}
	opts := fileformat.ReadOptions{Options: map[string]string{"header": "true"}, FilePath: "f.csv", RescuedDataColumn: "_rescued_data", Reuse: reuse}
	memo := func() *csvcol.HeaderMap {
		_, m, err := csvopt.ParseReused(opts.Options, reuse)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := m.Load().(*csvcol.HeaderMap)
		return h
	}
	alone := opts
	alone.Reuse = nil
	tests := []struct {
		doc  string
		same bool // the map is the one before
	}{
		{"name,id\nBob,7\n", false},
		{"name,id\nAnn,8\n", true},
		{"id,name,age\n9,Cy,30\n", false},
		{"id,name,age\n10,Di,31,x\n", true}, // a value past the header: the map extended (a copy)
		{"id,name,age\n11,Ed,32\n", true},
		{"id,name,AGE\n12,Fa,33\n", false},
	}
	for i, tt := range tests {
		before := memo()
		rows, _, err := readAll(t, tt.doc, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want, _, _ := readAll(t, tt.doc, s, alone); !reflect.DeepEqual(rows, want) {
			t.Fatalf("file %d: %v, alone %v", i, rows, want)
		}
		if after := memo(); (after == before) != tt.same || after == nil {
			t.Fatalf("file %d: map reused %v, want %v", i, after == before, tt.same)
		}
	}
}

// FuzzHeaderMemo checks, on any seed, files read after others with the
// shared header map against each read alone.
func FuzzHeaderMemo(f *testing.F) {
	f.Add(int64(1), uint8(3))
	f.Add(int64(7), uint8(0))
	f.Fuzz(func(t *testing.T, seed int64, variants uint8) {
		r := rand.New(rand.NewSource(seed))
		doc, s, opts := randomCase(r)
		opts.Options["header"] = "true"
		var names []string
		for _, f := range s.Fields {
			names = append(names, f.Name)
		}
		docs := []string{doc}
		for range variants % 8 {
			docs = append(docs, headerVariant(r, doc, opts, names))
		}
		checkHeaderMemo(t, docs, opts, func(int) *schema.StructType { return s })
	})
}

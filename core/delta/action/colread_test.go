package action

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// testdataRoot is the shared Delta test tables (Spark, delta-rs and kernel
// golden tables), beside the repository.
const testdataRoot = "../../../../shared/testdata/delta"

// readAll decodes a checkpoint file with a reader into a list of actions.
func readAll(read func([]byte, func(Action) error) error, data []byte) ([]Action, error) {
	var out []Action
	err := read(data, func(a Action) error {
		out = append(out, a)
		return nil
	})
	return out, err
}

// sameActions reports the first difference between two decodings.
func sameActions(a, b []Action) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d actions vs %d", len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			var ja, jb bytes.Buffer
			_ = EncodeActions(&ja, a[i:i+1])
			_ = EncodeActions(&jb, b[i:i+1])
			return fmt.Sprintf("action %d:\ncolumns: %s\nrows:    %s", i, ja.String(), jb.String())
		}
	}
	return ""
}

// checkpointFixtures returns every Parquet file in a _delta_log of the
// shared test tables (classic, multi-part and V2 checkpoints, sidecars).
func checkpointFixtures(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(testdataRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") && strings.Contains(filepath.ToSlash(p), "/_delta_log/") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Larger checkpoints written for these tests (testdata/gen_checkpoints.py).
	own, err := filepath.Glob(filepath.Join("testdata", "checkpoints", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, own...)
	if len(files) < 20 {
		t.Fatalf("found %d checkpoint files under %s, want the shared fixtures", len(files), testdataRoot)
	}
	return files
}

// The column reader decodes every checkpoint of the shared tables (written
// by Spark, delta-rs and the kernel's tests) exactly as the row reader.
func TestReadParquetMatchesRowReaderOnFixtures(t *testing.T) {
	writers := map[string]int{}
	total := 0 // actions decoded (a part of a multi-part checkpoint may hold none)
	for _, p := range checkpointFixtures(t) {
		rel, err := filepath.Rel(testdataRoot, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = p
		}
		writers[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]]++
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := readAll(ReadParquetRows, data)
			if err != nil {
				t.Fatalf("row reader: %v", err)
			}
			cols, err := readAll(ReadParquet, data)
			if err != nil {
				t.Fatalf("column reader: %v", err)
			}
			total += len(rows)
			if d := sameActions(cols, rows); d != "" {
				t.Fatal(d)
			}
		})
	}
	if total < 100 {
		t.Errorf("%d actions in all fixtures", total)
	}
	for _, w := range []string{"spark-golden", "delta-rs", "kernel"} {
		if writers[w] == 0 {
			t.Errorf("no checkpoint written by %s among the fixtures", w)
		}
	}
}

// Synthetic checkpoint rows: every action kind, maps with null values,
// deletion vectors, stats_parsed (with and without the stats JSON).
type tStr = *string

type tDV struct {
	StorageType    tStr   `parquet:"storageType,optional"`
	PathOrInlineDv tStr   `parquet:"pathOrInlineDv,optional"`
	Offset         *int32 `parquet:"offset,optional"`
	SizeInBytes    *int32 `parquet:"sizeInBytes,optional"`
	Cardinality    *int64 `parquet:"cardinality,optional"`
	MaxRowIndex    *int64 `parquet:"maxRowIndex,optional"`
}

type tParsedVals struct {
	A *int64 `parquet:"a,optional"`
	S tStr   `parquet:"s,optional"`
	D *int32 `parquet:"d,optional,date"`
	N *struct {
		X *float64 `parquet:"x,optional"`
	} `parquet:"n,optional"`
}

type tStatsParsed struct {
	NumRecords *int64       `parquet:"numRecords,optional"`
	MinValues  *tParsedVals `parquet:"minValues,optional"`
	MaxValues  *tParsedVals `parquet:"maxValues,optional"`
	NullCount  *struct {
		A *int64 `parquet:"a,optional"`
	} `parquet:"nullCount,optional"`
	TightBounds *bool `parquet:"tightBounds,optional"`
}

type tAdd struct {
	Path             tStr               `parquet:"path,optional"`
	PartitionValues  map[string]*string `parquet:"partitionValues,optional"`
	Size             *int64             `parquet:"size,optional"`
	ModificationTime *int64             `parquet:"modificationTime,optional"`
	DataChange       *bool              `parquet:"dataChange,optional"`
	Tags             map[string]string  `parquet:"tags,optional"`
	DeletionVector   *tDV               `parquet:"deletionVector,optional"`
	BaseRowID        *int64             `parquet:"baseRowId,optional"`
	DefaultRCV       *int64             `parquet:"defaultRowCommitVersion,optional"`
	Stats            tStr               `parquet:"stats,optional"`
	Clustering       tStr               `parquet:"clusteringProvider,optional"`
	StatsParsed      *tStatsParsed      `parquet:"stats_parsed,optional"`
}

type tRemove struct {
	Path                 tStr               `parquet:"path,optional"`
	DeletionTimestamp    *int64             `parquet:"deletionTimestamp,optional"`
	DataChange           *bool              `parquet:"dataChange,optional"`
	ExtendedFileMetadata *bool              `parquet:"extendedFileMetadata,optional"`
	PartitionValues      map[string]*string `parquet:"partitionValues,optional"`
	Size                 *int64             `parquet:"size,optional"`
	Stats                tStr               `parquet:"stats,optional"`
	Tags                 map[string]string  `parquet:"tags,optional"`
	DeletionVector       *tDV               `parquet:"deletionVector,optional"`
}

type tRow struct {
	Txn *struct {
		AppID       tStr   `parquet:"appId,optional"`
		Version     *int64 `parquet:"version,optional"`
		LastUpdated *int64 `parquet:"lastUpdated,optional"`
	} `parquet:"txn,optional"`
	Add      *tAdd    `parquet:"add,optional"`
	Remove   *tRemove `parquet:"remove,optional"`
	MetaData *struct {
		ID     tStr `parquet:"id,optional"`
		Name   tStr `parquet:"name,optional"`
		Format *struct {
			Provider tStr              `parquet:"provider,optional"`
			Options  map[string]string `parquet:"options,optional"`
		} `parquet:"format,optional"`
		SchemaString     tStr              `parquet:"schemaString,optional"`
		PartitionColumns []string          `parquet:"partitionColumns,optional,list"`
		Configuration    map[string]string `parquet:"configuration,optional"`
		CreatedTime      *int64            `parquet:"createdTime,optional"`
	} `parquet:"metaData,optional"`
	Protocol *struct {
		MinReaderVersion *int32   `parquet:"minReaderVersion,optional"`
		MinWriterVersion *int32   `parquet:"minWriterVersion,optional"`
		ReaderFeatures   []string `parquet:"readerFeatures,optional,list"`
		WriterFeatures   []string `parquet:"writerFeatures,optional,list"`
	} `parquet:"protocol,optional"`
	DomainMetadata *struct {
		Domain        tStr  `parquet:"domain,optional"`
		Configuration tStr  `parquet:"configuration,optional"`
		Removed       *bool `parquet:"removed,optional"`
	} `parquet:"domainMetadata,optional"`
}

func ptrOf[T any](v T) *T { return &v }

// randomCheckpoint writes n random checkpoint rows in small pages and row
// groups (so that rows and maps straddle page boundaries).
func randomCheckpoint(t testing.TB, r *rand.Rand, n int, opts ...parquet.WriterOption) []byte {
	t.Helper()
	maybe := func(p float64) bool { return r.Float64() < p }
	str := func(prefix string) tStr {
		if maybe(0.1) {
			return nil
		}
		return ptrOf(fmt.Sprintf("%s-%d", prefix, r.IntN(1000)))
	}
	i64 := func() *int64 {
		if maybe(0.2) {
			return nil
		}
		return ptrOf(r.Int64N(1 << 40))
	}
	strMap := func() map[string]*string {
		if maybe(0.3) {
			return nil
		}
		m := map[string]*string{}
		for k := range r.IntN(4) {
			m[fmt.Sprint("k", k)] = str("v")
		}
		return m
	}
	plainMap := func() map[string]string {
		if maybe(0.5) {
			return nil
		}
		m := map[string]string{}
		for k := range r.IntN(3) {
			m[fmt.Sprint("t", k)] = fmt.Sprint("v", r.IntN(9))
		}
		return m
	}
	dv := func() *tDV {
		if maybe(0.7) {
			return nil
		}
		d := &tDV{StorageType: ptrOf([]string{"u", "i", "p"}[r.IntN(3)]), PathOrInlineDv: str("dv"), SizeInBytes: ptrOf(int32(r.IntN(100))), Cardinality: i64()}
		if maybe(0.5) {
			d.Offset = ptrOf(int32(r.IntN(100)))
		}
		d.MaxRowIndex = i64()
		return d
	}
	list := func() []string {
		var l []string
		for range r.IntN(3) {
			l = append(l, fmt.Sprint("f", r.IntN(5)))
		}
		return l
	}
	rows := make([]tRow, 0, n)
	for range n {
		var row tRow
		switch k := r.IntN(20); {
		case k < 12:
			a := &tAdd{Path: ptrOf(fmt.Sprintf("p=%d/part-%05d.parquet", r.IntN(3), r.IntN(100000))), PartitionValues: strMap(), Size: i64(),
				ModificationTime: i64(), DataChange: ptrOf(maybe(0.5)), Tags: plainMap(), DeletionVector: dv(), BaseRowID: i64(),
				DefaultRCV: i64(), Stats: str(`{"numRecords":1}`), Clustering: nil}
			if maybe(0.1) {
				a.Clustering = ptrOf("liquid")
			}
			if maybe(0.5) {
				sp := &tStatsParsed{NumRecords: i64(), TightBounds: nil}
				if maybe(0.5) {
					sp.TightBounds = ptrOf(maybe(0.5))
				}
				if maybe(0.8) {
					sp.MinValues = &tParsedVals{A: i64(), S: str("min"), D: ptrOf(int32(r.IntN(20000)))}
					if maybe(0.5) {
						sp.MinValues.N = &struct {
							X *float64 `parquet:"x,optional"`
						}{X: ptrOf(r.Float64())}
					}
				}
				if maybe(0.5) {
					sp.NullCount = &struct {
						A *int64 `parquet:"a,optional"`
					}{A: i64()}
				}
				a.StatsParsed = sp
			}
			row.Add = a
		case k < 16:
			row.Remove = &tRemove{Path: ptrOf(fmt.Sprintf("part-%05d.parquet", r.IntN(100000))), DeletionTimestamp: i64(), DataChange: ptrOf(maybe(0.5)),
				ExtendedFileMetadata: ptrOf(maybe(0.5)), PartitionValues: strMap(), Size: i64(), Stats: str("s"), Tags: plainMap(), DeletionVector: dv()}
		case k < 18:
			row.Txn = &struct {
				AppID       tStr   `parquet:"appId,optional"`
				Version     *int64 `parquet:"version,optional"`
				LastUpdated *int64 `parquet:"lastUpdated,optional"`
			}{AppID: str("app"), Version: i64(), LastUpdated: i64()}
		case k < 19:
			row.Protocol = &struct {
				MinReaderVersion *int32   `parquet:"minReaderVersion,optional"`
				MinWriterVersion *int32   `parquet:"minWriterVersion,optional"`
				ReaderFeatures   []string `parquet:"readerFeatures,optional,list"`
				WriterFeatures   []string `parquet:"writerFeatures,optional,list"`
			}{MinReaderVersion: ptrOf(int32(3)), MinWriterVersion: ptrOf(int32(7)), ReaderFeatures: list(), WriterFeatures: list()}
		default:
			if maybe(0.5) {
				row.DomainMetadata = &struct {
					Domain        tStr  `parquet:"domain,optional"`
					Configuration tStr  `parquet:"configuration,optional"`
					Removed       *bool `parquet:"removed,optional"`
				}{Domain: str("d"), Configuration: str("{}"), Removed: ptrOf(maybe(0.5))}
				break
			}
			row.MetaData = &struct {
				ID     tStr `parquet:"id,optional"`
				Name   tStr `parquet:"name,optional"`
				Format *struct {
					Provider tStr              `parquet:"provider,optional"`
					Options  map[string]string `parquet:"options,optional"`
				} `parquet:"format,optional"`
				SchemaString     tStr              `parquet:"schemaString,optional"`
				PartitionColumns []string          `parquet:"partitionColumns,optional,list"`
				Configuration    map[string]string `parquet:"configuration,optional"`
				CreatedTime      *int64            `parquet:"createdTime,optional"`
			}{ID: str("id"), Name: str("name"), SchemaString: str("{}"), PartitionColumns: list(), Configuration: plainMap(), CreatedTime: i64()}
			if maybe(0.8) {
				row.MetaData.Format = &struct {
					Provider tStr              `parquet:"provider,optional"`
					Options  map[string]string `parquet:"options,optional"`
				}{Provider: ptrOf("parquet"), Options: plainMap()}
			}
		}
		rows = append(rows, row)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[tRow](&buf, append([]parquet.WriterOption{parquet.PageBufferSize(256), parquet.MaxRowsPerRowGroup(int64(1 + r.IntN(200)))}, opts...)...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The column reader agrees with the row reader on random checkpoints whose
// rows, maps and lists straddle pages and row groups, in data page v1 and
// v2, plain and dictionary encoded, with and without column statistics.
func TestReadParquetMatchesRowReaderOnRandomFiles(t *testing.T) {
	variants := []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"v2", nil},
		{"v1", []parquet.WriterOption{parquet.DataPageVersion(1)}},
		{"dictionary", []parquet.WriterOption{parquet.DefaultEncoding(&parquet.RLEDictionary)}},
		{"no statistics", []parquet.WriterOption{parquet.DataPageStatistics(false), parquet.SkipPageBounds("add", "path")}},
	}
	for _, v := range variants {
		for seed := range uint64(8) {
			t.Run(fmt.Sprintf("%s/seed%d", v.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 11))
				data := randomCheckpoint(t, r, 50+r.IntN(600), v.opts...)
				rows, err := readAll(ReadParquetRows, data)
				if err != nil {
					t.Fatalf("row reader: %v", err)
				}
				cols, err := readAll(ReadParquet, data)
				if err != nil {
					t.Fatalf("column reader: %v", err)
				}
				if d := sameActions(cols, rows); d != "" {
					t.Fatal(d)
				}
				var parsed int
				for _, a := range cols {
					if a.Add != nil && strings.Contains(a.Add.Stats, "minValues") {
						parsed++
					}
				}
				if parsed == 0 {
					t.Fatal("no add took its stats from stats_parsed: the case is not exercised")
				}
			})
		}
	}
}

// A column the row group's statistics call all-null is not read; a file
// whose adds have no deletion vectors nor removes decodes the same.
func TestReadParquetSkipsAllNullColumns(t *testing.T) {
	type row struct {
		Add *tAdd    `parquet:"add,optional"`
		Rm  *tRemove `parquet:"remove,optional"`
	}
	rows := make([]row, 300)
	for i := range rows {
		rows[i].Add = &tAdd{Path: ptrOf(fmt.Sprintf("f%d", i)), Size: ptrOf(int64(i)), DataChange: ptrOf(false), Stats: ptrOf(`{"numRecords":1}`),
			PartitionValues: map[string]*string{}}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := newPQDecoder(f.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var stats []nullStats
	for _, cc := range f.Metadata().RowGroups[0].Columns {
		stats = append(stats, nullStats{values: cc.MetaData.NumValues, nulls: cc.MetaData.Statistics.NullCount})
	}
	d := newColDecoder(dec, f.RowGroups()[0], stats)
	defer d.close()
	if !d.rmSize.allNull || !d.addDV.storageType.allNull || d.addPath.allNull || d.remove.rep.allNull {
		t.Fatalf("all-null detection: remove.size %v, add.dv %v, add.path %v, remove.path %v",
			d.rmSize.allNull, d.addDV.storageType.allNull, d.addPath.allNull, d.remove.rep.allNull)
	}
	cols, err := readAll(ReadParquet, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want, err := readAll(ReadParquetRows, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameActions(cols, want); diff != "" || len(cols) != 300 {
		t.Fatalf("%d actions: %s", len(cols), diff)
	}
}

// FuzzReadParquet: on any input the column reader returns an error or the
// row reader's actions (when the row reader decodes the file too).
func FuzzReadParquet(f *testing.F) {
	for _, p := range checkpointFixtures(f) {
		if data, err := os.ReadFile(p); err == nil && len(data) < 16<<10 {
			f.Add(data)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	f.Add(randomCheckpoint(f, r, 20))
	f.Add(randomCheckpoint(f, r, 40, parquet.DataPageVersion(1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		cols, err := readAll(ReadParquet, data)
		if err != nil {
			return
		}
		rows, err := readAll(ReadParquetRows, data)
		if err != nil {
			return // the row reader decodes columns the column reader never reads
		}
		if d := sameActions(cols, rows); d != "" {
			t.Fatal(d)
		}
	})
}

// BenchmarkReadParquet decodes a checkpoint of 10,000 adds (path,
// partition values, size, stats) with the column reader and with the row
// reader it replaced.
func BenchmarkReadParquet(b *testing.B) {
	rows := make([]tRow, 0, 10002)
	rows = append(rows, tRow{Protocol: &struct {
		MinReaderVersion *int32   `parquet:"minReaderVersion,optional"`
		MinWriterVersion *int32   `parquet:"minWriterVersion,optional"`
		ReaderFeatures   []string `parquet:"readerFeatures,optional,list"`
		WriterFeatures   []string `parquet:"writerFeatures,optional,list"`
	}{MinReaderVersion: ptrOf(int32(1)), MinWriterVersion: ptrOf(int32(2))}})
	for i := range 10000 {
		rows = append(rows, tRow{Add: &tAdd{Path: ptrOf(fmt.Sprintf("part-%06d-%04d.parquet", i/1000, i%1000)), PartitionValues: map[string]*string{},
			Size: ptrOf(int64(1000)), ModificationTime: ptrOf(int64(1)), DataChange: ptrOf(false),
			Stats: ptrOf(`{"numRecords":10,"minValues":{"a":1},"maxValues":{"a":10},"nullCount":{"a":0}}`)}})
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[tRow](&buf, parquet.Compression(&parquet.Snappy))
	if _, err := w.Write(rows); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		read func([]byte, func(Action) error) error
	}{{"columns", ReadParquet}, {"rows", ReadParquetRows}} {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if err := r.read(buf.Bytes(), func(a Action) error {
					if a.Add != nil {
						n++
					}
					return nil
				}); err != nil || n != 10000 {
					b.Fatalf("%d adds, %v", n, err)
				}
			}
		})
	}
}

// A row group claiming more rows than its columns hold is an error, and a
// file without action columns has no actions, whatever its row count.
func TestReadParquetRowCounts(t *testing.T) {
	type other struct {
		X *int64 `parquet:"x,optional"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[other](&buf)
	if _, err := w.Write([]other{{X: ptrOf(int64(1))}, {}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if acts, err := readAll(ReadParquet, buf.Bytes()); err != nil || len(acts) != 0 {
		t.Fatalf("no action columns: %v, %v", acts, err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := newPQDecoder(f.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if err := readRowGroup(dec, f.RowGroups()[0], nil, func(Action) error { return nil }); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	data := randomCheckpoint(t, r, 30)
	f, err = parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if dec, err = newPQDecoder(f.Schema()); err != nil {
		t.Fatal(err)
	}
	err = readRowGroup(dec, longRowGroup{f.RowGroups()[0]}, nil, func(Action) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "ends before the row group's last row") {
		t.Fatalf("row group claiming 1e12 rows: %v", err)
	}
}

// longRowGroup claims more rows than its columns hold.
type longRowGroup struct{ parquet.RowGroup }

func (longRowGroup) NumRows() int64 { return 1e12 }

// The checkpoints written for these tests decode to the action counts
// pyarrow reads from them (the non-null rows of each action column), and
// every add has stats (from stats_parsed where the stats JSON is absent).
func TestReadParquetWrittenCheckpoints(t *testing.T) {
	tests := []struct {
		file                       string
		adds, removes, withDV, txn int
	}{
		{file: "deltars-partitioned", adds: 760, removes: 40},
		{file: "spark-dv", adds: 540, removes: 110, withDV: 91, txn: 1},
		{file: "spark-struct-only", adds: 278, removes: 33}, // stats only in stats_parsed
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "checkpoints", tc.file+".checkpoint.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			acts, err := readAll(ReadParquet, data)
			if err != nil {
				t.Fatal(err)
			}
			var adds, removes, withDV, txn, meta, proto int
			for _, a := range acts {
				switch {
				case a.Add != nil:
					adds++
					if a.Add.DeletionVector != nil {
						withDV++
					}
					st, err := a.Add.ParseStats()
					if err != nil || st == nil || st.NumRecords <= 0 {
						t.Fatalf("add %s: stats %q (%v)", a.Add.Path, a.Add.Stats, err)
					}
					if len(st.MinValues) > 0 && len(a.Add.PartitionValues) == 0 {
						t.Fatalf("add %s: no partition values", a.Add.Path)
					}
				case a.Remove != nil:
					removes++
				case a.Txn != nil:
					txn++
				case a.Metadata != nil:
					meta++
				case a.Protocol != nil:
					proto++
				}
			}
			if adds != tc.adds || removes != tc.removes || withDV != tc.withDV || txn != tc.txn || meta != 1 || proto != 1 {
				t.Fatalf("%d adds (%d with a DV), %d removes, %d txn, %d metaData, %d protocol; want %d (%d), %d, %d, 1, 1",
					adds, withDV, removes, txn, meta, proto, tc.adds, tc.withDV, tc.removes, tc.txn)
			}
		})
	}
}

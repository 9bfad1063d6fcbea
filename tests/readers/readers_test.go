// Package readers proves that Delta tables written by Tributary are read
// correctly by independent engines: delta-rs (Python deltalake), DuckDB's
// delta extension (delta-kernel-rs) and Apache Spark with delta-spark. The
// test builds the real CLI, ingests generated
// NDJSON (every type the JSON path writes, rescued values, several runs and
// batches) with inferColumnTypes true and false, and into a table
// partitioned by Hive-style source directories (cloudFiles.partitionColumns),
// then compares what each engine reads — rows, schema, partition columns and
// file layout, history, streaming txn, per-file stats, and stats-based file
// skipping and partition pruning — with rows computed from the input.
package readers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	pathpkg "path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// record builds input record i (1-based). Every third record starts a new
// file; features rotate with i so each file mixes them.
func record(i int) obj {
	names := []string{
		`Ann "A" Ünï`, "", `back\slash`, "emoji 😀 end",
		strings.Repeat("x", 31) + "é and then more than 32 UTF-16 units",
		strings.Repeat("a", 40), "tab\tnew\nline", "late", "",
	}
	scores := []num{"1.5", "-0.25", "1e10", "2", "0.1", "3.25", "-7.5", "100", "6.02e23"}
	r := obj{{"id", num(strconv.Itoa(i))}}
	r = append(r, kv{"score", scores[(i-1)%len(scores)]})
	if i%3 == 0 {
		r = append(r, kv{"active", nil})
	} else {
		r = append(r, kv{"active", i%2 == 0})
	}
	if i != 9 {
		r = append(r, kv{"name", names[(i-1)%len(names)]})
	}
	switch i % 4 {
	case 0:
		r = append(r, kv{"user", nil})
	case 1:
		r = append(r, kv{"user", obj{{"city", "Oslo " + strconv.Itoa(i)}, {"zip", num(strconv.Itoa(100 + i))},
			{"geo", obj{{"lat", num(fmt.Sprintf("59.%d", i))}, {"lon", num("-10.75")}}}}})
	case 2:
		r = append(r, kv{"user", obj{{"city", nil}, {"zip", nil}, {"geo", nil}}})
	case 3:
		r = append(r, kv{"user", obj{{"geo", obj{{"lon", num("0.5")}}}, {"city", "Bergen"}}})
	}
	switch i % 3 {
	case 0:
		r = append(r, kv{"tags", []any{}})
	case 1:
		r = append(r, kv{"tags", []any{"a", nil, "b" + strconv.Itoa(i)}})
	case 2:
		r = append(r, kv{"tags", nil})
	}
	switch {
	case i%2 == 0:
		r = append(r, kv{"items", []any{obj{{"sku", "s" + strconv.Itoa(i)}, {"qty", num(strconv.Itoa(i))}}, obj{{"sku", nil}, {"qty", nil}}}})
	case i%3 == 0:
		r = append(r, kv{"items", []any{}})
	default:
		r = append(r, kv{"items", []any{obj{{"sku", "only"}}, nil}})
	}
	if i != 9 {
		r = append(r, kv{"empty", []any{}})
	}
	switch {
	case i == 7:
		r = append(r, kv{"big", "nope"}) // a string in a decimal column
	case i%2 == 1:
		r = append(r, kv{"big", num("12345678901234567890123456789" + strconv.Itoa(i))})
	default:
		r = append(r, kv{"big", num(strconv.Itoa(-i))})
	}
	if i == 9 {
		r = append(r, kv{"count", "12"}) // a string in a long column
	} else {
		r = append(r, kv{"count", num(strconv.Itoa(i * 1000))})
	}
	if i == 8 { // a column no earlier file had, and a double receiving a string
		r = append(r, kv{"extra", obj{{"k", []any{num("1"), num("2")}}, {"v", nil}}})
		r[1] = kv{"score", "high"}
	}
	if i == 9 { // unknown fields whose value is null are not rescued
		r = append(r, kv{"extra2", nil})
	}
	return r
}

func fileName(f int) string { return fmt.Sprintf("f%d.json", f) }

// typedSchema is the schema Spark's JSON inference gives the first files.
func typedSchema() []dfield {
	return []dfield{
		field("active", prim("boolean")),
		field("big", prim("decimal(30,0)")),
		field("count", prim("long")),
		field("empty", arrayOf(prim("string"))),
		field("id", prim("long")),
		field("items", arrayOf(structOf(field("qty", prim("long")), field("sku", prim("string"))))),
		field("name", prim("string")),
		field("score", prim("double")),
		field("tags", arrayOf(prim("string"))),
		field("user", structOf(
			field("city", prim("string")),
			field("geo", structOf(field("lat", prim("double")), field("lon", prim("double")))),
			field("zip", prim("long")))),
		field(rescuedColumn, prim("string")),
	}
}

// stringSchema is the inferColumnTypes=false schema: every column a string.
func stringSchema() []dfield {
	var fs []dfield
	for _, f := range typedSchema() {
		fs = append(fs, field(f.name, prim("string")))
	}
	return fs
}

// scenario is one table written by the CLI: records 1..records, in files
// of perFile records, one file per batch; the first firstRun files are
// ingested (and fix the schema) before the others arrive.
type scenario struct {
	name                       string
	typed                      bool
	records, perFile, firstRun int
	schema                     []dfield
	probes                     []string    // top-level columns probed by equality on every row
	extraProbes                []probeSpec // further probes (matching no row, or any)
	checkpoint                 string      // a checkpoint file the log must hold, if any

	// partitionBy is cloudFiles.partitionColumns: the last columns of
	// schema, read from the source directories, not from the records.
	partitionBy []string
	// dirs holds the partitioned source directories: file f is written
	// into dirs[(f-1) % len(dirs)].
	dirs []partDir
	// unpartitioned is a source directory lacking a partition: one more
	// file, written with the later files, goes there and must be skipped.
	unpartitioned string
	// edit, if set, changes generated record i.
	edit func(i int, r obj) obj
}

// partDir is a Hive-style source directory of a partitioned scenario.
type partDir struct {
	src    string   // the source directory as written, %-escaped like Hive
	values []string // the partition values it stands for, by partitionBy column
	table  string   // the table directory its data files must sit in
}

// dataSchema is the schema without the partition columns: what the records
// are matched against.
func (sc scenario) dataSchema() []dfield {
	var fs []dfield
	for _, f := range sc.schema {
		if !slices.Contains(sc.partitionBy, f.name) {
			fs = append(fs, f)
		}
	}
	return fs
}

// skippedRecord is the id of the record in a scenario's unpartitioned file.
const skippedRecord = 1000

// partitionedScenario writes the typed records into Hive-style date=/city=
// directories: values that are %-escaped in the source (unicode, '/', '=',
// ':' and '%'), raw unicode, three dates, two files in one partition, a file
// without a city directory, and records carrying JSON fields named like the
// partition columns (the path's value wins; the JSON value is rescued).
func partitionedScenario() scenario {
	schema := append(typedSchema(), field("date", prim("string")), field("city", prim("string")))
	return scenario{name: "partitioned", typed: true, records: 12, perFile: 2, firstRun: 3, schema: schema,
		probes: []string{"date", "city", "id", rescuedColumn},
		extraProbes: []probeSpec{
			{Column: "city", Value: "a%2Fb"},          // the escaped directory text is not the value
			{Column: "city", Value: "S%C3%A3o Paulo"}, // nor is the source's escaping
			{Column: "city", Value: "São"},            // equality, not a prefix match
			{Column: "date", Value: "1999-12-31"},     // the rescued JSON date
			{Column: "date", Value: "2024-01-02"},
		},
		partitionBy: []string{"date", "city"},
		dirs: []partDir{
			{src: "date=2024-01-01/city=Oslo", values: []string{"2024-01-01", "Oslo"}, table: "date=2024-01-01/city=Oslo"},
			{src: "date=2024-01-01/city=S%C3%A3o Paulo", values: []string{"2024-01-01", "São Paulo"}, table: "date=2024-01-01/city=São Paulo"},
			{src: "date=2024-01-02/city=a%2Fb", values: []string{"2024-01-02", "a/b"}, table: "date=2024-01-02/city=a%2Fb"},
			{src: "date=2024-01-02/city=Zürich", values: []string{"2024-01-02", "Zürich"}, table: "date=2024-01-02/city=Zürich"},
			{src: "date=2024-01-03/city=x%3Dy:z%25", values: []string{"2024-01-03", "x=y:z%"}, table: "date=2024-01-03/city=x%3Dy%3Az%25"},
		},
		unpartitioned: "date=2024-01-02",
		edit: func(i int, r obj) obj {
			switch i {
			case 4: // seen by schema inference: still not a data column
				r = append(r, kv{"date", "1999-12-31"})
			case 11:
				r = append(r, kv{"city", num("7")})
			}
			return r
		},
	}
}

func scenarios() []scenario {
	return []scenario{
		{name: "typed", typed: true, records: 9, perFile: 3, firstRun: 2, schema: typedSchema(),
			probes: []string{"id", "count", "score", "name", rescuedColumn}},
		{name: "strings", typed: false, records: 9, perFile: 3, firstRun: 2, schema: stringSchema(),
			probes: []string{"id", "score", "name", rescuedColumn}},
		// 12 commits: the log gets a Parquet checkpoint at version 10, which
		// the engines then load the snapshot from.
		{name: "checkpointed", typed: true, records: 12, perFile: 1, firstRun: 6, schema: typedSchema(),
			probes: []string{"id", "name"}, checkpoint: "00000000000000000010.checkpoint.parquet"},
		partitionedScenario(),
	}
}

// table is a written table and its expected content.
type table struct {
	sc        scenario
	path      string
	batches   int                       // commits: one per input file
	dataFiles int                       // one per input file that is not skipped
	rows      map[string]map[string]any // by key text
	tableDirs map[string]string         // the table directory of each row's data file ("" at the root)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found from tests/readers: %v", err)
	}
	return root
}

func buildCLI(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tributary")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/tributary")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/tributary: %v\n%s", err, out)
	}
	return bin
}

// writeTable ingests the generated files in two CLI runs (the later files
// arrive after the schema is fixed), one file per batch.
func writeTable(t *testing.T, bin string, sc scenario) *table {
	t.Helper()
	dir := t.TempDir()
	src, tbl, ckpt := filepath.Join(dir, "src"), filepath.Join(dir, "table"), filepath.Join(dir, "checkpoint")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	absSrc, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	files := (sc.records + sc.perFile - 1) / sc.perFile
	tb := &table{sc: sc, path: tbl, batches: files, dataFiles: files,
		rows: map[string]map[string]any{}, tableDirs: map[string]string{}}
	write := func(rel, data string) {
		full := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile := func(f int) {
		rel, part := fileName(f), partDir{}
		if len(sc.dirs) > 0 {
			part = sc.dirs[(f-1)%len(sc.dirs)]
			rel = part.src + "/" + rel
		}
		var b strings.Builder
		for i := (f-1)*sc.perFile + 1; i <= min(f*sc.perFile, sc.records); i++ {
			rec := record(i)
			if sc.edit != nil {
				rec = sc.edit(i, rec)
			}
			b.WriteString(text(rec) + "\n")
			// Auto Loader records the file's full path in _file_path.
			row := expectRow(rec, sc.dataSchema(), filepath.Join(absSrc, filepath.FromSlash(rel)))
			for j, c := range sc.partitionBy {
				row[c] = part.values[j]
			}
			k := keyText(row["id"])
			tb.rows[k], tb.tableDirs[k] = row, part.table
		}
		write(rel, b.String())
	}
	var options []string
	if len(sc.partitionBy) > 0 {
		options = append(options, "--option", "cloudFiles.partitionColumns="+strings.Join(sc.partitionBy, ","))
	}
	run := func() {
		args := append([]string{"run", "--quiet", "--source", src, "--table", tbl, "--checkpoint", ckpt,
			"--option", "cloudFiles.format=json",
			"--option", "cloudFiles.inferColumnTypes=" + strconv.FormatBool(sc.typed),
			"--option", "cloudFiles.schemaEvolutionMode=rescue",
			"--option", "cloudFiles.maxFilesPerTrigger=1"}, options...)
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: tributary run: %v\n%s", sc.name, err, out)
		}
	}
	skipped := ""
	for f := 1; f <= files; f++ {
		writeFile(f)
		if f == sc.firstRun {
			run()
			if sc.unpartitioned != "" {
				// Its record would be a row like any other: it must not be one.
				skipped = sc.unpartitioned + "/skipped.json"
				write(skipped, text(record(skippedRecord))+"\n")
				tb.batches++
			}
		}
	}
	run()
	checkSkipped(t, bin, sc.name, ckpt, skipped)
	if sc.checkpoint != "" {
		for _, name := range []string{sc.checkpoint, "_last_checkpoint"} {
			if _, err := os.Stat(filepath.Join(tbl, "_delta_log", name)); err != nil {
				t.Fatalf("%s: after %d commits the log holds no %s (delta.checkpointInterval 10): %v", sc.name, files, name, err)
			}
		}
	}
	return tb
}

// checkSkipped checks that `tributary state` lists exactly the file
// (relative to the source; "" for none) as SKIPPED.
func checkSkipped(t *testing.T, bin, name, ckpt, want string) {
	t.Helper()
	out, err := exec.Command(bin, "state", ckpt, "--state", "SKIPPED", "--format", "json").Output()
	if err != nil {
		t.Fatalf("%s: tributary state: %v", name, err)
	}
	var rows []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("%s: tributary state --format json: %v\n%s", name, err, out)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Path)
	}
	if want == "" && len(got) != 0 || want != "" && (len(got) != 1 || got[0] != want) {
		t.Fatalf("%s: tributary state lists SKIPPED files %q, want [%s]", name, got, want)
	}
}

// keyText is a row key as text, whichever type the id column has.
func keyText(v any) string {
	switch x := v.(type) {
	case *big.Rat:
		return x.RatString()
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// probeValue is the JSON literal compared with column c of a row, or false:
// a double column gets a JSON number that Python reads as a float.
func probeValue(sc scenario, row map[string]any, c string) (any, bool) {
	switch x := row[c].(type) {
	case string:
		return x, true
	case *big.Rat:
		if structOf(sc.schema...).fieldType(c).prim != "double" {
			return json.Number(x.RatString()), true
		}
		f, _ := x.Float64()
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return json.Number(s), true
	}
	return nil, false
}

type probeSpec struct {
	Column string `json:"column"`
	Value  any    `json:"value"`
}

type tableSpec struct {
	Path   string      `json:"path"`
	Key    string      `json:"key"`
	Probes []probeSpec `json:"probes"`
}

type readSpec struct {
	Tables  []tableSpec  `json:"tables"`
	Digests []digestSpec `json:"digests,omitempty"`
	Ivy     string       `json:"ivy"`
}

// fileOut is one data file as deltalake reports it: its add-action path
// (URI-decoded, relative to the table), partition values and stats, and the
// keys of the rows that pyarrow reads from the file.
type fileOut struct {
	Path            string         `json:"path"`
	Keys            []any          `json:"keys"`
	PartitionValues map[string]any `json:"partitionValues"`
	Stats           map[string]any `json:"stats"`
}

// engineOut is read_delta.py's output.
type engineOut struct {
	Engine  string      `json:"engine"`
	Digests []digestOut `json:"digests"`
	Tables  []struct {
		Path     string `json:"path"`
		Version  *int64 `json:"version"`
		NumFiles *int   `json:"numFiles"`
		Schema   []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"schema"`
		PartitionColumns []string `json:"partitionColumns"`
		// Error is what an engine said when it refused to read the
		// table's data (deltalake and the typeWidening feature).
		Error         string                      `json:"error"`
		TableFeatures []string                    `json:"tableFeatures"`
		Properties    map[string]string           `json:"properties"`
		TypeChanges   map[string][]map[string]any `json:"typeChanges"`
		Rows          []map[string]any            `json:"rows"`
		History       []historyOut                `json:"history"`
		Txn           map[string]int64            `json:"txn"`
		Files         []fileOut                   `json:"files"`
		Probes        []struct {
			Column string `json:"column"`
			Value  any    `json:"value"`
			Keys   []any  `json:"keys"`
		} `json:"probes"`
	} `json:"tables"`
}

// envBin runs one of the repository's env scripts and returns the bin dir it prints.
func envBin(root, script string) (string, error) {
	cmd := exec.Command("bash", filepath.Join(root, "scripts", script))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/%s: %v\n%s", script, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// readWith runs read_delta.py with the engine's Python on all tables.
func readWith(t *testing.T, root, python, engine string, spec readSpec) *engineOut {
	t.Helper()
	dir := t.TempDir()
	specPath, outPath := filepath.Join(dir, "spec.json"), filepath.Join(dir, "out.json")
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, filepath.Join(root, "tests", "readers", "read_delta.py"), engine, specPath, outPath)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s reader failed: %v\n%s", engine, err, tail(stderr.String(), 6000))
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var out engineOut
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s output: %v", engine, err)
	}
	if len(out.Tables) != len(spec.Tables) {
		t.Fatalf("%s read %d tables, want %d", engine, len(out.Tables), len(spec.Tables))
	}
	return &out
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// normalize turns decoded engine JSON into the expected model: numbers as
// exact rationals, objects as maps.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		r, ok := ratOf(x.String())
		if !ok {
			return "bad number " + x.String()
		}
		return r
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalize(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *big.Rat:
		return x.RatString()
	case string:
		return strconv.Quote(x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + show(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// diff lists where got differs from want, by path.
func diff(path string, want, got any) []string {
	mismatch := []string{fmt.Sprintf("%s: want %s, got %s", path, show(want), show(got))}
	switch w := want.(type) {
	case nil:
		if got != nil {
			return mismatch
		}
	case *big.Rat:
		g, ok := got.(*big.Rat)
		if s, isStr := got.(string); isStr { // decimals come as text; the schema check pins the type
			g, ok = ratOf(s)
		}
		if !ok || g.Cmp(w) != 0 {
			return mismatch
		}
	case string, bool:
		if got != want {
			return mismatch
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return mismatch
		}
		var out []string
		for _, k := range sortedKeys(w, g) {
			_, inW := w[k]
			_, inG := g[k]
			if !inW || !inG {
				out = append(out, fmt.Sprintf("%s.%s: present in want %v, in got %v", path, k, inW, inG))
				continue
			}
			out = append(out, diff(path+"."+k, w[k], g[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return mismatch
		}
		var out []string
		for i := range w {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		return []string{fmt.Sprintf("%s: unexpected want %T", path, want)}
	}
	return nil
}

func sortedKeys(a, b map[string]any) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// engineSpec is one reader engine: the env script that prepares its Python,
// and what it reports beyond rows, schema and probes.
type engineSpec struct {
	name, script                 string
	history, files, partitionCol bool
}

func engines() []engineSpec {
	return []engineSpec{
		{name: "deltalake", script: "pyenv.sh", history: true, files: true, partitionCol: true},
		{name: "duckdb", script: "pyenv.sh"},
		{name: "spark", script: "spark-env.sh", history: true, files: true, partitionCol: true},
	}
}

// TestEnginesReadTributaryTables writes the scenarios' tables with the CLI
// and checks them with every engine.
func TestEnginesReadTributaryTables(t *testing.T) {
	root := repoRoot(t)
	bin := buildCLI(t, root)
	var tables []*table
	spec := readSpec{Ivy: filepath.Join(root, ".cache", "ivy")}
	for _, sc := range scenarios() {
		tb := writeTable(t, bin, sc)
		tables = append(tables, tb)
		ts := tableSpec{Path: tb.path, Key: "id"}
		probed := map[string]bool{} // each column = value once
		for _, k := range sortedRowKeys(tb.rows) {
			for _, c := range sc.probes {
				if v, ok := probeValue(sc, tb.rows[k], c); ok && !probed[c+"="+show(normalize(v))] {
					probed[c+"="+show(normalize(v))] = true
					ts.Probes = append(ts.Probes, probeSpec{Column: c, Value: v})
				}
			}
		}
		ts.Probes = append(ts.Probes, sc.extraProbes...)
		spec.Tables = append(spec.Tables, ts)
	}
	// A 64 MB string value, read by every engine (and pyarrow) in the same
	// sessions: lengths and checksums only.
	large := writeLargeTable(t, bin)
	spec.Digests = append(spec.Digests, digestSpec{Path: large.path, Key: "id", Column: "s"})

	for _, e := range engines() {
		var mu sync.Mutex // env scripts may install: one at a time
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			mu.Lock()
			bin, err := envBin(root, e.script)
			mu.Unlock()
			if err != nil {
				t.Fatalf("preparing the %s Python environment: %v", e.name, err)
			}
			out := readWith(t, root, filepath.Join(bin, "python"), e.name, spec)
			t.Logf("engine: %s", out.Engine)
			checkDigests(t, e.name, large, out.Digests)
			for i, tb := range tables {
				t.Run(tb.sc.name, func(t *testing.T) {
					checkTable(t, e, out.Engine, tb, i, out)
				})
			}
		})
	}
}

func sortedRowKeys(m map[string]map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.Atoi(keys[i])
		b, _ := strconv.Atoi(keys[j])
		return a < b
	})
	return keys
}

func checkTable(t *testing.T, e engineSpec, engine string, tb *table, idx int, out *engineOut) {
	got := out.Tables[idx]
	engine = fmt.Sprintf("%s, table %s", engine, tb.sc.name) // every message names both
	if got.Path != tb.path {
		t.Fatalf("%s: table %d is %s, want %s", engine, idx, got.Path, tb.path)
	}

	// Schema.
	var gotCols, wantCols []string
	for _, c := range got.Schema {
		gotCols = append(gotCols, c.Name+" "+c.Type)
	}
	for _, f := range tb.sc.schema {
		wantCols = append(wantCols, f.name+" "+f.t.String())
	}
	if strings.Join(gotCols, ", ") != strings.Join(wantCols, ", ") {
		t.Errorf("%s: schema:\n got  %s\n want %s", engine, strings.Join(gotCols, ", "), strings.Join(wantCols, ", "))
	}
	if e.partitionCol && !slices.Equal(got.PartitionColumns, tb.sc.partitionBy) {
		t.Errorf("%s: partitionColumns %q, want %q", engine, got.PartitionColumns, tb.sc.partitionBy)
	}

	// Rows, by id.
	seen := map[string]bool{}
	for _, r := range got.Rows {
		row := normalize(map[string]any(r)).(map[string]any)
		k := keyText(row["id"])
		want, ok := tb.rows[k]
		if !ok || seen[k] {
			t.Errorf("%s: unexpected or duplicate row id=%s: %s", engine, k, show(row))
			continue
		}
		seen[k] = true
		for _, c := range sortedKeys(want, row) {
			if _, in := row[c]; !in {
				t.Errorf("%s: row id=%s: column %s missing", engine, k, c)
				continue
			}
			if _, in := want[c]; !in {
				t.Errorf("%s: row id=%s: unexpected column %s", engine, k, c)
				continue
			}
			if c == rescuedColumn {
				// Exact text, _file_path included (the full path, as Databricks writes it).
				if want[c] != row[c] {
					t.Errorf("%s: row id=%s column %s: want %s, got %s", engine, k, c, show(want[c]), show(row[c]))
				}
				continue
			}
			for _, d := range diff(c, want[c], row[c]) {
				t.Errorf("%s: row id=%s column %s", engine, k, d)
			}
		}
	}
	for _, k := range sortedRowKeys(tb.rows) {
		if !seen[k] {
			t.Errorf("%s: row id=%s missing", engine, k)
		}
	}

	// History: one STREAMING UPDATE commit per batch, epochs 0..n-1 of one
	// query, whose txn version is the last epoch.
	if e.history {
		checkHistory(t, engine, tb, got.Version, got.History, got.Txn)
	}

	// Files and stats (engines that report them).
	if e.files && got.NumFiles == nil && got.Files == nil {
		t.Errorf("%s reported no data files", engine)
	}
	if got.NumFiles != nil && *got.NumFiles != tb.dataFiles {
		t.Errorf("%s: %d data files, want %d (one per input file ingested)", engine, *got.NumFiles, tb.dataFiles)
	}
	if got.Files != nil {
		checkStats(t, engine, tb, got.Files)
	}

	// Equality probes: file skipping on stats must never drop a matching row.
	if len(got.Probes) == 0 {
		t.Errorf("%s ran no probe", engine)
	}
	for _, p := range got.Probes {
		var wantKeys []string
		pv := normalize(p.Value)
		for _, k := range sortedRowKeys(tb.rows) {
			if v, ok := probeValue(tb.sc, tb.rows[k], p.Column); ok && diff("", normalize(v), pv) == nil {
				wantKeys = append(wantKeys, k)
			}
		}
		var gotKeys []string
		for _, k := range p.Keys {
			gotKeys = append(gotKeys, keyText(normalize(k)))
		}
		sort.Strings(gotKeys)
		sort.Strings(wantKeys)
		if strings.Join(gotKeys, ",") != strings.Join(wantKeys, ",") {
			t.Errorf("%s: WHERE %s = %s returned rows id=[%s], want id=[%s]", engine, p.Column, show(pv),
				strings.Join(gotKeys, ","), strings.Join(wantKeys, ","))
		}
	}
}

// historyOut is one commit of an engine's table history.
type historyOut = struct {
	Version             int64             `json:"version"`
	Operation           string            `json:"operation"`
	OperationParameters map[string]string `json:"operationParameters"`
}

func checkHistory(t *testing.T, engine string, tb *table, version *int64, history []historyOut, txn map[string]int64) {
	t.Helper()
	if version == nil {
		t.Errorf("%s reported no table version", engine)
	} else if *version != int64(tb.batches-1) {
		t.Errorf("%s: table version %d, want %d (one commit per batch)", engine, *version, tb.batches-1)
	}
	if len(history) != tb.batches {
		t.Errorf("%s: history has %d commits, want %d", engine, len(history), tb.batches)
	}
	queries := map[string]bool{}
	epochs := map[string]bool{}
	for _, h := range history {
		if h.Operation != "STREAMING UPDATE" {
			t.Errorf("%s: history version %d: operation %q, want STREAMING UPDATE", engine, h.Version, h.Operation)
		}
		if m := h.OperationParameters["outputMode"]; m != "Append" {
			t.Errorf("%s: history version %d: outputMode %q, want Append", engine, h.Version, m)
		}
		queries[h.OperationParameters["queryId"]] = true
		epochs[h.OperationParameters["epochId"]] = true
	}
	for e := 0; e < tb.batches; e++ {
		if !epochs[strconv.Itoa(e)] {
			t.Errorf("%s: no commit for epochId %d in history", engine, e)
		}
	}
	if len(queries) != 1 {
		t.Errorf("%s: history names %d query ids, want 1: %v", engine, len(queries), queries)
	}
	for q := range queries {
		if v, ok := txn[q]; !ok || v != int64(tb.batches-1) {
			t.Errorf("%s: txn for appId %s is %d (present %v), want %d", engine, q, v, ok, tb.batches-1)
		}
	}
}

// checkStats compares every file's add-action stats with the rows the file
// holds (read from the Parquet file itself).
func checkStats(t *testing.T, engine string, tb *table, files []fileOut) {
	if len(files) != tb.dataFiles {
		t.Errorf("%s: %d data files, want %d (one per input file ingested)", engine, len(files), tb.dataFiles)
	}
	schema := structOf(tb.sc.schema...)
	seen := map[string]bool{}
	for _, f := range files {
		var rows []map[string]any
		for _, k := range f.Keys {
			key := keyText(normalize(k))
			if seen[key] {
				t.Errorf("%s: row id=%s is in more than one data file (%s)", engine, key, f.Path)
			}
			seen[key] = true
			rows = append(rows, tb.rows[key])
			checkFilePartition(t, engine, tb, f, key)
		}
		for _, name := range sortedKeys(f.Stats, nil) {
			stat := normalize(f.Stats[name])
			where := fmt.Sprintf("%s: file %s stats %s", engine, f.Path, name)
			if name == "num_records" {
				if r, ok := stat.(*big.Rat); !ok || r.Cmp(big.NewRat(int64(len(rows)), 1)) != 0 {
					t.Errorf("%s = %s, want %d", where, show(stat), len(rows))
				}
				continue
			}
			kind, path, _ := strings.Cut(name, ".")
			colType := schema
			for _, seg := range strings.Split(path, ".") {
				if colType = colType.fieldType(seg); colType == nil {
					break
				}
			}
			if colType == nil {
				t.Errorf("%s: no such column", where)
				continue
			}
			var vals []any
			nulls := 0
			for _, r := range rows {
				v := valueAt(r, path)
				if v == nil {
					nulls++
				} else {
					vals = append(vals, v)
				}
			}
			switch kind {
			case "null_count":
				if stat == nil {
					continue // not collected
				}
				if r, ok := stat.(*big.Rat); !ok || r.Cmp(big.NewRat(int64(nulls), 1)) != 0 {
					t.Errorf("%s = %s, want %d", where, show(stat), nulls)
				}
			case "min", "max":
				if stat == nil {
					continue // not collected (optional in Delta)
				}
				if len(vals) == 0 {
					t.Errorf("%s = %s, but every value is null", where, show(stat))
					continue
				}
				checkBound(t, where, kind == "max", colType, vals, stat)
			default:
				t.Errorf("%s: unknown statistic", where)
			}
		}
	}
	for k := range tb.rows {
		if !seen[k] {
			t.Errorf("%s: row id=%s is in no data file", engine, k)
		}
	}
}

// checkFilePartition checks that the data file holding row key sits in the
// row's table directory with the row's partition values.
func checkFilePartition(t *testing.T, engine string, tb *table, f fileOut, key string) {
	t.Helper()
	dir, _ := pathpkg.Split(f.Path)
	if want := tb.tableDirs[key]; strings.TrimSuffix(dir, "/") != want {
		t.Errorf("%s: row id=%s: data file %s is in directory %q, want %q", engine, key, f.Path, dir, want)
	}
	want := map[string]any{}
	for _, c := range tb.sc.partitionBy {
		want[c] = tb.rows[key][c]
	}
	for _, d := range diff("partitionValues", want, normalize(f.PartitionValues)) {
		t.Errorf("%s: row id=%s: data file %s %s", engine, key, f.Path, d)
	}
}

// valueAt is the value at a dotted path; null when any parent is null.
func valueAt(row map[string]any, path string) any {
	var v any = row
	for _, seg := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[seg]
	}
	return v
}

// checkBound checks a min or max statistic: exact, except for strings longer
// than the stats prefix, where it only has to bound the values (delta-spark
// truncates min to a prefix and gives max a tie-breaker suffix).
func checkBound(t *testing.T, where string, isMax bool, ct *dtype, vals []any, stat any) {
	t.Helper()
	if ct.prim == "string" {
		want := vals[0].(string)
		for _, v := range vals[1:] {
			s := v.(string)
			if (isMax && s > want) || (!isMax && s < want) {
				want = s
			}
		}
		got, ok := stat.(string)
		if !ok {
			t.Errorf("%s = %s, want a string", where, show(stat))
			return
		}
		if utf16Len(want) <= statsPrefix {
			if got != want {
				t.Errorf("%s = %q, want %q", where, got, want)
			}
			return
		}
		if (isMax && got < want) || (!isMax && got > want) {
			t.Errorf("%s = %q does not bound the true value %q (the stat must be %s)", where, got, want,
				map[bool]string{true: ">= it", false: "<= it"}[isMax])
		}
		return
	}
	var want *big.Rat
	for _, v := range vals {
		r, ok := v.(*big.Rat)
		if !ok {
			t.Errorf("%s: statistic on a non-numeric column %s", where, ct)
			return
		}
		if want == nil || (isMax && r.Cmp(want) > 0) || (!isMax && r.Cmp(want) < 0) {
			want = r
		}
	}
	got, ok := stat.(*big.Rat)
	if !ok {
		if s, isStr := stat.(string); isStr { // decimals come as text
			got, ok = ratOf(s)
		}
	}
	if !ok || got.Cmp(want) != 0 {
		t.Errorf("%s = %s, want %s", where, show(stat), want.RatString())
	}
}

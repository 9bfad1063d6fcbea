package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seedEnv names the environment variable that replays a run's kill timing.
const seedEnv = "TRIBUTARY_CHAOS_SEED"

const (
	streamID           = "chaos"
	maxFilesPerTrigger = 2
	// minKills is how many kills must land mid-run (the process still
	// running, the table not yet holding every row) per variant.
	minKills = 20
	// maxKills ends the killing early; the stream then runs to completion.
	maxKills = 80
	// maxAttempts bounds the killed runs of one variant.
	maxAttempts = 400
	// schemaEvolvedText is ingest.ErrSchemaEvolved's message: the run that
	// meets a new column under addNewColumns stops with it (exit code 1).
	schemaEvolvedText = "new columns found: schema evolved"
)

// variant is one way of running the stream.
type variant struct {
	name string
	// move: cloudFiles.cleanSource=MOVE to a destination outside the
	// source, with pathGlobFilter=*.json* leaving out one file and
	// ignoreCorruptFiles=true skipping a corrupt one: both must stay where
	// they are.
	move bool
	// newColumnFrom: files from this number on carry the column "extra";
	// they arrive only after the first schema is inferred (0: none).
	newColumnFrom int
}

// TestChaos SIGKILLs the real CLI at random moments while it ingests, then
// runs it to completion and checks with delta-rs that every row landed
// exactly once (see the package doc).
func TestChaos(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv(seedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: want an integer", seedEnv, s)
		}
	}
	t.Logf("seed %d (replay the kill timing with %s=%d)", seed, seedEnv, seed)
	bin, root := buildCLI(t)
	python := pythonBin(t, root)
	variants := []variant{
		{name: "plain"},
		{name: "cleanSource=MOVE", move: true},
		{name: "new column mid-stream", newColumnFrom: 53},
	}
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			c := newChaos(t, v, seed, uint64(i), bin)
			started := time.Now()
			c.killPhase()
			c.finishPhase()
			c.check(python, filepath.Join(root, "tests", "chaos", "testdata", "read_table.py"))
			t.Logf("%s: %d mid-run kills (%d before the run's first commit, %d leaving a sealed plan uncommitted), "+
				"%d kills after the table was complete, %d runs ended by themselves, %d schema-evolution stops (%d killed first), "+
				"%d batches; left behind: temporary files %v, %d uncommitted data files; %s",
				v.name, c.stats.midRun, c.stats.beforeCommit, c.stats.planUncommitted, c.stats.late, c.stats.completed,
				c.stats.evolved, c.stats.evolvedKilled, len(c.log.commits), c.temps, c.orphans, time.Since(started).Round(time.Millisecond))
		})
	}
}

// pythonBin returns the pinned venv's python (scripts/pyenv.sh).
func pythonBin(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "pyenv.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/pyenv.sh: %v\n%s", err, stderr.String())
	}
	return filepath.Join(strings.TrimSpace(string(out)), "python")
}

// chaos is one variant's run.
type chaos struct {
	t                               *testing.T
	v                               variant
	seed                            int64
	rng                             *rand.Rand
	bin                             string
	src, table, ckpt, dest, staging string
	pending                         []inputFile // files still to arrive, in order
	arrived                         []inputFile // files in (or moved out of) the source
	log                             *deltaLog
	stats                           killStats
	temps                           map[string]int // temporary files left by killed writers, by directory
	orphans                         int            // data files of batches killed before their commit
	// startEst and batchEst estimate how long a run takes to print its
	// first batch line, and then each further one.
	startEst, batchEst time.Duration
}

// killStats counts how the runs of the kill phase ended.
type killStats struct {
	midRun          int // SIGKILLed while the table lacked rows: the kills that count
	beforeCommit    int // ... of which before that run's first commit
	planUncommitted int // ... of which leaving the next batch's plan sealed but not committed
	late            int // SIGKILLed when the table was already complete
	completed       int // exited 0 by themselves
	evolved         int // stopped (exit code 1) by a schema change
	evolvedKilled   int // killed after adding a schema version, before stopping for it
}

func newChaos(t *testing.T, v variant, seed int64, stream uint64, bin string) *chaos {
	dir := t.TempDir()
	c := &chaos{t: t, v: v, seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), stream)), bin: bin,
		src: filepath.Join(dir, "src"), table: filepath.Join(dir, "table"), ckpt: filepath.Join(dir, "checkpoint"),
		dest: filepath.Join(dir, "moved"), staging: filepath.Join(dir, "staging")}
	c.log = &deltaLog{dir: c.table}
	c.startEst, c.batchEst = 50*time.Millisecond, 10*time.Millisecond
	for _, d := range []string{c.src, c.staging} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for n := 1; n <= numFiles; n++ {
		c.pending = append(c.pending, makeFile(t, n, v.newColumnFrom))
	}
	if v.move {
		c.pending = slices.Insert(c.pending, firstFiles/2, ignoredFile(), corruptFile())
	}
	return c
}

// fatalf fails the variant, naming the seed that replays it.
func (c *chaos) fatalf(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("%s (seed %d, %s=%d): %s", c.v.name, c.seed, seedEnv, c.seed, fmt.Sprintf(format, args...))
}

func (c *chaos) args() []string {
	a := []string{"run", "--source", c.src, "--table", c.table, "--checkpoint", c.ckpt, "--stream", streamID,
		"--option", "cloudFiles.format=json",
		"--option", "cloudFiles.maxFilesPerTrigger=" + strconv.Itoa(maxFilesPerTrigger)}
	if c.v.move {
		a = append(a, "--option", "cloudFiles.cleanSource=MOVE",
			"--option", "cloudFiles.cleanSource.moveDestination="+c.dest,
			"--option", "pathGlobFilter=*.json*",
			"--option", "ignoreCorruptFiles=true")
	}
	return a
}

// arrive makes the next n pending files appear in the source.
func (c *chaos) arrive(n int) {
	for ; n > 0 && len(c.pending) > 0; n-- {
		f := c.pending[0]
		c.pending = c.pending[1:]
		place(c.t, c.staging, c.src, f)
		c.arrived = append(c.arrived, f)
	}
}

// nextGroup is how many of the pending files may arrive now: a group,
// but in the new-column variant no file with the new column before the
// first schema has been inferred (so that the column is new to it).
func (c *chaos) nextGroup() int {
	n := min(groupSize, len(c.pending))
	if c.v.newColumnFrom == 0 {
		return n
	}
	if c.schemas() == 0 {
		for i := range n {
			if c.pending[i].num >= c.v.newColumnFrom {
				return i
			}
		}
	}
	return n
}

// expectedRows counts the rows of the files that have arrived.
func (c *chaos) expectedRows() int64 {
	var n int64
	for _, f := range c.arrived {
		n += int64(len(f.rows))
	}
	return n
}

// refresh re-reads the table's log and returns the sealed plan count.
func (c *chaos) refresh() int {
	if err := c.log.refresh(); err != nil {
		c.fatalf("table log: %v", err)
	}
	plans, err := countPlans(c.ckpt)
	if err != nil {
		c.fatalf("checkpoint plans: %v", err)
	}
	if commits := len(c.log.commits); plans != commits && plans != commits+1 {
		c.fatalf("%d sealed plans for %d commits: at most the next batch may be planned and not committed", plans, commits)
	}
	return plans
}

// killPhase runs the stream again and again, SIGKILLing each run at a
// random moment, while the remaining files arrive: every other group is
// placed between two runs, the others while a run is listing and ingesting.
// It ends when every file has arrived and the table holds all rows (or after
// maxKills kills).
func (c *chaos) killPhase() {
	c.arrive(firstFiles + len(c.pending) - numFiles) // and the ignored and corrupt files, if any
	group := 0
	for attempt := 1; ; attempt++ {
		if attempt > maxAttempts {
			c.fatalf("%d runs and the stream is still not complete: %d of %d rows committed (stuck?)",
				maxAttempts, c.log.rows(), c.expectedRows())
		}
		var during func()
		if attempt%2 == 0 && len(c.pending) > 0 {
			if n := c.nextGroup(); n > 0 {
				if group%2 == 0 {
					c.arrive(n)
				} else {
					during = func() { c.arrive(n) }
				}
				group++
			}
		}
		commitsBefore := len(c.log.commits)
		kp := c.killPlan()
		o := c.run(kp, during)
		c.measure(o)
		plans := c.refresh()
		c.t.Logf("run %d: kill after %d batch lines + %s: %s; %d commits, %d plans, %d/%d rows",
			attempt, kp.afterLines, kp.delay, o, len(c.log.commits), plans, c.log.rows(), c.expectedRows())
		complete := c.log.rows() == c.expectedRows()
		switch {
		case o.killed && !complete:
			c.stats.midRun++
			if len(c.log.commits) == commitsBefore {
				c.stats.beforeCommit++
			}
			if plans > len(c.log.commits) {
				c.stats.planUncommitted++
			}
		case o.killed:
			c.stats.late++
		case o.code == 0:
			c.stats.completed++
			if during == nil && !complete {
				// availableNow ingests every file present at the start.
				c.t.Logf("run %d exited 0 with rows missing; checking the table", attempt)
				return
			}
		case o.evolvedStop():
		default:
			c.fatalf("run %d failed: %s", attempt, o)
		}
		if c.log.rows() > c.expectedRows() {
			c.fatalf("the table holds %d rows, more than the %d the source ever had", c.log.rows(), c.expectedRows())
		}
		if len(c.pending) == 0 && (complete || c.stats.midRun >= maxKills) {
			break
		}
	}
	if c.stats.midRun < minKills {
		c.fatalf("only %d kills landed mid-run, want at least %d", c.stats.midRun, minKills)
	}
}

// killPlan draws when to kill the next run: after 0 or 1 batch progress
// lines (0 lands in start-up, listing, registration, the repair of the last
// batch or the first batch; 1 in a later batch), then a random part of the
// time that takes (the start-up and one batch, or one batch) as measured on
// the runs so far, cut short by the next batch line. Scaling by the
// machine's own pace keeps the kills per batch about the same on a fast or
// a loaded machine: a killed run commits about two batches at most.
func (c *chaos) killPlan() killPlan {
	lines := min(c.rng.IntN(3), 1)
	span := c.batchEst
	if lines == 0 {
		span += c.startEst
	}
	return killPlan{afterLines: lines, delay: time.Duration(c.rng.Float64() * float64(span))}
}

// measure updates the pace estimates from a run's progress lines.
func (c *chaos) measure(o outcome) {
	if o.firstBatch > 0 {
		c.startEst = (7*c.startEst + 3*o.firstBatch) / 10
	}
	if o.batchGap > 0 {
		c.batchEst = (7*c.batchEst + 3*o.batchGap) / 10
	}
}

// run runs the CLI once and follows the schema history (CHECKPOINT/_schemas):
// after the first version (the inferred schema), only a run that stops for
// schema evolution (exit code 1) or is killed may add one, and a run that
// stops for it must have added exactly one.
func (c *chaos) run(kp killPlan, during func()) outcome {
	before := c.schemas()
	o := runCLI(c.t, c.bin, c.args(), kp, during)
	after := c.schemas()
	grew := before >= 1 && after > before
	switch {
	case after > before+1:
		c.fatalf("the schema history went from %d to %d versions in one run: %s", before, after, o)
	case o.evolvedStop() && !grew:
		c.fatalf("a run stopped for schema evolution, but the schema history stayed at %d versions: %s", before, o)
	case grew && !o.killed && !o.evolvedStop():
		c.fatalf("the schema history grew to %d versions in a run that did not stop for it: %s", after, o)
	case o.evolvedStop():
		c.stats.evolved++
	case grew:
		c.stats.evolvedKilled++
	}
	return o
}

func (c *chaos) schemas() int {
	n, err := schemaVersions(c.ckpt)
	if err != nil {
		c.fatalf("reading the schema history: %v", err)
	}
	return n
}

// finishPhase runs the stream without kills until a run exits 0 (a
// schema-evolution stop is followed by another run), then once more, which
// must find nothing new.
func (c *chaos) finishPhase() {
	for i := 0; ; i++ {
		o := c.run(killPlan{afterLines: -1}, nil)
		if o.code == 0 {
			break
		}
		if i == 0 && o.evolvedStop() {
			continue
		}
		c.fatalf("run to completion failed: %s", o)
	}
	o := c.run(killPlan{afterLines: -1}, nil)
	if o.code != 0 || !strings.Contains(o.stdout, "nothing new") {
		c.fatalf("a run after completion did not find the table up to date: %s", o)
	}
	c.refresh()
}

// check asserts the end state: the rows delta-rs reads first (a loss or a
// duplicate is named precisely), then the log, plans, file state, source
// and move destination.
func (c *chaos) check(python, script string) {
	commits := c.log.commits
	c.checkRows(python, script, int64(len(commits)-1))
	plans, err := readPlans(c.ckpt)
	if err != nil {
		c.fatalf("checkpoint plans: %v", err)
	}
	if len(plans) != len(commits) || len(commits) == 0 {
		c.fatalf("%d sealed plans for %d commits: want one commit per batch", len(plans), len(commits))
	}
	if min := (numFiles + maxFilesPerTrigger - 1) / maxFilesPerTrigger; len(commits) < min {
		c.fatalf("%d batches for %d files at maxFilesPerTrigger=%d", len(commits), numFiles, maxFilesPerTrigger)
	}
	for _, cm := range commits {
		if len(cm.txns) != 1 || cm.txns[0] != (txnAction{AppID: streamID, Version: cm.version}) {
			c.fatalf("commit %d holds txn %+v, want exactly {appId %s, version %d}", cm.version, cm.txns, streamID, cm.version)
		}
		if cm.epochID != strconv.FormatInt(cm.version, 10) {
			c.fatalf("commit %d has epochId %q", cm.version, cm.epochID)
		}
	}
	if got, want := c.log.rows(), c.expectedRows(); got != want {
		c.fatalf("the log's adds hold %d rows, want %d", got, want)
	}

	// Every file is in exactly one plan, within the limit, and its state
	// says so.
	batchOf := map[string]int64{}
	for _, p := range plans {
		if len(p.Files) == 0 || len(p.Files) > maxFilesPerTrigger {
			c.fatalf("plan %d has %d files (maxFilesPerTrigger %d)", p.BatchID, len(p.Files), maxFilesPerTrigger)
		}
		for _, f := range p.Files {
			if prev, dup := batchOf[f.Path]; dup {
				c.fatalf("file %s is planned in batches %d and %d", f.Path, prev, p.BatchID)
			}
			batchOf[f.Path] = p.BatchID
		}
	}
	files, kept := map[string]inputFile{}, []string{}
	for _, f := range c.arrived {
		b, planned := batchOf[f.name]
		switch {
		case f.ignored && planned:
			c.fatalf("file %s, which pathGlobFilter leaves out, is in batch %d", f.name, b)
		case f.ignored:
			kept = append(kept, f.name)
		case !planned:
			c.fatalf("file %s is in no batch", f.name)
		default:
			files[f.name] = f
		}
	}
	if len(batchOf) != len(files) {
		c.fatalf("%d files planned, %d written", len(batchOf), len(files))
	}
	// The source keeps the files the stream leaves out or skips.
	for name, f := range files {
		if f.corrupt {
			kept = append(kept, name)
		}
	}
	c.checkState(files, batchOf)
	if c.v.move {
		c.checkMoved(files, kept)
	}
	c.countLeftovers()
	// One new column: one schema change, met by exactly one run, which
	// stopped with exit code 1 or was killed before it could.
	wantSchemas, wantEvolutions := 1, 0
	if c.v.newColumnFrom > 0 {
		wantSchemas, wantEvolutions = 2, 1
	}
	if n := c.schemas(); n != wantSchemas {
		c.fatalf("the schema history has %d versions, want %d", n, wantSchemas)
	}
	if got := c.stats.evolved + c.stats.evolvedKilled; got != wantEvolutions {
		c.fatalf("%d runs evolved the schema (%d stopped with exit code 1, %d were killed), want %d",
			got, c.stats.evolved, c.stats.evolvedKilled, wantEvolutions)
	}
}

// stateRow is one row of `tributary state --format json`.
type stateRow struct {
	Path           string `json:"path"`
	IngestionState string `json:"ingestion_state"`
	BatchID        *int64 `json:"batch_id"`
	Error          string `json:"error"`
}

func (c *chaos) checkState(files map[string]inputFile, batchOf map[string]int64) {
	cmd := exec.Command(c.bin, "state", c.ckpt, "--stream", streamID, "--format", "json")
	cmd.Env = childEnv()
	out, err := cmd.Output()
	if err != nil {
		c.fatalf("tributary state: %v", err)
	}
	var rows []stateRow
	if err := json.Unmarshal(out, &rows); err != nil {
		c.fatalf("tributary state output: %v", err)
	}
	if len(rows) != len(files) {
		c.fatalf("tributary state lists %d files, want %d", len(rows), len(files))
	}
	for _, r := range rows {
		f, ok := files[r.Path]
		if !ok {
			c.fatalf("tributary state lists %s, which is not a file of the stream", r.Path)
		}
		want := "COMMITTED"
		if f.corrupt {
			want = "SKIPPED"
		}
		if r.IngestionState != want || r.BatchID == nil || *r.BatchID != batchOf[f.name] {
			c.fatalf("state of %s: %s in batch %v, want %s in batch %d", r.Path, r.IngestionState, r.BatchID, want, batchOf[f.name])
		}
		if f.corrupt && !strings.Contains(r.Error, corruptName) {
			c.fatalf("skipped file %s: the reason %q does not name it", r.Path, r.Error)
		}
	}
}

// checkMoved: the source keeps only the files the stream leaves out or
// skips (kept); the destination holds every ingested file once, byte for byte.
func (c *chaos) checkMoved(files map[string]inputFile, kept []string) {
	left, temps, err := listFiles(c.src)
	if err != nil {
		c.fatalf("listing the source: %v", err)
	}
	slices.Sort(left)
	slices.Sort(kept)
	if len(temps) > 0 || !slices.Equal(left, kept) {
		c.fatalf("the source still holds %v %v, want only %v", left, temps, kept)
	}
	moved, _, err := listFiles(c.dest)
	if err != nil {
		c.fatalf("listing the move destination: %v", err)
	}
	var want []string
	for name, f := range files {
		if !f.corrupt {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	slices.Sort(moved)
	if !slices.Equal(moved, want) {
		c.fatalf("the move destination holds %d files %v, want the %d ingested ones %v", len(moved), moved, len(want), want)
	}
	for _, name := range moved {
		data, err := os.ReadFile(filepath.Join(c.dest, name))
		if err != nil {
			c.fatal(err)
		}
		if !bytes.Equal(data, files[name].data) {
			c.fatalf("moved file %s differs from what was written (%d bytes, want %d)", name, len(data), len(files[name].data))
		}
	}
}

func (c *chaos) fatal(err error) { c.t.Helper(); c.fatalf("%v", err) }

// countLeftovers counts what killed runs left behind, harmlessly: temporary
// files (no reader looks at them) and data files that no commit adds (as
// Delta leaves them for VACUUM).
func (c *chaos) countLeftovers() {
	c.temps = map[string]int{}
	for name, d := range map[string]string{"table": c.table, "checkpoint": c.ckpt, "move destination": c.dest} {
		_, temps, err := listFiles(d)
		if err != nil {
			c.fatal(err)
		}
		for _, tmp := range temps {
			c.temps[name+"/"+path.Dir(tmp)]++
		}
	}
	added := map[string]bool{}
	for _, cm := range c.log.commits {
		for _, p := range cm.adds {
			added[p] = true
		}
	}
	files, _, err := listFiles(c.table)
	if err != nil {
		c.fatal(err)
	}
	c.orphans = 0
	for _, f := range files {
		if strings.HasSuffix(f, ".parquet") && !strings.HasPrefix(f, "_delta_log/") && !added[f] {
			c.orphans++
		}
	}
}

// tableRead is what read_table.py prints.
type tableRead struct {
	Version int64                `json:"version"`
	Txn     *int64               `json:"txn"`
	Columns []string             `json:"columns"`
	History []int64              `json:"history"`
	Rows    []map[string]*string `json:"rows"`
}

// checkRows reads the table with delta-rs: version and txn are the last
// batch, the history is contiguous, and every row is there exactly once with
// its values.
func (c *chaos) checkRows(python, script string, lastBatch int64) {
	cmd := exec.Command(python, script, c.table, streamID)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.fatalf("delta-rs reader: %v\n%s", err, tail(stderr.String(), 4000))
	}
	var got tableRead
	if err := json.Unmarshal(out, &got); err != nil {
		c.fatalf("delta-rs reader output: %v", err)
	}
	if got.Version != lastBatch || got.Txn == nil || *got.Txn != lastBatch {
		c.fatalf("delta-rs reads version %d, txn %v; want both %d (the last batch)", got.Version, got.Txn, lastBatch)
	}
	for i, v := range got.History {
		if v != int64(i) || int64(len(got.History)) != lastBatch+1 {
			c.fatalf("delta-rs history versions %v, want 0..%d", got.History, lastBatch)
		}
	}
	wantCols := []string{"_rescued_data", "file", "id", "payload", "row"}
	if c.v.newColumnFrom > 0 {
		wantCols = append(wantCols, "extra")
	}
	cols := slices.Clone(got.Columns)
	slices.Sort(cols)
	slices.Sort(wantCols)
	if !slices.Equal(cols, wantCols) {
		c.fatalf("delta-rs reads columns %v, want %v", got.Columns, wantCols)
	}
	want := map[string]expectedRow{}
	for _, f := range c.arrived {
		for _, r := range f.rows {
			want[r.id] = r
		}
	}
	seen := map[string]int{}
	for _, row := range got.Rows {
		id := deref(row["id"])
		seen[id]++
		w, ok := want[id]
		switch {
		case !ok:
			c.fatalf("row %q was never written: %v", id, row)
		case seen[id] > 1:
			c.fatalf("row %s is in the table %d times (duplicate)", id, seen[id])
		case deref(row["file"]) != w.file || deref(row["row"]) != w.row || deref(row["payload"]) != w.payload:
			c.fatalf("row %s reads %v", id, row)
		case row["_rescued_data"] != nil:
			c.fatalf("row %s has rescued data %q", id, *row["_rescued_data"])
		}
		if c.v.newColumnFrom > 0 {
			if (w.extra == nil) != (row["extra"] == nil) || (w.extra != nil && *w.extra != *row["extra"]) {
				c.fatalf("row %s: extra = %v, want %v", id, row["extra"], w.extra)
			}
		}
	}
	if len(seen) != len(want) {
		var lost []string
		for id := range want {
			if seen[id] == 0 {
				lost = append(lost, id)
			}
		}
		slices.Sort(lost)
		c.fatalf("%d of %d rows are missing (lost): %v", len(lost), len(want), lost)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

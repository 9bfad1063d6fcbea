package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/state"
)

type cli struct {
	t              *testing.T
	src, table, cp string
	extra          []string
}

func newCLI(t *testing.T) *cli {
	dir := t.TempDir()
	c := &cli{t: t, src: filepath.Join(dir, "in"), table: filepath.Join(dir, "table"), cp: filepath.Join(dir, "cp")}
	if err := os.MkdirAll(c.src, 0o755); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *cli) file(name, body string) {
	c.t.Helper()
	p := filepath.Join(c.src, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cli) exec(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func (c *cli) run(opts ...string) (string, string, int) {
	args := []string{"run", "--source", c.src, "--table", c.table, "--checkpoint", c.cp,
		"--option", "cloudFiles.format=json", "--option", "cloudFiles.inferColumnTypes=true"}
	for _, o := range opts {
		args = append(args, "--option", o)
	}
	return c.exec(append(args, c.extra...)...)
}

func (c *cli) describe() tableDetail {
	c.t.Helper()
	out, errs, code := c.exec("describe", c.table, "--json")
	if code != 0 {
		c.t.Fatalf("describe: %s", errs)
	}
	var d tableDetail
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		c.t.Fatal(err)
	}
	return d
}

func TestRunIsIdempotentAndIncremental(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1,"v":"x"}`+"\n"+`{"id":2,"v":"y"}`+"\n")
	c.file("sub/b.json", `{"id":3,"v":"z"}`+"\n")
	out, errs, code := c.run()
	if code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	if !strings.Contains(out, "ingested 3 rows from 2 files in 1 batches") {
		t.Fatalf("summary: %q", out)
	}
	d := c.describe()
	if d.Version != 0 || d.NumRecords != 3 || d.NumFiles != 1 {
		t.Fatalf("after first run: %+v", d)
	}
	out, _, code = c.run()
	if code != 0 || !strings.Contains(out, "nothing new") {
		t.Fatalf("second run: %d %q", code, out)
	}
	if d2 := c.describe(); d2.Version != 0 {
		t.Fatalf("second run wrote version %d", d2.Version)
	}
	c.file("c.json", `{"id":4,"v":"w"}`+"\n")
	out, _, code = c.run()
	if code != 0 || !strings.Contains(out, "ingested 1 rows from 1 files in 1 batches") {
		t.Fatalf("third run: %d %q", code, out)
	}
	if d3 := c.describe(); d3.Version != 1 || d3.NumRecords != 4 {
		t.Fatalf("after new file: %+v", d3)
	}
}

func TestStateFormats(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	c.file("b.json", `{"id":2}`+"\n")
	if _, errs, code := c.run("cloudFiles.maxFilesPerTrigger=1"); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := c.exec("state", c.cp, "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var rows []stateRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Path != "a.json" || rows[0].IngestionState != "COMMITTED" ||
		rows[0].CommitTime == nil || *rows[0].BatchID != 0 || *rows[1].BatchID != 1 {
		t.Fatalf("state rows: %+v", rows)
	}
	out, _, _ = c.exec("state", c.cp, "--format", "csv")
	if !strings.HasPrefix(out, "path,size,etag,discovery_time,commit_time,ingestion_state,batch_id,error\n") || strings.Count(out, "\n") != 3 {
		t.Fatalf("csv: %q", out)
	}
	out, _, _ = c.exec("state", c.cp)
	if !strings.Contains(out, "INGESTION_STATE") || !strings.Contains(out, "(2 files)") {
		t.Fatalf("table: %q", out)
	}
	out, _, _ = c.exec("state", c.cp, "--state", "pending", "--format", "json")
	if strings.TrimSpace(out) != "[]" {
		t.Fatalf("pending filter: %q", out)
	}
	out, errs, code = c.exec("state", c.cp, "--state", "skipped", "--format", "json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("skipped filter: %d %q %q", code, out, errs)
	}
	if _, errs, code := c.exec("state", c.cp, "--state", "bogus"); code != 2 || !strings.Contains(errs, "SKIPPED") {
		t.Fatalf("bad state: %d %q", code, errs)
	}
	if _, errs, code := c.exec("state", c.cp, "--format", "xml"); code != 2 || !strings.Contains(errs, "--format") {
		t.Fatalf("bad format: %d %q", code, errs)
	}
}

func TestStateShowsSkipReason(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []stateRow{
		toRow(state.Entry{File: state.File{Path: "bad.json.gz", Size: 7}, DiscoveryTime: at, CommitTime: &at,
			State: state.Skipped, BatchID: 3, Error: "gzip: invalid header\n\tat byte 0"}),
		toRow(state.Entry{File: state.File{Path: "ok.json", Size: 9}, DiscoveryTime: at, CommitTime: &at,
			State: state.Committed, BatchID: 3}),
	}
	var buf bytes.Buffer
	if err := writeState(&buf, "json", rows); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0]["ingestion_state"] != "SKIPPED" || got[0]["error"] != "gzip: invalid header\n\tat byte 0" ||
		got[1]["error"] != "" {
		t.Fatalf("json: %s", buf.Bytes())
	}
	buf.Reset()
	if err := writeState(&buf, "csv", rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][7] != "error" || recs[1][5] != "SKIPPED" || recs[1][7] != "gzip: invalid header\n\tat byte 0" || recs[2][7] != "" {
		t.Fatalf("csv: %q", recs)
	}
	buf.Reset()
	if err := writeState(&buf, "table", rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[0], "BATCH  ERROR") ||
		!strings.HasSuffix(lines[1], "SKIPPED          3      gzip: invalid header  at byte 0") ||
		!strings.HasSuffix(lines[2], "COMMITTED        3") || strings.HasSuffix(lines[2], " ") || lines[3] != "(2 files)" {
		t.Fatalf("table:\n%s", buf.String())
	}
}

func TestConfigErrorsNameTheOption(t *testing.T) {
	tests := []struct {
		opts []string
		want string
	}{
		{[]string{"cloudFiles.ignoreCorruptFiles=true"}, "ignoreCorruptFiles"},
		{[]string{"cloudFiles.maxFileAge=1 day"}, "cloudFiles.maxFileAge"},
		{[]string{"cloudFiles.maxFilesPerTriger=5"}, "cloudFiles.maxFilesPerTrigger"},
	}
	for _, tc := range tests {
		c := newCLI(t)
		_, errs, code := c.run(tc.opts...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: code %d, stderr %q; want the error to name %s", tc.opts, code, errs, tc.want)
		}
	}
	c := newCLI(t)
	_, errs, code := c.exec("run", "--source", c.src, "--table", c.table, "--checkpoint", c.cp)
	if code == 0 || !strings.Contains(errs, "cloudFiles.format") {
		t.Errorf("missing format: %d %q", code, errs)
	}
}

func TestUsageErrors(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{}, {"bogus"}, {"run"}, {"describe"}} {
		if _, _, code := c.exec(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if _, errs, code := c.exec("describe", c.table); code != 1 || !strings.Contains(errs, c.table) {
		t.Errorf("describe of a missing table: %d %q", code, errs)
	}
}

func TestRunStopsOnNewColumnThenContinues(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	c.file("b.json", `{"id":2,"extra":"x"}`+"\n")
	_, errs, code := c.run()
	if code != 1 || !strings.Contains(errs, "extra") || !strings.Contains(errs, "next run continues") {
		t.Fatalf("second run: %d %q", code, errs)
	}
	if _, errs, code := c.run(); code != 0 {
		t.Fatalf("third run: %s", errs)
	}
	if d := c.describe(); d.NumRecords != 2 || !strings.Contains(string(d.Schema), `"extra"`) {
		t.Fatalf("after evolution: %+v", d)
	}
}

// TestProcessingTimeTriggerSchedule: with trigger processingTime=INTERVAL
// (the --trigger flag or the trigger option) a pass starts every INTERVAL:
// after a pass the CLI waits the interval less the pass's time (and says
// so: "next pass in"); with 0, passes run back to back with idleWait
// between them. The test reads the line and stops the run during the wait.
func TestProcessingTimeTriggerSchedule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		min, max time.Duration
	}{
		{"flag 1 hour", []string{"--trigger", "processingTime=1 hour"}, 50 * time.Minute, time.Hour},
		{"option 90 seconds", []string{"--option", "trigger=processingTime=90 seconds"}, 80 * time.Second, 90 * time.Second},
		{"flag 0 seconds", []string{"--trigger", "processingTime=0 seconds"}, idleWait, idleWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			c.file("a.json", `{"id":1}`+"\n")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pr, pw := io.Pipe()
			waits := make(chan time.Duration, 1)
			go func() {
				sc := bufio.NewScanner(pr)
				for sc.Scan() {
					if rest, ok := strings.CutPrefix(sc.Text(), "next pass in "); ok {
						d, err := time.ParseDuration(rest)
						if err != nil {
							t.Errorf("line %q: %v", sc.Text(), err)
						}
						waits <- d
						cancel() // stop during the first wait
						break
					}
				}
				io.Copy(io.Discard, pr)
			}()
			var out bytes.Buffer
			args := append([]string{"run", "--source", c.src, "--table", c.table, "--checkpoint", c.cp, "--option", "cloudFiles.format=json"}, tc.args...)
			code := run(ctx, args, &out, pw)
			pw.Close()
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			select {
			case d := <-waits:
				if d < tc.min || d > tc.max {
					t.Fatalf("wait after the first pass %v, want one in [%v, %v]", d, tc.min, tc.max)
				}
			default:
				t.Fatal("no \"next pass in\" line")
			}
			if d := c.describe(); d.NumRecords != 1 {
				t.Fatalf("records %d after the first pass, want 1", d.NumRecords)
			}
		})
	}
}

func TestProcessingTimeTriggerPicksUpNewFiles(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var out, errb bytes.Buffer
	go func() {
		done <- run(ctx, []string{"run", "--source", c.src, "--table", c.table, "--checkpoint", c.cp,
			"--option", "cloudFiles.format=json", "--trigger", "processingTime=50 milliseconds"}, &out, &errb)
	}()
	waitFor := func(version int64) {
		t.Helper()
		for i := 0; i < 400; i++ {
			if o, _, code := c.exec("describe", c.table, "--json"); code == 0 && strings.Contains(o, fmt.Sprintf(`"version": %d,`, version)) {
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
		cancel()
		<-done
		t.Fatalf("table never reached version %d; stderr %s", version, errb.String())
	}
	waitFor(0)
	c.file("b.json", `{"id":2}`+"\n")
	waitFor(1)
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after interrupt: %s", code, errb.String())
	}
	if d := c.describe(); d.NumRecords != 2 {
		t.Fatalf("records %d", d.NumRecords)
	}
}

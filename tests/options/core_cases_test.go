package options_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/streams"
)

// coreCases prove the Auto Loader and sink options that the ingest engine
// has honoured since the exactly-once core (owner: the lead).
func coreCases() []optionCase {
	return []optionCase{
		{name: "format json reads records, a missing format is refused", options: []string{"cloudFiles.format"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"a":"x"}`+"\n"+`{"a":"y"}`+"\n")
			p.mustRun(map[string]string{"cloudFiles.format": "JSON"})
			if got := p.column("a"); !slices.Equal(got, []string{"x", "y"}) {
				t.Errorf("rows = %v", got)
			}
			if _, err := options.Parse(map[string]string{}, options.Locations{StreamID: "s", Source: p.src, Table: p.table, CheckpointLocation: p.checkpoint, SchemaLocation: p.checkpoint}); err == nil || !strings.Contains(err.Error(), "cloudFiles.format") {
				t.Errorf("no format: %v, want an error naming cloudFiles.format", err)
			}
			if _, err := p.load(map[string]string{"cloudFiles.format": "avi"}); err == nil || !strings.Contains(err.Error(), "cloudFiles.format") {
				t.Errorf("format avi: %v, want an error naming cloudFiles.format", err)
			}
		}},
		{name: "maxFilesPerTrigger bounds files per batch", options: []string{"cloudFiles.maxFilesPerTrigger"}, run: func(t *testing.T) {
			batches := func(opts map[string]string) []int {
				p := newPipe(t)
				for _, n := range []string{"1", "2", "3", "4", "5"} {
					p.write(n+".json", `{"n":"`+n+`"}`+"\n")
				}
				var files []int
				for _, b := range p.mustRun(opts).Batches {
					files = append(files, b.NumInputFiles)
				}
				return files
			}
			if got := batches(map[string]string{"cloudFiles.maxFilesPerTrigger": "2"}); !slices.Equal(got, []int{2, 2, 1}) {
				t.Errorf("maxFilesPerTrigger=2: files per batch %v, want [2 2 1]", got)
			}
			if got := batches(nil); !slices.Equal(got, []int{5}) {
				t.Errorf("default: files per batch %v, want [5]", got)
			}
		}},
		{name: "maxBytesPerTrigger is a soft byte limit per batch", options: []string{"cloudFiles.maxBytesPerTrigger"}, run: func(t *testing.T) {
			p := newPipe(t)
			for _, n := range []string{"1", "2", "3", "4"} {
				p.write(n+".json", `{"n":"`+n+strings.Repeat("x", 90)+`"}`+"\n") // 100 bytes each
			}
			sum := p.mustRun(map[string]string{"cloudFiles.maxBytesPerTrigger": "150"})
			var files []int
			for _, b := range sum.Batches {
				files = append(files, b.NumInputFiles)
			}
			// Soft: a batch takes files until it reaches the limit, at least one.
			if len(files) < 2 || slices.Max(files) > 2 {
				t.Errorf("files per batch %v: want several batches of at most 2 files", files)
			}
			if len(p.rows()) != 4 {
				t.Errorf("rows = %d, want 4", len(p.rows()))
			}
		}},
		{name: "includeExistingFiles=false skips files older than the first start", options: []string{"cloudFiles.includeExistingFiles"}, run: func(t *testing.T) {
			for _, include := range []bool{false, true} {
				p := newPipe(t)
				old := p.write("old.json", `{"a":"old"}`+"\n")
				past := time.Now().Add(-time.Hour)
				os.Chtimes(old, past, past)
				opts := map[string]string{"cloudFiles.includeExistingFiles": map[bool]string{false: "false", true: "true"}[include]}
				p.mustRun(opts)
				fresh := p.write("new.json", `{"a":"new"}`+"\n")
				future := time.Now().Add(time.Minute)
				os.Chtimes(fresh, future, future)
				p.mustRun(opts)
				want := []string{"new"}
				if include {
					want = []string{"new", "old"}
				}
				if got := p.column("a"); !slices.Equal(got, want) {
					t.Errorf("includeExistingFiles=%v: rows %v, want %v", include, got, want)
				}
			}
		}},
		{name: "allowOverwrites ingests a rewritten file again", options: []string{"cloudFiles.allowOverwrites"}, run: func(t *testing.T) {
			for _, allow := range []bool{true, false} {
				p := newPipe(t)
				opts := map[string]string{}
				if allow {
					opts["cloudFiles.allowOverwrites"] = "true"
				}
				f := p.write("a.json", `{"v":"1"}`+"\n")
				p.mustRun(opts)
				p.write("a.json", `{"v":"2"}`+"\n"+`{"v":"3"}`+"\n")
				later := time.Now().Add(time.Minute)
				os.Chtimes(f, later, later)
				p.mustRun(opts)
				want := []string{"1"}
				if allow {
					want = []string{"1", "2", "3"}
				}
				if got := p.column("v"); !slices.Equal(got, want) {
					t.Errorf("allowOverwrites=%v: rows %v, want %v", allow, got, want)
				}
			}
		}},
		{name: "maxFileAge ignores files older than the age", options: []string{"cloudFiles.maxFileAge"}, run: func(t *testing.T) {
			for _, set := range []bool{true, false} {
				p := newPipe(t)
				old := p.write("old.json", `{"a":"old"}`+"\n")
				past := time.Now().Add(-30 * 24 * time.Hour)
				os.Chtimes(old, past, past)
				p.write("new.json", `{"a":"new"}`+"\n")
				opts := map[string]string{}
				if set {
					opts["cloudFiles.maxFileAge"] = "14 days"
				}
				p.mustRun(opts)
				want := []string{"new", "old"}
				if set {
					want = []string{"new"}
				}
				if got := p.column("a"); !slices.Equal(got, want) {
					t.Errorf("maxFileAge set=%v: rows %v, want %v", set, got, want)
				}
				// The state of an ingested file is kept for the age (the state
				// store's expiry; DynamoDB's TTL removes it after that).
				st, closeFn, err := streams.Env{}.OpenState(p.checkpoint)
				if err != nil {
					t.Fatal(err)
				}
				exp, err := st.(interface {
					ExpiresAt(ctx context.Context, stream, path string) (time.Time, error)
				}).ExpiresAt(t.Context(), p.id, "new.json")
				closeFn()
				if err != nil {
					t.Fatal(err)
				}
				if d := time.Until(exp); set != (d > 13*24*time.Hour && d <= 14*24*time.Hour) || !set && !exp.IsZero() {
					t.Errorf("maxFileAge set=%v: new.json's state expires at %v (in %v), want in 14 days only when set", set, exp, d)
				}
			}
		}},
		{name: "inferColumnTypes gives typed columns, strings otherwise", options: []string{"cloudFiles.inferColumnTypes"}, run: func(t *testing.T) {
			for _, infer := range []bool{true, false} {
				p := newPipe(t)
				p.write("a.json", `{"n":1,"d":1.5,"b":true,"o":{"x":1}}`+"\n")
				opts := map[string]string{}
				if infer {
					opts["cloudFiles.inferColumnTypes"] = "true"
				}
				p.mustRun(opts)
				want := []string{"b STRING", "d STRING", "n STRING", "o STRING", "_rescued_data STRING"}
				if infer {
					want = []string{"b BOOLEAN", "d DOUBLE", "n BIGINT", "o STRUCT<x: BIGINT>", "_rescued_data STRING"}
				}
				if got := p.schema(); !slices.Equal(got, want) {
					t.Errorf("inferColumnTypes=%v: schema %v, want %v", infer, got, want)
				}
			}
		}},
		{name: "schemaHints types a column", options: []string{"cloudFiles.schemaHints"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"n":7,"s":"x"}`+"\n")
			p.mustRun(map[string]string{"cloudFiles.schemaHints": "n INT"})
			if got := p.schema(); !slices.Contains(got, "n INT") || !slices.Contains(got, "s STRING") {
				t.Errorf("schema %v, want n INT and s STRING", got)
			}
			if rows := p.rows(); len(rows) != 1 || rows[0]["n"] != int32(7) {
				t.Errorf("rows %v, want n=7 as an int", rows)
			}
		}},
		{name: "schemaLocation holds the schema history", options: []string{"cloudFiles.schemaLocation"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.schemaAt = filepath.Join(p.root, "schemas")
			p.write("a.json", `{"a":"x"}`+"\n")
			p.mustRun(map[string]string{"cloudFiles.schemaLocation": p.schemaAt})
			if files := listFiles(t, p.schemaAt); len(files) == 0 {
				t.Errorf("nothing written under the schema location %s", p.schemaAt)
			}
		}},
		{name: "schemaEvolutionMode rescue keeps new columns in the rescued data", options: []string{"cloudFiles.schemaEvolutionMode"}, run: func(t *testing.T) {
			for _, mode := range []string{"rescue", "addNewColumns", "failOnNewColumns", "none"} {
				p := newPipe(t)
				p.write("1.json", `{"a":"1"}`+"\n")
				p.mustRun(map[string]string{"cloudFiles.schemaEvolutionMode": mode})
				p.write("2.json", `{"a":"2","b":"new"}`+"\n")
				_, err := p.run(map[string]string{"cloudFiles.schemaEvolutionMode": mode})
				switch mode {
				case "rescue":
					if err != nil {
						t.Fatalf("rescue: %v", err)
					}
					var rescued []string
					for _, r := range p.rows() {
						if r["_rescued_data"] != nil {
							rescued = append(rescued, r["_rescued_data"].(string))
						}
					}
					if len(rescued) != 1 || !strings.Contains(rescued[0], `"b":"new"`) {
						t.Errorf("rescue: rescued %v, want b rescued", rescued)
					}
				case "addNewColumns":
					if !errors.Is(err, ingest.ErrSchemaEvolved) {
						t.Errorf("addNewColumns: %v, want the stream stopped to add b", err)
					}
				case "failOnNewColumns":
					if err == nil || errors.Is(err, ingest.ErrSchemaEvolved) {
						t.Errorf("failOnNewColumns: %v, want a failure", err)
					}
				case "none":
					if err != nil {
						t.Fatalf("none: %v", err)
					}
					if got := p.schema(); slices.ContainsFunc(got, func(c string) bool { return strings.HasPrefix(c, "b ") || strings.HasPrefix(c, "_rescued") }) {
						t.Errorf("none: schema %v has b or a rescued column", got)
					}
				}
			}
		}},
		{name: "schemaEvolutionMode defaults to none with a user schema (new columns ignored, no rescued column, no stop), addNewColumns without one", options: []string{"cloudFiles.schemaEvolutionMode"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.userSchema = "a STRING"
			p.write("1.json", `{"a":"1","b":"new"}`+"\n")
			p.mustRun(nil)
			if got := p.schema(); !slices.Equal(got, []string{"a STRING"}) {
				t.Errorf("user schema, default mode: table schema %v, want [a STRING] (none: b ignored, nothing rescued)", got)
			}
			if got := p.column("a"); !slices.Equal(got, []string{"1"}) {
				t.Errorf("user schema, default mode: rows %v", got)
			}
			q := newPipe(t)
			q.write("1.json", `{"a":"1"}`+"\n")
			q.mustRun(nil)
			q.write("2.json", `{"a":"2","b":"new"}`+"\n")
			if _, err := q.run(nil); !errors.Is(err, ingest.ErrSchemaEvolved) {
				t.Errorf("inferred schema, default mode: %v, want the stream stopped to add b (addNewColumns)", err)
			}
		}},
		{name: "rescuedDataColumn names the rescued column", options: []string{"cloudFiles.rescuedDataColumn"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"n":"x"}`+"\n")
			p.mustRun(map[string]string{"cloudFiles.schemaHints": "n INT", "cloudFiles.rescuedDataColumn": "_bad"})
			rows := p.rows()
			if len(rows) != 1 || rows[0]["_bad"] == nil || !strings.Contains(rows[0]["_bad"].(string), `"n":"x"`) {
				t.Errorf("rows %v, want the value rescued in _bad", rows)
			}
			if _, ok := rows[0]["_rescued_data"]; ok {
				t.Errorf("the default _rescued_data column exists too: %v", rows[0])
			}
		}},
		{name: "partitionColumns turns key=value directories into columns", options: []string{"cloudFiles.partitionColumns"}, run: func(t *testing.T) {
			for _, set := range []bool{true, false} {
				p := newPipe(t)
				p.write("day=1/a.json", `{"a":"x"}`+"\n")
				opts := map[string]string{}
				if set {
					opts["cloudFiles.partitionColumns"] = "day"
				}
				p.mustRun(opts)
				rows := p.rows()
				if _, has := rows[0]["day"]; has != set || (set && rows[0]["day"] != "1") {
					t.Errorf("partitionColumns set=%v: rows %v", set, rows)
				}
			}
		}},
		{name: "validateOptions=false ignores unknown options", options: []string{"cloudFiles.validateOptions"}, run: func(t *testing.T) {
			p := newPipe(t)
			if _, err := p.load(map[string]string{"cloudFiles.bogus": "1"}); !errors.Is(err, options.ErrUnknownOption) {
				t.Errorf("default: %v, want an unknown option error", err)
			}
			s, err := p.load(map[string]string{"cloudFiles.bogus": "1", "cloudFiles.validateOptions": "false"})
			if err != nil || !slices.Contains(s.Ignored, "cloudFiles.bogus") {
				t.Errorf("validateOptions=false: %v, ignored %v", err, s)
			}
		}},
		{name: "cleanSource DELETE and MOVE act on committed files", options: []string{"cloudFiles.cleanSource", "cloudFiles.cleanSource.moveDestination"}, run: func(t *testing.T) {
			p := newPipe(t)
			f := p.write("a.json", `{"a":"x"}`+"\n")
			p.mustRun(map[string]string{"cloudFiles.cleanSource": "DELETE"})
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Errorf("DELETE: source file still there (%v)", err)
			}
			q := newPipe(t)
			g := q.write("sub/b.json", `{"a":"y"}`+"\n")
			dest := filepath.Join(q.root, "archive")
			q.mustRun(map[string]string{"cloudFiles.cleanSource": "MOVE", "cloudFiles.cleanSource.moveDestination": dest})
			if _, err := os.Stat(g); !os.IsNotExist(err) {
				t.Errorf("MOVE: source file still there (%v)", err)
			}
			if files := listFiles(t, dest); len(files) != 1 || !strings.HasSuffix(files[0], "b.json") {
				t.Errorf("MOVE: destination holds %v, want b.json", files)
			}
			r := newPipe(t)
			h := r.write("c.json", `{"a":"z"}`+"\n")
			r.mustRun(nil)
			if _, err := os.Stat(h); err != nil {
				t.Errorf("default OFF: source file gone (%v)", err)
			}
		}},
		{name: "useManagedFileEvents if_available falls back with a warning, true is refused", options: []string{"cloudFiles.useManagedFileEvents"}, run: func(t *testing.T) {
			p := newPipe(t)
			s, err := p.load(map[string]string{"cloudFiles.useManagedFileEvents": "if_available"})
			if err != nil || !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "useManagedFileEvents") }) {
				t.Errorf("if_available: %v, warnings %v", err, s)
			}
			if _, err := p.load(map[string]string{"cloudFiles.useManagedFileEvents": "true"}); !errors.Is(err, options.ErrUnsupportedOption) {
				t.Errorf("true: %v, want refused", err)
			}
		}},
		{name: "schema inference samples only the first files", options: []string{"spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles", "spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes"}, run: func(t *testing.T) {
			for _, opt := range []string{"", "spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles", "spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes"} {
				p := newPipe(t)
				p.write("1.json", `{"a":"1"}`+"\n")
				p.write("2.json", `{"a":"2","b":"2"}`+"\n")
				opts := map[string]string{}
				if opt != "" {
					opts[opt] = "1"
				}
				_, err := p.run(opts)
				if opt == "" && err != nil {
					t.Errorf("default sample: %v (both files are sampled, b is known)", err)
				}
				if opt != "" && !errors.Is(err, ingest.ErrSchemaEvolved) {
					t.Errorf("%s=1: %v, want b found after inference (stream stops to add it)", opt, err)
				}
			}
		}},
		{name: "pathGlobFilter selects file names", options: []string{"pathGlobFilter"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"a":"json"}`+"\n")
			p.write("b.txt", `{"a":"txt"}`+"\n")
			p.mustRun(map[string]string{"pathGlobFilter": "*.json"})
			if got := p.column("a"); !slices.Equal(got, []string{"json"}) {
				t.Errorf("rows %v, want only a.json's", got)
			}
		}},
		{name: "checkpointLocation holds the offsets and state", options: []string{"checkpointLocation"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"a":"x"}`+"\n")
			p.mustRun(map[string]string{"checkpointLocation": p.checkpoint})
			if _, err := os.Stat(filepath.Join(p.checkpoint, "offsets", "00000000000000000000.json")); err != nil {
				t.Errorf("no sealed plan in the checkpoint: %v", err)
			}
			if st := p.stateOf(); st["a.json"] != state.Committed {
				t.Errorf("state %v, want a.json committed", st)
			}
			if sum := p.mustRun(map[string]string{"checkpointLocation": p.checkpoint}); len(sum.Batches) != 0 {
				t.Errorf("second run committed %d batches, want none", len(sum.Batches))
			}
		}},
		{name: "outputMode append adds each batch; update without mergeKeys is refused", options: []string{"outputMode"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("1.json", `{"a":"1"}`+"\n")
			p.mustRun(map[string]string{"outputMode": "append"})
			p.write("2.json", `{"a":"2"}`+"\n")
			p.mustRun(map[string]string{"outputMode": "append"})
			if got := p.column("a"); !slices.Equal(got, []string{"1", "2"}) {
				t.Errorf("rows %v", got)
			}
			// complete and update (with mergeKeys): sinkmode_cases_test.go.
			if _, err := p.load(map[string]string{"outputMode": "update"}); !errors.Is(err, options.ErrInvalidOption) || !strings.Contains(err.Error(), "mergeKeys") {
				t.Errorf("outputMode=update without mergeKeys: %v, want an error naming mergeKeys", err)
			}
		}},
		{name: "trigger once runs one batch ignoring the limits", options: []string{"trigger"}, run: func(t *testing.T) {
			for _, trig := range []string{"once", "availableNow"} {
				p := newPipe(t)
				for _, n := range []string{"1", "2", "3"} {
					p.write(n+".json", `{"n":"`+n+`"}`+"\n")
				}
				sum := p.mustRun(map[string]string{"trigger": trig, "cloudFiles.maxFilesPerTrigger": "1"})
				want := map[string]int{"once": 1, "availableNow": 3}[trig]
				if len(sum.Batches) != want || len(p.rows()) != 3 {
					t.Errorf("trigger %s: %d batches, %d rows; want %d batches, 3 rows", trig, len(sum.Batches), len(p.rows()), want)
				}
			}
		}},
		{name: "a batch takes as many files as its limits allow, past 10,000", options: []string{"cloudFiles.maxFilesPerTrigger", "trigger", "txnVersion"}, run: func(t *testing.T) {
			// A plan once read at most 10,000 pending files: a higher
			// maxFilesPerTrigger was cut to it, and Trigger.Once or an
			// append-once write (txnVersion) left the rest behind (the
			// append-once write's rest for good: its txnVersion was in the
			// table by then).
			const files = 10_003
			for _, c := range []struct {
				name  string
				opts  map[string]string
				sizes []int // the batches' files
			}{
				{"maxFilesPerTrigger=10002", map[string]string{"cloudFiles.maxFilesPerTrigger": "10002"}, []int{10_002, 1}},
				{"trigger=once", map[string]string{"trigger": "once"}, []int{files}},
				{"txnVersion=1", map[string]string{"txnAppId": "backfill", "txnVersion": "1"}, []int{files}},
			} {
				p := newPipe(t)
				for i := range files {
					p.write(fmt.Sprintf("%05d.json", i), fmt.Sprintf(`{"n":%d}`+"\n", i))
				}
				sum := p.mustRun(c.opts)
				var got []int
				for _, b := range sum.Batches {
					got = append(got, b.NumInputFiles)
				}
				if !slices.Equal(got, c.sizes) || sum.Rows() != files {
					t.Errorf("%s: batches of %v files, %d rows; want %v, %d rows", c.name, got, sum.Rows(), c.sizes, files)
				}
				if n := len(p.rows()); n != files {
					t.Errorf("%s: the table holds %d rows, want %d", c.name, n, files)
				}
			}
		}},
		{name: "useNotifications selects the runtime that discovers files", options: []string{"cloudFiles.useNotifications"}, run: func(t *testing.T) {
			p := newPipe(t)
			on, err := p.load(map[string]string{"cloudFiles.useNotifications": "true"})
			if err != nil {
				t.Fatal(err)
			}
			off, err := p.load(nil)
			if err != nil {
				t.Fatal(err)
			}
			// The functions run notification streams, and list directory
			// listing streams on their schedule (tests/e2e
			// TestListingModeStreamInFunctions); a process fed only by
			// notifications refuses a listing stream.
			cli, functions := streams.Env{}, streams.Env{Notifications: true, ScheduledListing: true}
			notifiedOnly := streams.Env{Notifications: true}
			if err := cli.Validate(on); !errors.Is(err, streams.ErrWrongRuntime) || !strings.Contains(err.Error(), "cloudFiles.useNotifications") {
				t.Errorf("CLI with useNotifications=true: %v, want refused naming the option", err)
			}
			if _, err := p.run(map[string]string{"cloudFiles.useNotifications": "true"}); !errors.Is(err, streams.ErrWrongRuntime) {
				t.Errorf("CLI run with useNotifications=true: %v, want refused", err)
			}
			if err := notifiedOnly.Validate(off); !errors.Is(err, streams.ErrWrongRuntime) || !strings.Contains(err.Error(), "cloudFiles.useNotifications=false") {
				t.Errorf("notification-only process with useNotifications=false: %v, want refused naming the option", err)
			}
			if err := functions.Validate(off); err != nil {
				t.Errorf("functions with useNotifications=false (scheduled listing): %v", err)
			}
			if err := functions.Validate(on); err != nil {
				t.Errorf("functions with useNotifications=true: %v", err)
			}
			if err := cli.Validate(off); err != nil {
				t.Errorf("CLI listing: %v", err)
			}
		}},
		{name: "txnAppId names the table's txn", options: []string{"txnAppId"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("a.json", `{"a":"x"}`+"\n")
			p.mustRun(map[string]string{"txnAppId": "custom-app"})
			txns := p.snapshot().Txns()
			if _, ok := txns["custom-app"]; !ok {
				t.Errorf("txns %v, want appId custom-app", txns)
			}
			if _, ok := txns["s"]; ok {
				t.Errorf("txns %v also hold the stream id", txns)
			}
		}},
		{name: "checkpointLocation given only as an option is the stream's checkpoint; one conflicting with the stream's location is refused", options: []string{"checkpointLocation"}, run: func(t *testing.T) {
			p := newPipe(t)
			s, err := options.Parse(map[string]string{"cloudFiles.format": "json", "checkpointLocation": p.checkpoint},
				options.Locations{StreamID: "s", Source: p.src, Table: p.table, SchemaLocation: p.checkpoint})
			if err != nil {
				t.Fatalf("checkpointLocation as an option: %v", err)
			}
			if got := s.CheckpointLocation(); got != p.checkpoint {
				t.Errorf("checkpointLocation as an option: checkpoint %q, want %q", got, p.checkpoint)
			}
			other := filepath.Join(p.root, "other")
			_, err = options.Parse(map[string]string{"cloudFiles.format": "json", "checkpointLocation": other},
				options.Locations{StreamID: "s", Source: p.src, Table: p.table, CheckpointLocation: p.checkpoint, SchemaLocation: p.checkpoint})
			if err == nil || !strings.Contains(err.Error(), "checkpointLocation") {
				t.Errorf("checkpointLocation %s against the stream's %s: %v, want a load error naming the option", other, p.checkpoint, err)
			}
		}},
	}
}

// listFiles returns the files under dir (relative, slash-separated).
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

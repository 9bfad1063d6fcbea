package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/tributary-io/tributary/core/state"
)

// stateRow is one line of `tributary state`, named like cloud_files_state's columns.
type stateRow struct {
	Path           string  `json:"path"`
	Size           int64   `json:"size"`
	ETag           string  `json:"etag"`
	DiscoveryTime  string  `json:"discovery_time"`
	CommitTime     *string `json:"commit_time"`
	IngestionState string  `json:"ingestion_state"`
	BatchID        *int64  `json:"batch_id"`
	// Error is why the file was skipped (ingestion_state SKIPPED), else "".
	Error string `json:"error"`
}

func cmdState(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("state", flag.ContinueOnError)
	var sf streamFlags
	sf.register(fs)
	format := fs.String("format", "table", "output format: table, json or csv")
	states := fs.String("state", "", "only these ingestion states (comma-separated: PENDING, CLAIMED, COMMITTED, SKIPPED)")
	prefix := fs.String("path-prefix", "", "only paths starting with this prefix")
	// Accept the checkpoint as a positional argument before or after flags.
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	if len(positional) > 1 {
		return fmt.Errorf("%w: state takes one checkpoint location, got %q", errUsage, positional)
	}
	if len(positional) == 1 {
		sf.checkpoint = positional[0]
	}
	var filter []state.IngestionState
	if *states != "" {
		for _, s := range strings.Split(*states, ",") {
			st := state.IngestionState(strings.ToUpper(strings.TrimSpace(s)))
			switch st {
			case state.Pending, state.Claimed, state.Committed, state.Skipped:
				filter = append(filter, st)
			default:
				return fmt.Errorf("%w: --state %q: want PENDING, CLAIMED, COMMITTED or SKIPPED", errUsage, s)
			}
		}
	}
	e, err := env(ctx, logger, sf.checkpoint)
	if err != nil {
		return err
	}
	streamID, checkpoint := sf.streamID, sf.checkpoint
	if sf.config != "" {
		opts, err := sf.resolve(ctx, e)
		if err != nil {
			return err
		}
		streamID, checkpoint = opts.ID, opts.CheckpointLocation()
	}
	if checkpoint == "" {
		return fmt.Errorf("%w: state needs a checkpoint location or --config", errUsage)
	}
	if streamID == "" {
		if streamID, err = streamIDOf(ctx, e, checkpoint); err != nil {
			return err
		}
	}
	st, closeState, err := e.OpenState(checkpoint)
	if err != nil {
		return err
	}
	defer closeState()
	var rows []stateRow
	for en, err := range st.Entries(ctx, streamID, filter...) {
		if err != nil {
			return err
		}
		if !strings.HasPrefix(en.Path, *prefix) {
			continue
		}
		rows = append(rows, toRow(en))
	}
	return writeState(stdout, *format, rows)
}

func toRow(e state.Entry) stateRow {
	r := stateRow{
		Path: e.Path, Size: e.Size, ETag: e.ETag,
		DiscoveryTime:  e.DiscoveryTime.UTC().Format(time.RFC3339Nano),
		IngestionState: string(e.State),
		Error:          e.Error,
	}
	if e.CommitTime != nil {
		s := e.CommitTime.UTC().Format(time.RFC3339Nano)
		r.CommitTime = &s
	}
	if e.BatchID >= 0 {
		b := e.BatchID
		r.BatchID = &b
	}
	return r
}

func writeState(w io.Writer, format string, rows []stateRow) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if rows == nil {
			rows = []stateRow{}
		}
		return enc.Encode(rows)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"path", "size", "etag", "discovery_time", "commit_time", "ingestion_state", "batch_id", "error"})
		for _, r := range rows {
			cw.Write([]string{r.Path, strconv.FormatInt(r.Size, 10), r.ETag, r.DiscoveryTime,
				deref(r.CommitTime), r.IngestionState, batchString(r.BatchID), r.Error})
		}
		cw.Flush()
		return cw.Error()
	case "table":
		var buf bytes.Buffer
		tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PATH\tSIZE\tDISCOVERY_TIME\tCOMMIT_TIME\tINGESTION_STATE\tBATCH\tERROR")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Path, r.Size, r.DiscoveryTime,
				orNull(r.CommitTime), r.IngestionState, batchString(r.BatchID), oneLine(r.Error))
		}
		fmt.Fprintf(tw, "(%d files)\n", len(rows))
		if err := tw.Flush(); err != nil {
			return err
		}
		// An empty ERROR cell leaves the padding of BATCH at the line's end.
		for line := range bytes.Lines(buf.Bytes()) {
			if _, err := fmt.Fprintf(w, "%s\n", bytes.TrimRight(line, " \n")); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%w: --format %q: want table, json or csv", errUsage, format)
}

// oneLine makes an error message fit one table cell: control characters
// (newlines, tabs, which would break the tabwriter's columns) become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orNull(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func batchString(b *int64) string {
	if b == nil {
		return ""
	}
	return strconv.FormatInt(*b, 10)
}

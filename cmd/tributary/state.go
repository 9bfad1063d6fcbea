package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/streams"
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

// cmdState lists a checkpoint's file state. It is read-only: it creates
// and writes nothing (no metadata, no state file, no directory), and it
// works while a run holds the checkpoint.
func cmdState(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("state", flag.ContinueOnError)
	var config, streamID, checkpoint string
	fs.StringVar(&config, "config", "", "stream configuration file (JSON)")
	fs.StringVar(&streamID, "stream", "", "stream id (default: from --config's only stream, or the checkpoint's)")
	fs.StringVar(&checkpoint, "checkpoint", "", "checkpointLocation (or give it as the argument)")
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
		if checkpoint != "" {
			return fmt.Errorf("%w: state takes one checkpoint location, got %q and --checkpoint %q", errUsage, positional[0], checkpoint)
		}
		checkpoint = positional[0]
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
	if config != "" {
		if checkpoint != "" {
			return fmt.Errorf("%w: state takes a checkpoint location or --config, not both", errUsage)
		}
		sf := streamFlags{config: config, streamID: streamID}
		opts, err := sf.resolve(ctx, streams.Env{})
		if err != nil {
			return err
		}
		streamID, checkpoint = opts.ID, opts.CheckpointLocation()
	}
	if checkpoint == "" {
		return fmt.Errorf("%w: state needs a checkpoint location or --config", errUsage)
	}
	switch *format {
	case "table", "json", "csv":
	default:
		return fmt.Errorf("%w: --format %q: want table, json or csv", errUsage, *format)
	}
	rows, err := readState(ctx, logger, checkpoint, streamID, filter, *prefix)
	if err != nil {
		return err
	}
	return writeState(stdout, *format, rows)
}

// readState reads the rows of a checkpoint's file state without changing
// anything, and releases the state store before returning.
func readState(ctx context.Context, logger *slog.Logger, checkpoint, streamID string, filter []state.IngestionState, prefix string) ([]stateRow, error) {
	e, err := env(ctx, logger, checkpoint)
	if err != nil {
		return nil, err
	}
	cp, err := e.OpenExistingStore(checkpoint)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", checkpoint, err)
	}
	defer streams.CloseStore(cp)
	if streamID == "" {
		m, ok, err := streams.ReadCheckpointMetadata(ctx, cp)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", checkpoint, err)
		}
		if ok {
			streamID = m.ID
		}
	}
	st, closeState, err := e.OpenStateReadOnly(checkpoint)
	if errors.Is(err, iofs.ErrNotExist) {
		if _, herr := cp.Head(ctx, "offsets/start.json"); herr == nil {
			return nil, fmt.Errorf("checkpoint %s belongs to a Delta-source stream (--format delta): it reads the source table's log and keeps no file state; its batches are in %s/offsets and the table's history (tributary history TABLE)", checkpoint, checkpoint)
		}
		return nil, fmt.Errorf("checkpoint %s has no file state (%s): no run has used it yet", checkpoint, streams.StateFileName)
	}
	if err != nil {
		return nil, err
	}
	defer closeState()
	lister, canList := st.(interface {
		Streams(context.Context) ([]string, error)
	})
	var ids []string
	if canList {
		if ids, err = lister.Streams(ctx); err != nil {
			return nil, err
		}
	}
	switch {
	case streamID != "" && (!canList || len(ids) == 0 || slices.Contains(ids, streamID)):
	case streamID != "":
		// Older versions wrote a random id into the metadata of a
		// checkpoint first run with --stream.
		return nil, fmt.Errorf("checkpoint %s: stream %q has no file state here; the state holds stream %s: choose with --stream", checkpoint, streamID, strings.Join(ids, ", "))
	case !canList:
		return nil, fmt.Errorf("checkpoint %s records no stream id: name the stream with --stream", checkpoint)
	case len(ids) == 0:
		return nil, nil
	case len(ids) == 1:
		// A checkpoint first run with --stream or --config by an older
		// version has no metadata: its state names the stream.
		streamID = ids[0]
	default:
		return nil, fmt.Errorf("%w: checkpoint %s holds the state of several streams (%s): choose one with --stream", errUsage, checkpoint, strings.Join(ids, ", "))
	}
	var rows []stateRow
	for en, err := range st.Entries(ctx, streamID, filter...) {
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(en.Path, prefix) {
			rows = append(rows, toRow(en))
		}
	}
	return rows, nil
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

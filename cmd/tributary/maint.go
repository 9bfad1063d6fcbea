package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/maintenance"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"github.com/tributary-io/tributary/infra/streams"
)

// partitionFlags collects --partition col=value flags.
type partitionFlags map[string]string

func (p partitionFlags) String() string { return fmt.Sprint(map[string]string(p)) }

func (p partitionFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want column=value, got %q", v)
	}
	p[k] = val
	return nil
}

// tableArgs parses a maintenance command's arguments: one table location
// (before or after the flags) and the flags of fs.
func tableArgs(cmd string, fs *flag.FlagSet, args []string) (string, error) {
	fs.SetOutput(io.Discard)
	var loc string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		loc, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", fmt.Errorf("%w: %s: %v", errUsage, cmd, err)
	}
	if loc == "" && fs.NArg() == 1 {
		loc = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return "", fmt.Errorf("%w: %s takes one table location, got extra %q", errUsage, cmd, fs.Args())
	}
	if loc == "" {
		return "", fmt.Errorf("%w: %s needs a table location", errUsage, cmd)
	}
	return loc, nil
}

// openTable opens an existing table for a maintenance command; release
// closes its store.
func openTable(ctx context.Context, loc string) (_ *delta.Table, release func() error, _ error) {
	e, err := env(ctx, nil, loc)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.OpenExistingStore(loc)
	if err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", loc, err)
	}
	return delta.NewTable(st, delta.WithLocation(locationURI(loc))), func() error { return streams.CloseStore(st) }, nil
}

// durationFlag parses a retention: a Go duration (168h) or a Spark
// interval ("interval 7 days", "7 days").
func durationFlag(name, v string) (*time.Duration, error) {
	if v == "" {
		return nil, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		return &d, nil
	}
	d, err := delta.ParseInterval(v)
	if err != nil {
		return nil, fmt.Errorf("%w: --%s %q: want a duration such as 168h or \"7 days\"", errUsage, name, v)
	}
	return &d, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cmdOptimize compacts a table's small files (OPTIMIZE).
func cmdOptimize(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("optimize", flag.ContinueOnError)
	target := fs.String("target-size", "", "target file size in bytes (or 128mb, 1gb; default: delta.targetFileSize, else 1gb)")
	parts := partitionFlags{}
	fs.Var(parts, "partition", "only the partition where column=value (repeatable)")
	dry := fs.Bool("dry-run", false, "show what would be compacted; change nothing")
	asJSON := fs.Bool("json", false, "print JSON")
	loc, err := tableArgs("optimize", fs, args)
	if err != nil {
		return err
	}
	opts := maintenance.OptimizeOptions{Partition: parts, DryRun: *dry}
	if *target != "" {
		n, err := sparkvalue.ParseBytes(*target)
		if err != nil || n <= 0 {
			return fmt.Errorf("%w: optimize: --target-size %q: want a positive size", errUsage, *target)
		}
		opts.TargetSize = n
	}
	tbl, release, err := openTable(ctx, loc)
	if err != nil {
		return err
	}
	defer release()
	res, err := maintenance.Optimize(ctx, tbl, opts)
	if err != nil {
		return fmt.Errorf("table %s: %w", loc, err)
	}
	if *asJSON {
		return printJSON(stdout, res)
	}
	switch {
	case res.FilesRemoved == 0:
		fmt.Fprintf(stdout, "nothing to compact at version %d (no partition holds two files smaller than %s)\n", res.ReadVersion, humanBytes(res.TargetSize))
	case res.DryRun:
		fmt.Fprintf(stdout, "would compact %d files (%s) in %d partitions (target %s); nothing changed\n", res.FilesRemoved, humanBytes(res.BytesRemoved), res.Partitions, humanBytes(res.TargetSize))
	default:
		fmt.Fprintf(stdout, "version %d: compacted %d files (%s) into %d (%s) in %d partitions\n", res.Version, res.FilesRemoved, humanBytes(res.BytesRemoved), res.FilesAdded, humanBytes(res.BytesAdded), res.Partitions)
	}
	return nil
}

// cmdVacuum deletes the files a table no longer needs (VACUUM).
func cmdVacuum(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("vacuum", flag.ContinueOnError)
	retain := fs.String("retain", "", "keep removed files this long (default: delta.deletedFileRetentionDuration, 7 days)")
	unsafe := fs.Bool("unsafe-retention", false, "allow --retain shorter than the table's delta.deletedFileRetentionDuration")
	dry := fs.Bool("dry-run", false, "list the files that would be deleted; delete nothing")
	asJSON := fs.Bool("json", false, "print JSON")
	loc, err := tableArgs("vacuum", fs, args)
	if err != nil {
		return err
	}
	d, err := durationFlag("retain", *retain)
	if err != nil {
		return err
	}
	tbl, release, err := openTable(ctx, loc)
	if err != nil {
		return err
	}
	defer release()
	res, err := maintenance.Vacuum(ctx, tbl, maintenance.VacuumOptions{Retention: d, UnsafeRetention: *unsafe, DryRun: *dry})
	if err != nil {
		return fmt.Errorf("table %s: %w", loc, err)
	}
	if *asJSON {
		return printJSON(stdout, res)
	}
	verb := "deleted"
	if res.DryRun {
		verb = "would delete"
		for _, f := range res.Files {
			fmt.Fprintln(stdout, f)
		}
	}
	fmt.Fprintf(stdout, "%s %d files (%s) not needed by version %d (retention %v); kept %d\n", verb, len(res.Files), humanBytes(res.Bytes), res.Version, res.Retention, res.Kept)
	return nil
}

// cmdCleanupLog deletes expired log files covered by a checkpoint.
func cmdCleanupLog(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cleanup-log", flag.ContinueOnError)
	retain := fs.String("retain", "", "keep log files this long (default: delta.logRetentionDuration, 30 days)")
	dry := fs.Bool("dry-run", false, "list the log files that would be deleted; delete nothing")
	asJSON := fs.Bool("json", false, "print JSON")
	loc, err := tableArgs("cleanup-log", fs, args)
	if err != nil {
		return err
	}
	d, err := durationFlag("retain", *retain)
	if err != nil {
		return err
	}
	tbl, release, err := openTable(ctx, loc)
	if err != nil {
		return err
	}
	defer release()
	res, err := maintenance.CleanupLog(ctx, tbl, maintenance.LogCleanupOptions{Retention: d, DryRun: *dry})
	if err != nil {
		return fmt.Errorf("table %s: %w", loc, err)
	}
	if *asJSON {
		return printJSON(stdout, res)
	}
	if res.Checkpoint < 0 {
		fmt.Fprintf(stdout, "nothing to clean: no checkpoint with only expired versions before it (retention %v)\n", res.Retention)
		return nil
	}
	verb := "deleted"
	if res.DryRun {
		verb = "would delete"
	}
	fmt.Fprintf(stdout, "%s %d log files (%s) before checkpoint %d (retention %v)\n", verb, len(res.Files), humanBytes(res.Bytes), res.Checkpoint, res.Retention)
	return nil
}

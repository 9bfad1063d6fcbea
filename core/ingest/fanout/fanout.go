// Package fanout splits a sealed batch's files into shares that several
// converters write in parallel, and collects what they report, so that one
// committer commits every share's adds in a single Delta version.
//
// The exactly-once argument stays the engine's two put-if-absents (the
// batch plan, the log version). A share is a deterministic function of the
// sealed plan and the share count (contiguous file ranges cut by bytes), so
// every converter and committer that reads the plan agrees on it. A
// converter writes its Parquet files under attempt-unique names (as the
// unsplit engine does) and then seals a Report with put-if-absent at
// ReportKey: the first complete report of a share wins; a converter that
// loses the race deletes its own files and the winner's report stands. The
// committer reads the sealed reports and converts only the shares that have
// none, so a converter that died after writing files but before reporting
// costs a re-conversion (its files are orphans that VACUUM removes) and a
// committer that died after all reports commits them on its rerun without
// converting anything again. Reports carry a digest of the sealed plan and
// the batch's schema version in their key: another plan of the same batch
// id (after a checkpoint reset), a schema that evolved since or a
// different share count address other reports.
package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
)

// Config turns fan-out on for an engine.
type Config struct {
	// Runner converts one share (a Lambda invocation, or in-process).
	Runner Runner
	// BytesPerConverter is the input bytes one converter takes: a batch of
	// more bytes is split into ceil(bytes/BytesPerConverter) shares.
	// <= 0 means DefaultBytesPerConverter.
	BytesPerConverter int64
	// MaxConverters bounds the shares of a batch (and so the converters
	// running at once); <= 1 turns fan-out off.
	MaxConverters int
}

// DefaultBytesPerConverter is the input one converter takes when
// Config.BytesPerConverter is unset: about two seconds of conversion at a
// 2 GB function's speed, long enough to amortise an invocation.
const DefaultBytesPerConverter int64 = 128 << 20

// Width returns how many shares a batch of the given file sizes is split
// into: ceil(total/BytesPerConverter), at most MaxConverters and the number
// of files, at least 1.
func (c *Config) Width(sizes []int64) int {
	if c == nil || c.Runner == nil || c.MaxConverters <= 1 || len(sizes) < 2 {
		return 1
	}
	per := c.BytesPerConverter
	if per <= 0 {
		per = DefaultBytesPerConverter
	}
	var total int64
	for _, s := range sizes {
		total += max(s, 0)
	}
	n := int((total + per - 1) / per)
	return max(1, min(n, c.MaxConverters, len(sizes)))
}

// Split cuts files (their sizes, in plan order) into n contiguous,
// non-empty ranges of about equal bytes and returns the start index of
// each range followed by len(sizes): range i is [cuts[i], cuts[i+1]). It
// is a pure function of its arguments: every party computes the same
// shares from the sealed plan. n is clamped to [1, len(sizes)].
func Split(sizes []int64, n int) []int {
	n = max(1, min(n, len(sizes)))
	prefix := make([]int64, len(sizes)+1) // prefix[j]: bytes of files [0, j)
	for i, s := range sizes {
		prefix[i+1] = prefix[i] + max(s, 0)
	}
	total := prefix[len(sizes)]
	cuts := make([]int, n+1)
	for k := 1; k < n; k++ {
		// The first cut that puts k/n of the bytes before it, leaving at
		// least one file for each later share.
		j := cuts[k-1] + 1
		for j < len(sizes)-(n-k) && prefix[j]*int64(n) < total*int64(k) {
			j++
		}
		cuts[k] = j
	}
	cuts[n] = len(sizes)
	return cuts
}

// Request asks a converter for one share of a sealed batch. It is also the
// wire payload of a Lambda converter (with Action "convert").
type Request struct {
	// Stream is the stream id.
	Stream string `json:"stream"`
	// Batch is the sealed plan's batch id.
	Batch int64 `json:"batch"`
	// Plan identifies the sealed plan's content (a digest): a report is
	// never taken for another plan of the same batch id (a checkpoint reset
	// starts the batch ids again).
	Plan string `json:"plan"`
	// Dropped are paths of the sealed plan that the batch does not own
	// (its claim found another batch holding them: a file handed over
	// twice, state.FileClaimer). Converters leave them out before cutting
	// shares; Plan is the digest of the plan without them.
	Dropped []string `json:"dropped,omitempty"`
	// Shares and Share name the share: Share of Shares (0-based).
	Shares int `json:"shares"`
	Share  int `json:"share"`
	// SchemaVersion is the schema history version the batch is written
	// with (the committer resolved it before any share was converted).
	SchemaVersion int `json:"schemaVersion"`
	// TableConfig is the table's configuration as the commit will leave it
	// (the data files' statistics options come from it).
	TableConfig map[string]string `json:"tableConfig,omitempty"`
}

// Key is the checkpoint key of the share's report.
func (r Request) Key() string { return ReportKey(r.Batch, r.Plan, r.SchemaVersion, r.Shares, r.Share) }

// Report is what a converter wrote for its share: the adds the commit
// takes, and the counts of its progress record.
type Report struct {
	// Batch, Plan, Shares, Share and SchemaVersion repeat the request.
	Batch         int64  `json:"batch"`
	Plan          string `json:"plan"`
	Shares        int    `json:"shares"`
	Share         int    `json:"share"`
	SchemaVersion int    `json:"schemaVersion"`
	// Attempt names the conversion attempt whose files the report holds.
	Attempt string `json:"attempt"`
	// CreatedAt is when the report was sealed: a report older than MaxAge
	// may name files that VACUUM has removed as orphans, and is not used.
	CreatedAt time.Time `json:"createdAt"`
	// Files is the number of input files of the share.
	Files int `json:"files"`
	// Adds are the data files written (add actions for the commit).
	Adds []delta.Add `json:"adds"`
	// Rows, Rescued and OutBytes count rows written, rows with rescued
	// data and the bytes of the data files.
	Rows     int64 `json:"rows"`
	Rescued  int64 `json:"rescued"`
	OutBytes int64 `json:"outBytes"`
	// Skipped are the input files skipped (ignoreCorruptFiles,
	// ignoreMissingFiles) with the reason.
	Skipped []Skipped `json:"skipped,omitempty"`
	// NewColumns, when set, says the share found columns (or values) the
	// schema lacks in a mode that evolves it: the share wrote nothing and
	// the committer handles the batch unsplit (schema evolution decides on
	// the whole batch, as without fan-out).
	NewColumns *NewColumns `json:"newColumns,omitempty"`
}

// Skipped is an input file a share skipped.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// NewColumns describes the first file of a share that holds data the
// batch's schema lacks.
type NewColumns struct {
	File       string   `json:"file"`
	Paths      []string `json:"paths,omitempty"`
	Mismatched []string `json:"mismatched,omitempty"`
}

// ReportKey is the checkpoint key of a share's report.
func ReportKey(batch int64, plan string, schemaVersion, shares, share int) string {
	return fmt.Sprintf("%s%020d/%s/v%d-n%d/%04d.json", ReportsPrefix, batch, plan, schemaVersion, shares, share)
}

// MaxAge is how old a sealed report may be and still be committed: the
// data files it names are not in the table until then, so VACUUM (7 days
// of retention by default, never under 24 hours unless its safety check is
// off) could delete them as orphans. An older report makes the committer
// write the batch unsplit.
const MaxAge = 24 * time.Hour

// ReportsPrefix holds the reports in the checkpoint location.
const ReportsPrefix = "fanout/"

// ErrCorruptReport is wrapped when a sealed report cannot be decoded or
// names another share than its key.
var ErrCorruptReport = errors.New("corrupt share report")

// ReadReport loads the report at key; ok is false when there is none.
func ReadReport(ctx context.Context, cp objstore.Store, key string) (*Report, bool, error) {
	data, found, err := objstore.ReadAll(ctx, cp, key)
	if err != nil {
		return nil, false, fmt.Errorf("reading share report %s: %w", key, err)
	}
	if !found {
		return nil, false, nil
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, false, fmt.Errorf("%w %s: %v", ErrCorruptReport, key, err)
	}
	if ReportKey(r.Batch, r.Plan, r.SchemaVersion, r.Shares, r.Share) != key {
		return nil, false, fmt.Errorf("%w %s: it holds batch %d share %d/%d (schema version %d)", ErrCorruptReport, key, r.Batch, r.Share, r.Shares, r.SchemaVersion)
	}
	return &r, true, nil
}

// Seal writes r at its key unless a report is there; it returns the sealed
// report and whether it is r (false: another attempt won, and r's files
// are not part of the batch).
func Seal(ctx context.Context, cp objstore.Store, r *Report) (*Report, bool, error) {
	key := ReportKey(r.Batch, r.Plan, r.SchemaVersion, r.Shares, r.Share)
	got, err := objstore.SealJSON(ctx, cp, key, r, func(ctx context.Context) (*Report, bool, error) {
		return ReadReport(ctx, cp, key)
	})
	if err != nil {
		return nil, false, err
	}
	return got, got == r, nil
}

// Runner converts one share: it returns once the share's report is sealed
// at req.Key() (by this call or an earlier one), or with an error.
type Runner interface {
	Convert(ctx context.Context, req Request) error
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, req Request) error

// Convert calls f.
func (f RunnerFunc) Convert(ctx context.Context, req Request) error { return f(ctx, req) }

// Collect returns the report of every share of base's batch (base.Share is
// ignored): the sealed ones are read, the others converted by runner, at
// most width at once, and then read. The first error cancels the shares
// still running and is returned (the reports sealed so far stay: a rerun
// uses them).
func Collect(ctx context.Context, cp objstore.Store, runner Runner, base Request, width int) ([]*Report, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reports := make([]*Report, base.Shares)
	errs := make([]error, base.Shares)
	sem := make(chan struct{}, max(1, width))
	var wg sync.WaitGroup
	for i := range base.Shares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := base
			req.Share = i
			if r, ok, err := ReadReport(ctx, cp, req.Key()); err != nil || ok {
				reports[i], errs[i] = r, err
				if err != nil {
					cancel()
				}
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			if err := runner.Convert(ctx, req); err != nil {
				errs[i] = fmt.Errorf("converting share %d of %d: %w", i, req.Shares, err)
				cancel()
				return
			}
			r, ok, err := ReadReport(ctx, cp, req.Key())
			switch {
			case err != nil:
				errs[i] = err
			case !ok:
				errs[i] = fmt.Errorf("share %d of %d: the converter returned but no report is sealed at %s", i, req.Shares, req.Key())
			}
			if errs[i] != nil {
				cancel()
			}
			reports[i] = r
		}()
	}
	wg.Wait()
	// The first error that is not the cancellation it caused.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	return reports, nil
}

// Package badrecords provides the exception files of badRecordsPath
// (Databricks' bad_records and bad_files): one batch attempt's bad records
// spooled to a temporary file and its skipped files, uploaded under names
// that come from the batch's sealed plan.
package badrecords

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore"
)

// TimeLayout names the directory of a batch's exception files under
// badRecordsPath, as Databricks names it after the reader's creation time
// (20170724T101153).
const TimeLayout = "20060102T150405"

// badRecordEntry is one line of a bad_records exception file.
type badRecordEntry struct {
	Path   string `json:"path"`
	Record string `json:"record"`
	Reason string `json:"reason"`
}

// badFileEntry is one line of a bad_files exception file.
type badFileEntry struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Sink collects one write attempt's bad records and bad files for
// badRecordsPath (Databricks' exception files):
//
//	<badRecordsPath>/<plan time>/bad_records/batch-<id>.json
//	<badRecordsPath>/<plan time>/bad_files/batch-<id>.json
//
// each holding JSON lines {"path", "record", "reason"} or {"path",
// "reason"}. The names come from the sealed plan (its creation time and
// batch id), so a replayed batch rewrites the same objects instead of
// adding copies; they are uploaded before the batch commits, so a
// committed batch's exception files always exist.
//
// A nil *Sink (no badRecordsPath) records nothing and uploads nothing.
type Sink struct {
	store   objstore.Store // rooted at badRecordsPath
	tempDir string         // where the spool is created ("" for the default)
	dir     string         // the plan's creation time, TimeLayout
	batchID int64
	spool   *os.File // bad records, JSON lines (created on first use)
	enc     *json.Encoder
	records int64
	files   []badFileEntry
	err     error // first spool error
}

// New returns the sink of one write attempt of batch batchID, whose plan
// was created at created; store is rooted at badRecordsPath, and the
// bad records spool is created in tempDir ("" for the default).
func New(store objstore.Store, tempDir string, created time.Time, batchID int64) *Sink {
	return &Sink{store: store, tempDir: tempDir, dir: created.UTC().Format(TimeLayout), batchID: batchID}
}

// Hook returns the read option that receives the bad records of the file
// at full (its full path, as recorded; nil for a nil sink).
func (b *Sink) Hook(full string) func(formats.BadRecord) {
	if b == nil {
		return nil
	}
	return func(r formats.BadRecord) {
		if b.err != nil {
			return
		}
		if b.spool == nil {
			if b.spool, b.err = os.CreateTemp(b.tempDir, "tributary-bad-records-*.json"); b.err != nil {
				b.err = fmt.Errorf("creating the bad records spool: %w", b.err)
				return
			}
			b.enc = json.NewEncoder(b.spool)
			b.enc.SetEscapeHTML(false)
		}
		if err := b.enc.Encode(badRecordEntry{Path: full, Record: r.Record, Reason: r.Reason}); err != nil {
			b.err = fmt.Errorf("writing the bad records spool: %w", err)
			return
		}
		b.records++
	}
}

// File records a skipped input file: its full path and why it was skipped.
func (b *Sink) File(full, reason string) {
	if b != nil {
		b.files = append(b.files, badFileEntry{Path: full, Reason: reason})
	}
}

// key is the object key of one kind of exception file of the batch.
func (b *Sink) key(kind string) string {
	return fmt.Sprintf("%s/%s/batch-%d.json", b.dir, kind, b.batchID)
}

// Upload writes the exception files (nothing when the batch had no bad
// records or files). It fails without a store, and with the first spool
// error.
func (b *Sink) Upload(ctx context.Context) error {
	if b == nil {
		return nil
	}
	if b.err != nil {
		return b.err
	}
	store := b.store
	if store == nil {
		return errors.New("badRecordsPath is set but the engine has no store for it")
	}
	if b.records > 0 {
		if _, err := b.spool.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("reading the bad records spool: %w", err)
		}
		if err := store.Put(ctx, b.key("bad_records"), b.spool); err != nil {
			return fmt.Errorf("badRecordsPath: writing %s: %w", b.key("bad_records"), err)
		}
	}
	if len(b.files) > 0 {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for _, f := range b.files {
			if err := enc.Encode(f); err != nil {
				return err
			}
		}
		if err := store.Put(ctx, b.key("bad_files"), &buf); err != nil {
			return fmt.Errorf("badRecordsPath: writing %s: %w", b.key("bad_files"), err)
		}
	}
	return nil
}

// Discard removes the spool.
func (b *Sink) Discard() {
	if b != nil && b.spool != nil {
		b.spool.Close()
		os.Remove(b.spool.Name())
		b.spool = nil
	}
}

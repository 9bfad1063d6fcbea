package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tributary-io/tributary/core/formats"
)

// badRecordsTimeLayout names the directory of a batch's exception files
// under badRecordsPath, as Databricks names it after the reader's creation
// time (20170724T101153).
const badRecordsTimeLayout = "20060102T150405"

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

// badSink collects one write attempt's bad records and bad files for
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
type badSink struct {
	e       *Engine
	p       *Plan
	spool   *os.File // bad records, JSON lines (created on first use)
	enc     *json.Encoder
	records int64
	files   []badFileEntry
	err     error // first spool error
}

// newBadSink returns the batch's sink, or nil without badRecordsPath.
func (e *Engine) newBadSink(p *Plan) *badSink {
	if e.Config.Reader.BadRecordsPath == "" {
		return nil
	}
	return &badSink{e: e, p: p}
}

// hook returns the read option that receives path's bad records (nil
// without badRecordsPath).
func (b *badSink) hook(path string) func(formats.BadRecord) {
	if b == nil {
		return nil
	}
	full := b.e.fullPath(path)
	return func(r formats.BadRecord) {
		if b.err != nil {
			return
		}
		if b.spool == nil {
			if b.spool, b.err = os.CreateTemp(b.e.TempDir, "tributary-bad-records-*.json"); b.err != nil {
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

// file records a skipped input file.
func (b *badSink) file(fe *fileError) {
	if b != nil {
		b.files = append(b.files, badFileEntry{Path: b.e.fullPath(fe.path), Reason: fe.reason()})
	}
}

// key is the object key of one kind of exception file of the batch.
func (b *badSink) key(kind string) string {
	return fmt.Sprintf("%s/%s/batch-%d.json", b.p.CreatedAt.UTC().Format(badRecordsTimeLayout), kind, b.p.BatchID)
}

// upload writes the exception files (nothing when the batch had no bad
// records or files).
func (b *badSink) upload(ctx context.Context) error {
	if b == nil {
		return nil
	}
	if b.err != nil {
		return b.err
	}
	store := b.e.BadRecords
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

// discard removes the spool.
func (b *badSink) discard() {
	if b != nil && b.spool != nil {
		b.spool.Close()
		os.Remove(b.spool.Name())
		b.spool = nil
	}
}

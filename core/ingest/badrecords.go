package ingest

import (
	"context"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/badrecords"
)

// badSink is one write attempt's badRecordsPath exception files
// (badrecords.Sink), named by the batch's sealed plan, with the engine's
// full paths.
type badSink struct {
	e *Engine
	s *badrecords.Sink
}

// newBadSink returns the batch's sink, or nil without badRecordsPath.
func (e *Engine) newBadSink(p *Plan) *badSink {
	if e.Config.Reader.BadRecordsPath == "" {
		return nil
	}
	return &badSink{e: e, s: badrecords.New(e.BadRecords, e.TempDir, p.CreatedAt, p.BatchID)}
}

// hook returns the read option that receives path's bad records (nil
// without badRecordsPath).
func (b *badSink) hook(path string) func(formats.BadRecord) {
	if b == nil {
		return nil
	}
	return b.s.Hook(b.e.fullPath(path))
}

// file records a skipped input file.
func (b *badSink) file(fe *fileError) {
	if b != nil {
		b.s.File(b.e.fullPath(fe.path), fe.reason())
	}
}

// upload writes the exception files before the batch commits.
func (b *badSink) upload(ctx context.Context) error {
	if b == nil {
		return nil
	}
	return b.s.Upload(ctx)
}

// discard removes the spool.
func (b *badSink) discard() {
	if b != nil {
		b.s.Discard()
	}
}

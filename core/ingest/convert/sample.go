package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tributary-io/tributary/core/formats"
)

// Sample adds one file to a schema inference. A file that cannot be
// read is judged as the write step judges it: read again, tolerated
// (ignoreCorruptFiles, ignoreMissingFiles, badRecordsPath: the records read
// before the failure count, as in Spark) or failing the inference with an
// error naming the file.
//
// A trial (f.Trial) reads the file once and returns any failure as it
// is, unjudged and unlogged: the caller samples the file again, not as a
// trial, to have it judged.
func (c *Converter) Sample(ctx context.Context, inf formats.Inferrer, f SampleFile) error {
	if f.Trial {
		return c.sampleOnce(ctx, inf, f)
	}
	path := f.Path
	failures := Failures{}
	for {
		err := c.sampleOnce(ctx, inf, f)
		fe := (*FileError)(nil)
		if !errors.As(err, &fe) {
			return err
		}
		v, ferr := c.Policy.Judge(failures, fe)
		switch v {
		case RetryBatch:
			c.log().Warn("input file unreadable during schema inference; reading it again", "file", path, "error", fe.Err.Error())
			continue
		case FailBatch:
			return fmt.Errorf("schema inference: %w", ferr)
		}
		c.log().Warn("schema inference skipped the rest of an unreadable file", "file", path, "error", fe.Err.Error())
		return nil
	}
}

// sampleOnce reads one file into the inference. A read failure is a
// *FileError whose rows are the records sampled before it.
func (c *Converter) sampleOnce(ctx context.Context, inf formats.Inferrer, f SampleFile) error {
	path := f.Path
	var err error
	before := inf.Sampled().Records
	if ra, ok := inf.(formats.RandomAccessInferrer); ok {
		var sf *File
		if sf, err = c.Source.OpenFile(ctx, path); err != nil {
			return err
		}
		defer sf.Close()
		err = ra.AddFile(ctx, path, sf)
	} else {
		size := f.Size
		if f.Prefix > 0 {
			size = -1 // not read whole
		}
		r, _, oerr := c.Source.open(ctx, path, size)
		if oerr != nil {
			return oerr
		}
		defer r.Close()
		var rd io.Reader = r
		if f.Prefix > 0 {
			if rd, err = linesPrefix(r, f.Prefix); err != nil {
				return &FileError{Path: path, Fault: FaultCorrupt, Err: err}
			}
		}
		err = inf.Add(ctx, path, rd)
	}
	switch {
	case err == nil, errors.Is(err, formats.ErrSampleFull):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, formats.ErrMalformedRecord):
		return fmt.Errorf("schema inference: mode FAILFAST: %w", err)
	case errors.Is(err, formats.ErrBadOption):
		return fmt.Errorf("schema inference: %w", err)
	}
	return &FileError{Path: path, Fault: FaultCorrupt, Rows: inf.Sampled().Records - before, Err: err}
}

// SampleFile is a file a schema inference reads (Converter.Sample).
type SampleFile struct {
	// Path is the file's path in the source.
	Path string
	// Size is its listed size, negative when unknown: a small local file
	// of a known size is read whole in one read(2), as the decoders read
	// it (wholeread). A size that is no longer right costs nothing but
	// that read: the file is read to its end.
	Size int64
	// Trial reads the file once and returns its failure (a read error,
	// an unreadable or missing file, a FAILFAST record) without judging
	// or logging it. A parallel inference samples files ahead this way
	// and samples a file that failed again, in order and not as a trial,
	// so that what is retried, skipped, logged or fails is what the
	// serial inference does.
	Trial bool
	// Prefix, when positive, samples only the file's first Prefix bytes,
	// up to the last "\n" in them when the file is longer (a provisional
	// schema from a cheap prefix).
	Prefix int64
}

// linesPrefix is r's first n bytes, up to the last "\n" in them when r
// holds more.
func linesPrefix(r io.Reader, n int64) (io.Reader, error) {
	buf := make([]byte, n+1)
	k, err := io.ReadFull(r, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return bytes.NewReader(buf[:k]), nil // the whole file
	case err != nil:
		return nil, err
	}
	return bytes.NewReader(buf[:bytes.LastIndexByte(buf[:n], '\n')+1]), nil
}

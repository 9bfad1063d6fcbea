package jsoninfer

import (
	"math"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
)

// Fork returns an empty inferrer with in's options that reads each file
// whole and alone (no chunk workers of its own: the caller runs forks in
// parallel), or nil when files cannot be sampled apart: with schema hints,
// inferTimestamp or samplingRatio, as for the parallel inference of one
// file (parallel), or after an option error (Add reports it).
func (in *inferrer) Fork() fileformat.Inferrer {
	if in.hints != nil || in.dt != nil || in.sampler != nil || in.optErr != nil {
		return nil
	}
	var f *inferrer
	if n := len(in.spare); n > 0 {
		f, in.spare = in.spare[n-1], in.spare[:n-1]
	} else {
		f = &inferrer{tape: jsontape.Tape{Syn: in.tape.Syn}}
	}
	f.opts, f.mode, f.corrupt, f.max = in.opts, in.mode, in.corrupt, math.MaxInt64
	f.root, f.sample, f.chunk = itype{kind: iStruct}, fileformat.Sample{}, -1
	f.sc.off, f.sc.scanned = in.sc.off, 0
	return f
}

// Merge folds fork f, which sampled the files following in's, into in
// (mergeType: the result is the serial one). f's buffers are kept for the
// next Fork.
func (in *inferrer) Merge(f fileformat.Inferrer) {
	fk := f.(*inferrer)
	mergeType(&in.root, &fk.root)
	in.sample.Files += fk.sample.Files
	in.sample.Bytes += fk.sample.Bytes
	in.sample.Records += fk.sample.Records
	in.sc.scanned += fk.sc.scanned
	fk.root = itype{}
	fk.tape.B = nil
	if len(in.spare) < 64 {
		in.spare = append(in.spare, fk)
	}
}

// FullWith reports whether the byte budget is used up after n more bytes.
func (in *inferrer) FullWith(n int64) bool { return n >= in.max-in.sample.Bytes }

var _ fileformat.ForkInferrer = (*inferrer)(nil)

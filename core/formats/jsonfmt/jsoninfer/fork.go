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
	f.forked = true
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

// Scratch a fork keeps from one file to the next: a few KiB for the
// records of ordinary files. A fork waiting to be merged holds its
// scratch, and up to sampleAhead runs per worker wait: one huge record
// must not leave each of them holding a tape of its size.
const (
	keepNodes = 1 << 10
	keepUndo  = 1 << 8
)

// dropScratch drops the scratch buffers a huge record grew (fork only).
func (in *inferrer) dropScratch() {
	if cap(in.tape.Nodes) > keepNodes {
		in.tape.Nodes = nil
	}
	if cap(in.sc.dec.Nodes) > keepNodes {
		in.sc.dec.Nodes = nil
	}
	if cap(in.sc.log) > keepUndo {
		in.sc.log = nil
	}
	in.tape.B, in.sc.b, in.sc.dec.B = nil, nil, nil
}

var _ fileformat.ForkInferrer = (*inferrer)(nil)

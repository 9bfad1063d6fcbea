package evolve

import (
	"context"
	"fmt"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/core/schema"
)

// One-pass inference. The first batch of a stream without a schema reads
// its files twice: the inference (initial) samples them, then the batch
// is converted with the schema. When the sample holds no file but the
// batch's, and its format's readers can check records against an
// inference (fileformat.FoldInferrer), the batch is converted once
// instead, with a provisional schema inferred from its first PrefixBytes
// (whole files, then the next one's first bytes cut after a "\n": the
// first records of the sample), while its readers check that every
// record keeps the inference's types: a conversion that reads every file
// to its end so proves that the sample's inference is the provisional
// one (its fold goes on from the prefix's types and changes none, whatever
// files the byte budget leaves out after the first), and the data files
// written are those the two passes write. A reader that abandons (a
// record the provisional schema does not read plainly, a type that would
// widen, a column the prefix lacks) makes the batch be inferred and
// converted again, as in two passes. The schema history's version 0 is
// saved after the conversion and before the commit, as in two passes.

// PrefixBytes is how much of the batch's files the provisional schema is
// inferred from.
const PrefixBytes = 1 << 20

// ResolveOnePass is Resolve for a batch whose schema may be inferred in
// one pass: write converts the batch with a schema, folding what it reads
// into fold (convert.Converter.WriteFolded), checking the first n of its
// files (those the inference samples). ok reports that write ran
// and that its output is the batch's, written with the schema returned;
// when ok is false and the schema is nil, the batch was not eligible or
// write failed: the caller resolves with Resolve (nothing was saved).
// When ok is false and the schema is not nil, it is the inferred schema,
// saved as version 0, which the output of write does not have: the
// caller discards that output and converts the batch again.
func (s *Schemas) ResolveOnePass(ctx context.Context, snap *delta.Snapshot, p *batchplan.Plan, write func(sch *schema.StructType, fold formats.Inferrer, n int) error) (sch *schema.StructType, v int, isNew, ok bool, err error) {
	prov, fold, n, err := s.provisional(ctx, p)
	if prov == nil || err != nil {
		return nil, 0, false, false, err
	}
	if err := write(prov, fold, n); err != nil {
		if ctx.Err() != nil {
			return nil, 0, false, false, ctx.Err()
		}
		s.log().Info("one-pass schema inference abandoned: inferring the batch's schema and converting it again",
			"stream", s.Stream, "batchId", p.BatchID, "file", p.Files[0].Path, "reason", err.Error())
		return nil, 0, false, false, nil
	}
	sch, v, isNew, err = s.resolve(ctx, snap, p, func(context.Context, *batchplan.Plan) (*schema.StructType, error) {
		return prov, nil
	})
	if err != nil {
		return nil, 0, false, false, err
	}
	if same, err := sameSchema(sch, prov); err != nil || !same {
		// Another committer saved version 0 meanwhile.
		s.log().Info("one-pass schema inference: the schema history holds another schema; converting the batch again",
			"stream", s.Stream, "batchId", p.BatchID, "file", p.Files[0].Path, "saved", sch.String(), "provisional", prov.String())
		return sch, v, isNew, false, err
	}
	s.log().Info("schema inferred in one pass with the batch's conversion", "stream", s.Stream, "batchId", p.BatchID, "file", p.Files[0].Path)
	return sch, v, isNew, true, nil
}

// provisional is the provisional schema of batch p, the inference of its
// files' prefix it comes from and how many of p's files the inference
// samples (the first: initial's maxFiles), or nil when p's schema is not to be
// inferred from its files alone (a schema history, a user or fixed
// schema, pending files the sample would add) or the format cannot fold.
func (s *Schemas) provisional(ctx context.Context, p *batchplan.Plan) (*schema.StructType, formats.Inferrer, int, error) {
	if _, fixed := s.Format.(formats.FixedSchema); fixed || s.User != nil || len(p.Files) == 0 || p.BatchID != 0 {
		return nil, nil, 0, nil
	}
	if sch, _, err := latestSchema(ctx, s.History); sch != nil || err != nil {
		return nil, nil, 0, err
	}
	var hints []schema.HintField
	if s.Hints != "" {
		h, err := schema.ParseDDL(s.Hints)
		if err != nil {
			return nil, nil, 0, nil // Resolve reports it
		}
		hints = h
	}
	fold, ok := s.Format.NewInferrer(s.InferOptions(hints, s.SampleBytes)).(fileformat.FoldInferrer)
	if !ok || !fold.Folds() {
		return nil, nil, 0, nil
	}
	maxFiles := s.SampleFiles
	if maxFiles <= 0 {
		maxFiles = formats.DefaultSampleFiles
	}
	if len(p.Files) < maxFiles {
		// initial samples pending files after the batch's too.
		more, err := s.State.Pending(ctx, s.Stream, 1)
		if err != nil || len(more) > 0 {
			return nil, nil, 0, err
		}
	}
	// The prefix: whole files in order while they fit in PrefixBytes (by
	// their listed sizes), then the next one's first bytes, within the
	// sample's caps: the first records of initial's sample.
	left := int64(PrefixBytes)
	for _, f := range p.Files[:min(len(p.Files), maxFiles)] {
		if fold.Full() || left <= 0 {
			break
		}
		sf := convert.SampleFile{Path: f.Path, Size: f.Size, Trial: true, Prefix: left}
		if f.Size >= 0 && f.Size < left {
			sf.Prefix = 0 // whole, read as initial reads it
		}
		if err := s.Sample(ctx, fold, sf); err != nil {
			return nil, nil, 0, ctx.Err()
		}
		if sf.Prefix > 0 {
			break
		}
		left -= f.Size
	}
	if fold.Sampled().Records == 0 {
		return nil, nil, 0, nil
	}
	return s.inferred(fold), fold, min(len(p.Files), maxFiles), nil
}

// sameSchema reports whether a and b are stored alike.
func sameSchema(a, b *schema.StructType) (bool, error) {
	ja, err := schema.MarshalDeltaJSON(a)
	if err != nil {
		return false, fmt.Errorf("one-pass schema inference: %w", err)
	}
	jb, err := schema.MarshalDeltaJSON(b)
	if err != nil {
		return false, fmt.Errorf("one-pass schema inference: %w", err)
	}
	return ja == jb && schema.Equal(a, b), nil
}

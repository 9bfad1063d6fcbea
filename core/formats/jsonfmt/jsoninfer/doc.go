// Package jsoninfer infers a stream's schema from JSON Lines (or multiLine
// JSON) files as Spark's JsonInferSchema does: the type lattice and its
// merge, primitivesAsString, prefersDecimal, inferTimestamp, schema hints
// and samplingRatio, first-seen field spelling, and the parse modes' handling
// of malformed records. Large files are inferred on GOMAXPROCS workers in
// line-aligned chunks whose types are merged in file order, so the result is
// the serial one. Records in standard JSON are inferred by a type scanner
// straight from their bytes (scan.go); anything else goes through the
// record tape (jsontape), with the same result.
package jsoninfer

import "github.com/tributary-io/tributary/core/formats/fileformat"

// New starts a schema inference over JSON files with opts.
func New(opts fileformat.InferOptions) fileformat.Inferrer {
	return newInferrer(opts)
}

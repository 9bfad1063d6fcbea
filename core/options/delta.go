package options

import "github.com/tributary-io/tributary/core/options/deltaopts"

// DeltaSource are the options of a Delta table read as a stream
// (deltaopts.DeltaSource).
type DeltaSource = deltaopts.DeltaSource

// StartingVersion is the Delta source's startingVersion
// (deltaopts.StartingVersion).
type StartingVersion = deltaopts.StartingVersion

// ChangePolicy says how a Delta source treats commits that update or delete
// data (deltaopts.ChangePolicy).
type ChangePolicy = deltaopts.ChangePolicy

// Change policies, from the Delta source options.
const (
	ChangesFail                   = deltaopts.ChangesFail
	ChangesSkip                   = deltaopts.ChangesSkip
	ChangesReemit                 = deltaopts.ChangesReemit
	ChangesIgnorePartitionDeletes = deltaopts.ChangesIgnorePartitionDeletes
)

// deltaOptions are the Delta source options (package deltaopts), applied to
// the stream's Delta.
func deltaOptions() []optSpec {
	var out []optSpec
	for _, d := range deltaopts.Specs() {
		if d.Refused {
			out = append(out, refusedOpt(d.Name, scopeDelta, nil, d.Doc))
			continue
		}
		out = append(out, optSpec{
			name: d.Name, scope: scopeDelta, def: d.Default, doc: d.Doc,
			set: func(s *Stream, v string) error { return d.Set(&s.Delta, v) },
			get: func(s *Stream) (string, bool) { return d.Get(&s.Delta) },
		})
	}
	return out
}

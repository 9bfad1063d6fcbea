package inboxstate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// claimedVersion is the version of a file a claim of this process named.
type claimedVersion struct {
	etag string
	// disc is the discovery time of the record claimed (0: claimed
	// without a record).
	disc int64
}

// consumes reports whether a claim of v makes the inbox record c moot: c
// names the same version, or c does not allow overwrites (the file is
// known, another version is not ingested), or c is an allowed overwrite
// discovered no later than the claimed version (its claim would find the
// newer version's item and drop it). The zero claimedVersion (no claim)
// consumes nothing.
func (v claimedVersion) consumes(c candidate) bool {
	if v == (claimedVersion{}) {
		return false
	}
	return c.file.ETag == v.etag || !c.allow || (v.disc != 0 && c.disc <= v.disc)
}

// tidy takes the records of the files this process claimed out of the
// inbox objects it has scanned: an object left without pending records is
// deleted, one with some left is replaced by an object of those (same
// discovery time and options: written first, the old one deleted after,
// so that a concurrent scan sees one or both, never neither). Afterwards
// Pending in any process no longer returns the claimed files without
// reading their items (a record written after the claim is a duplicate
// hand-over, which the next claim drops). Objects whose records no claim
// touched are left alone. The first failure is returned: the claim's
// caller retries, and the replayed claim tidies again.
func (s *Store) tidy(ctx context.Context, stream string) error {
	type job struct {
		key  string
		obj  *object
		keep []inboxFile
	}
	var jobs []job
	s.mu.Lock()
	claimed := s.claimed[stream]
	for k, ps := range s.open[stream] {
		o := s.objs[k]
		if o == nil {
			continue // not cached: gone from the inbox at the last listing
		}
		open := make(map[string]bool, len(ps))
		for _, p := range ps {
			open[p] = true
		}
		var keep []inboxFile
		touched := false
		for _, f := range o.Files {
			c := recordOf(k, o, f)
			switch {
			case !open[f.Path]:
				// Not pending at the last scan (held by a batch).
			case claimed[f.Path].consumes(c):
				touched = true
			default:
				keep = append(keep, f)
			}
		}
		if touched {
			jobs = append(jobs, job{key: k, obj: o, keep: keep})
		}
	}
	s.mu.Unlock()
	slices.SortFunc(jobs, func(a, b job) int { return strings.Compare(a.key, b.key) })
	for _, j := range jobs {
		if len(j.keep) > 0 {
			o := *j.obj
			o.Files = j.keep
			data, err := json.Marshal(o)
			if err != nil {
				return fmt.Errorf("inboxstate: %w", err)
			}
			key := newKey(o.DiscoveryNanos)
			if err := s.inbox.Put(ctx, key, bytes.NewReader(data)); err != nil {
				return fmt.Errorf("inboxstate: replacing the inbox object %s by the %d records its claimed files left: %w", j.key, len(j.keep), err)
			}
			paths := make([]string, len(j.keep))
			for i, f := range j.keep {
				paths[i] = f.Path
			}
			s.mu.Lock()
			s.objs[key] = &o // written here: no GET to read it back
			if s.open[stream] == nil {
				s.open[stream] = map[string][]string{}
			}
			s.open[stream][key] = paths
			s.mu.Unlock()
		}
		if err := s.drop(ctx, stream, j.key); err != nil {
			return err
		}
	}
	return nil
}

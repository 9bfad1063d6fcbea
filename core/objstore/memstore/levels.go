package memstore

import (
	"context"
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
)

// ListLevel implements objstore.LevelLister.
func (s *Store) ListLevel(ctx context.Context, prefix string) ([]objstore.ObjectInfo, []string, error) {
	var objs []objstore.ObjectInfo
	var prefixes []string
	seen := map[string]bool{}
	for info, err := range s.List(ctx, objstore.ListOptions{Prefix: prefix}) {
		if err != nil {
			return nil, nil, err
		}
		rest := info.Key[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			p := prefix + rest[:i+1]
			if !seen[p] {
				seen[p] = true
				prefixes = append(prefixes, p)
			}
			continue
		}
		objs = append(objs, info)
	}
	return objs, prefixes, nil
}

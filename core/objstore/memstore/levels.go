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

// ListPrefixes implements objstore.PrefixLister.
func (s *Store) ListPrefixes(ctx context.Context, prefix string, maxEntries int) ([]string, error) {
	var prefixes []string
	entries := 0
	for info, err := range s.List(ctx, objstore.ListOptions{Prefix: prefix}) {
		if err != nil {
			return nil, err
		}
		rest := info.Key[len(prefix):]
		i := strings.IndexByte(rest, '/')
		if i >= 0 && len(prefixes) > 0 && prefixes[len(prefixes)-1] == prefix+rest[:i+1] {
			continue // the same prefix again: one entry
		}
		if entries++; maxEntries > 0 && entries > maxEntries {
			break
		}
		if i >= 0 {
			prefixes = append(prefixes, prefix+rest[:i+1])
		}
	}
	return prefixes, nil
}

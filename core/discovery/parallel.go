package discovery

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// maxFanOutDepth bounds how many levels ListParallel descends to find
// enough prefixes to share among its workers.
const maxFanOutDepth = 4

// ListParallel yields the same files as List, listed by up to workers
// goroutines when the store is an objstore.LevelLister: the key hierarchy
// is expanded level by level ('/' delimiter) until there are at least as
// many sub-prefixes as workers (or maxFanOutDepth levels), then each
// sub-prefix is listed in full by one worker. Hidden sub-prefixes are
// pruned. Files come in lexical order within a prefix, not across
// prefixes. Stores without the capability, or workers <= 1, list sequentially.
func ListParallel(ctx context.Context, src objstore.Store, f Filter, workers int) iter.Seq2[Found, error] {
	ll, ok := src.(objstore.LevelLister)
	if !ok || workers <= 1 {
		return List(ctx, src, f)
	}
	return func(yield func(Found, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var top []objstore.ObjectInfo
		frontier := []string{""}
		for depth := 0; depth < maxFanOutDepth && len(frontier) > 0 && len(frontier) < workers; depth++ {
			var next []string
			for _, p := range frontier {
				objs, subs, err := ll.ListLevel(ctx, p)
				if err != nil {
					yield(Found{}, fmt.Errorf("listing source level %q: %w", p, err))
					return
				}
				top = append(top, objs...)
				for _, s := range subs {
					if !hiddenPrefix(s) {
						next = append(next, s)
					}
				}
			}
			frontier = next
		}
		for _, info := range top {
			if f.acceptInfo(info) && !yield(foundOf(info), nil) {
				return
			}
		}
		type item struct {
			f   Found
			err error
		}
		out := make(chan item, 256)
		work := make(chan string)
		var wg sync.WaitGroup
		for i := 0; i < min(workers, len(frontier)); i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range work {
					for info, err := range src.List(ctx, objstore.ListOptions{Prefix: p, Unreadable: true}) {
						if err != nil {
							select {
							case out <- item{err: fmt.Errorf("listing source prefix %q: %w", p, err)}:
							case <-ctx.Done():
							}
							return
						}
						if !f.acceptInfo(info) {
							continue
						}
						select {
						case out <- item{f: foundOf(info)}:
						case <-ctx.Done():
							return
						}
					}
				}
			}()
		}
		go func() {
			defer close(out)
			defer wg.Wait()
			defer close(work)
			for _, p := range frontier {
				select {
				case work <- p:
				case <-ctx.Done():
					return
				}
			}
		}()
		for it := range out {
			if it.err != nil {
				yield(Found{}, it.err)
				return
			}
			if !yield(it.f, nil) {
				return
			}
		}
	}
}

func foundOf(info objstore.ObjectInfo) Found {
	return Found{File: state.File{Path: info.Key, Size: info.Size, ETag: info.ETag, ModTime: info.ModTime}, Skip: info.Unreadable}
}

// hiddenPrefix reports a sub-prefix whose last segment is Hidden.
func hiddenPrefix(p string) bool {
	p = strings.TrimSuffix(p, "/")
	return Hidden(p[strings.LastIndexByte(p, '/')+1:])
}

package discovery

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
)

// Latencies of the model in BenchmarkPassFanOut: an S3 LIST page of 1,000
// keys and a DynamoDB BatchGetItem of 100 keys, as measured from a Lambda
// in the same region (order of magnitude).
const (
	modelListPage = 60 * time.Millisecond
	modelBatchGet = 12 * time.Millisecond
)

// slowStore lists a fixed, sorted key set, delaying each page of 1,000
// keys (and each prefix listing) by modelListPage; its own listing costs
// little CPU, so that the model's latencies dominate.
type slowStore struct {
	*memstore.Store
	infos []objstore.ObjectInfo
}

func (s slowStore) List(ctx context.Context, o objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	return func(yield func(objstore.ObjectInfo, error) bool) {
		lo := max(o.StartAfter, o.Prefix)
		i := sort.Search(len(s.infos), func(i int) bool { return s.infos[i].Key >= lo })
		for n := 0; i < len(s.infos); i, n = i+1, n+1 {
			info := s.infos[i]
			if info.Key == o.StartAfter {
				n--
				continue
			}
			if !strings.HasPrefix(info.Key, o.Prefix) {
				return
			}
			if n%1000 == 0 {
				time.Sleep(modelListPage)
			}
			if !yield(info, nil) {
				return
			}
		}
	}
}

func (s slowStore) ListPrefixes(ctx context.Context, prefix string, maxEntries int) ([]string, error) {
	time.Sleep(modelListPage)
	return s.Store.ListPrefixes(ctx, prefix, maxEntries)
}

// slowState delays Register by one BatchGetItem per 100 files.
type slowState struct{ state.Store }

func (s slowState) Register(ctx context.Context, stream string, files []state.File, opts state.RegisterOptions) ([]bool, error) {
	time.Sleep(time.Duration((len(files)+99)/100) * modelBatchGet)
	return s.Store.Register(ctx, stream, files, opts)
}

// BenchmarkPassFanOut measures a backfill pass over 32,000 known files in
// 16 dated prefixes on the latency model above, by worker count; it
// reports files listed per second (docs/backfill.md quotes it).
func BenchmarkPassFanOut(b *testing.B) {
	ctx := context.Background()
	mem := memstore.New()
	var files []state.File
	for d := range 16 {
		for i := range 2000 {
			k := fmt.Sprintf("2026/12/%02d/part-%05d.json", d, i)
			if err := mem.Put(ctx, k, strings.NewReader("x")); err != nil {
				b.Fatal(err)
			}
			files = append(files, state.File{Path: k})
		}
	}
	var infos []objstore.ObjectInfo
	for info, err := range mem.List(ctx, objstore.ListOptions{}) {
		if err != nil {
			b.Fatal(err)
		}
		infos = append(infos, info)
	}
	src := slowStore{Store: mem, infos: infos}
	known := memstate.New()
	if _, err := known.Register(ctx, "s", files, state.RegisterOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			r := &Registrar{State: slowState{known}, Stream: "s"}
			for b.Loop() {
				res, err := r.Pass(ctx, PassOptions{Source: src, Workers: workers})
				if err != nil || res.Listed != len(files) || res.New != 0 {
					b.Fatalf("%+v, %v", res, err)
				}
			}
			b.ReportMetric(float64(len(files)*b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}

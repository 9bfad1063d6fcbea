package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
)

// creatorStore is a memstore that is an objstore.Creator: a pending
// object buffers its bytes and Puts them at Commit. It counts what it
// creates, commits and aborts, and fails the Commit of the failAt-th
// object (from 1; 0: none).
type creatorStore struct {
	*memstore.Store
	failAt                     int
	created, committed, aborts int
}

var errCommit = errors.New("commit failed on purpose")

func (s *creatorStore) Create(ctx context.Context, key string) (objstore.PendingObject, error) {
	if err := objstore.ValidateKey(key); err != nil {
		return nil, err
	}
	s.created++
	return &bufObject{s: s, key: key, fail: s.created == s.failAt}, nil
}

type bufObject struct {
	s    *creatorStore
	key  string
	buf  bytes.Buffer
	fail bool
	done bool
}

func (o *bufObject) Write(p []byte) (int, error) {
	if o.done {
		return 0, errors.New("finished")
	}
	return o.buf.Write(p)
}

func (o *bufObject) Commit(ctx context.Context) error {
	if o.done {
		return errors.New("finished")
	}
	o.done = true
	if o.fail {
		return errCommit
	}
	o.s.committed++
	return o.s.Put(ctx, o.key, &o.buf)
}

func (o *bufObject) Abort() {
	if !o.done {
		o.done = true
		o.s.aborts++
	}
}

// TestWriteInPlace writes the same random rows over three partitions with
// small target files through a table store that is an objstore.Creator
// (the data files written in place and committed) and through one that is
// not (temporary files uploaded with Put): the adds are the same but for
// their random names, every add's size is its file's, and the files hold
// the same bytes. A failing Commit fails the write, and discarding the
// attempt leaves no data file and no pending object.
func TestWriteInPlace(t *testing.T) {
	ctx := context.Background()
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "n", Type: schema.Long, Nullable: true},
		{Name: "s", Type: schema.String, Nullable: true},
	}}
	var parts []hivepart.Partition
	for _, v := range []string{"a", "b", "c"} {
		parts = append(parts, hivepart.Partition{Dir: "p=" + v + "/", Values: map[string]*string{"p": &v}})
	}
	clock := func() time.Time { return time.UnixMilli(1_700_000_000_000) }
	type written struct {
		adds  []delta.Add
		files [][]byte
	}
	run := func(t *testing.T, table objstore.Store, seed uint64, target int) (written, error) {
		tmp := t.TempDir()
		defer func() {
			// No temporary file is left behind, whatever happened.
			if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
				t.Fatalf("temporary directory: %v, %d entries left", err, len(left))
			}
		}()
		c := &Converter{Table: table, Source: Source{TempDir: tmp}, TargetFileRows: target, Now: clock}
		fw := &fileWriter{c: c, sch: s, parts: map[string]*partFile{}}
		r := rand.New(rand.NewPCG(seed, 11))
		next := 0
		for range 1 + r.IntN(30) {
			rows := make([][]any, r.IntN(40))
			for i := range rows {
				next++
				rows[i] = []any{int64(next), strings.Repeat("x", r.IntN(20))}
			}
			if err := fw.write(ctx, parts[r.IntN(len(parts))], rows); err != nil {
				fw.discardAll(ctx)
				return written{}, err
			}
		}
		adds, err := fw.finish(ctx)
		if err != nil {
			fw.discardAll(ctx)
			return written{}, err
		}
		var w written
		for _, a := range adds {
			rc, err := table.Get(ctx, a.Path)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := b.ReadFrom(rc); err != nil {
				t.Fatal(err)
			}
			rc.Close()
			if int64(b.Len()) != a.Size {
				t.Fatalf("add %s: size %d, file %d bytes", a.Path, a.Size, b.Len())
			}
			w.files = append(w.files, b.Bytes())
			a.Path = *a.PartitionValues["p"] // names hold a random UUID
			w.adds = append(w.adds, a)
		}
		return w, nil
	}
	for seed := range uint64(20) {
		target := []int{5, 37, 1_000_000}[seed%3]
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			plain := memstore.New()
			want, err := run(t, plain, seed, target)
			if err != nil {
				t.Fatal(err)
			}
			cs := &creatorStore{Store: memstore.New()}
			got, err := run(t, cs, seed, target)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.adds, want.adds) {
				t.Fatalf("adds written in place:\n%+v\nwith Put:\n%+v", got.adds, want.adds)
			}
			for i := range want.files {
				if !bytes.Equal(got.files[i], want.files[i]) {
					t.Fatalf("data file %d differs (%d bytes in place, %d with Put)", i, len(got.files[i]), len(want.files[i]))
				}
			}
			if cs.created != len(want.adds) || cs.committed != cs.created || cs.aborts != 0 {
				t.Fatalf("%d files: created %d, committed %d, aborted %d", len(want.adds), cs.created, cs.committed, cs.aborts)
			}
			if len(want.adds) < 2 {
				return
			}
			// The second file's Commit fails: the write fails, and the
			// attempt leaves nothing behind.
			cs = &creatorStore{Store: memstore.New(), failAt: 2}
			if _, err := run(t, cs, seed, target); !errors.Is(err, errCommit) {
				t.Fatalf("write with a failing Commit = %v, want errCommit", err)
			}
			for info, err := range cs.List(ctx, objstore.ListOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				t.Fatalf("%s left in the table", info.Key)
			}
			if open := cs.created - cs.committed - cs.aborts - 1; open != 0 {
				t.Fatalf("created %d, committed %d, aborted %d, one failed: %d never finished", cs.created, cs.committed, cs.aborts, open)
			}
		})
	}
}

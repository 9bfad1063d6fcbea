package jsoninfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// cutFiles cuts data into up to n files at line boundaries (some empty).
func cutFiles(r *rand.Rand, data []byte, n int) [][]byte {
	var files [][]byte
	for i := 1; i < n && len(data) > 0; i++ {
		cut := r.IntN(len(data) + 1)
		if nl := bytes.IndexByte(data[cut:], '\n'); nl >= 0 {
			cut += nl + 1
		} else {
			cut = len(data)
		}
		files = append(files, data[:cut])
		data = data[cut:]
	}
	return append(files, data)
}

// inferForked infers files as the parallel sampling does (evolve): runs
// of up to run files each into a fork of its own, merged in order; a run
// with a file whose fork failed, or that comes when the inferrer does not
// fork, is added to the inferrer itself. It describes the result as
// inferWith does, and reports whether any file was forked.
func inferForked(opts fileformat.InferOptions, files [][]byte, run int) (string, bool) {
	in := newInferrer(opts)
	forked := false
	var errs []string
	serial := func(lo, hi int) bool {
		for i := lo; i < hi; i++ {
			if err := in.Add(context.Background(), fmt.Sprintf("f%d.json", i), bytes.NewReader(files[i])); err != nil {
				errs = append(errs, err.Error())
				if errors.Is(err, fileformat.ErrMalformedRecord) {
					return false
				}
			}
		}
		return true
	}
	for lo := 0; lo < len(files); lo += run {
		hi := min(lo+run, len(files))
		f := in.Fork()
		ok := f != nil
		for i := lo; ok && i < hi; i++ {
			ok = f.Add(context.Background(), fmt.Sprintf("f%d.json", i), bytes.NewReader(files[i])) == nil
		}
		if ok {
			in.Merge(f)
			forked = true
			continue
		}
		if !serial(lo, hi) {
			break
		}
	}
	var b strings.Builder
	dumpType(&b, &in.root)
	return fmt.Sprintf("%s\n%s\n%+v %q", in.Schema(), b.String(), in.Sampled(), errs), forked
}

// TestForkMatchesSerial: files inferred one by one into forks and merged
// in order infer exactly what one inferrer adding them does (schema,
// types and field spellings as held, files, bytes and records sampled,
// errors), on random documents cut into random files, in every
// combination of the options the inference consults (those Fork refuses
// included: then nothing forks).
func TestForkMatchesSerial(t *testing.T) {
	forked := 0
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 41))
		bits := r.Uint32()
		if seed < 24 {
			bits = 1 << seed
		}
		opts := scanOptions(t, bits)
		data := scanDoc(r, 20+r.IntN(200), []int{0, 1, 3, 30}[seed%4])
		files := cutFiles(r, data, 1+r.IntN(12))
		want, _ := inferWith(opts, files, false, -1)
		got, ok := inferForked(opts, files, 1+r.IntN(4))
		if got != want {
			t.Fatalf("seed %d bits %#x:\nserial %s\nforked %s", seed, bits, want, got)
		}
		if ok {
			forked++
		}
	}
	if forked < 60 {
		t.Fatalf("only %d of 400 cases forked", forked)
	}
}

// FuzzForkMatchesSerial: forked inference matches serial inference on
// arbitrary input and options.
func FuzzForkMatchesSerial(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"A\":\"x\"}\n{\"b\":[1,2.5]}\n"), uint32(0), uint8(3))
	f.Add([]byte("[{\"a\":{\"b\":1}},{\"a\":5}]\nbad\n{\"a\":[]}\n"), uint32(2<<5), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, bits uint32, n uint8) {
		opts := scanOptions(t, bits)
		files := cutFiles(rand.New(rand.NewPCG(uint64(n), 7)), data, 1+int(n%16))
		want, _ := inferWith(opts, files, false, -1)
		if got, _ := inferForked(opts, files, 1+int(n%3)); got != want {
			t.Fatalf("bits %#x:\nserial %s\nforked %s", bits, want, got)
		}
	})
}

// TestForkDropsScratch: a fork that sampled a file with a huge record
// (through the scanner and, with a non-standard record, the tape) keeps no
// scratch of that size for the time it waits to be merged, and infers
// what one inferrer does.
func TestForkDropsScratch(t *testing.T) {
	var b strings.Builder
	for _, quote := range []string{`"`, `'`} { // single quotes: the tape path
		b.WriteString("{")
		for i := range 5000 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%sf%d%s:[%d,{\"x\":%d}]", quote, i, quote, i, i)
		}
		b.WriteString("}\n")
	}
	b.WriteString("{\"a\":1}\n")
	files := [][]byte{[]byte(b.String()), []byte("{\"a\":2.5}\n")}
	opts := fileformat.InferOptions{InferColumnTypes: true}
	in := newInferrer(opts)
	f := in.Fork().(*inferrer)
	if err := f.Add(context.Background(), "f0.json", bytes.NewReader(files[0])); err != nil {
		t.Fatal(err)
	}
	if cap(f.tape.Nodes) > keepNodes || cap(f.sc.dec.Nodes) > keepNodes || cap(f.sc.log) > keepUndo || f.tape.B != nil {
		t.Errorf("fork keeps scratch: %d nodes, %d decoder nodes, %d undo entries", cap(f.tape.Nodes), cap(f.sc.dec.Nodes), cap(f.sc.log))
	}
	if f.sc.scanned == 0 {
		t.Error("the scanner inferred no record: the test does not reach its scratch")
	}
	in.Merge(f)
	if err := in.Add(context.Background(), "f1.json", bytes.NewReader(files[1])); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	dumpType(&got, &in.root)
	want, _ := inferWith(opts, files, false, -1)
	if g := fmt.Sprintf("%s\n%s\n%+v %q", in.Schema(), got.String(), in.Sampled(), []string(nil)); g != want {
		t.Errorf("forked %s\nserial %s", g, want)
	}
}

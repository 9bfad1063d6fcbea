package jsoninfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/maptest"
)

// randomDoc writes random JSON lines: nested objects and arrays, numbers
// of every inferred kind, strings (empty ones too), nulls, field names
// differing only by case, blank lines and malformed lines.
func randomDoc(r *rand.Rand, lines int) []byte {
	names := []string{"a", "A", "b", "c", "C", "d", "e", "x", "nested", "Nested", "list", ""}
	var value func(depth int) string
	value = func(depth int) string {
		switch k := r.IntN(13); {
		case k == 0 && depth < 3:
			var b strings.Builder
			b.WriteByte('{')
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%q:%s", names[r.IntN(len(names))], value(depth+1))
			}
			b.WriteByte('}')
			return b.String()
		case k == 1 && depth < 3:
			var b strings.Builder
			b.WriteByte('[')
			for i := range r.IntN(3) {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(value(depth + 1))
			}
			b.WriteByte(']')
			return b.String()
		case k == 2:
			return "null"
		case k == 3:
			return fmt.Sprint(r.Int64N(1000) - 500)
		case k == 4:
			return fmt.Sprintf("%d.%d", r.IntN(100), r.IntN(1000))
		case k == 5:
			return "123456789012345678901234567890"
		case k == 6:
			return "1.5e3"
		case k == 7:
			return `""`
		case k == 8:
			return `"text"`
		case k == 9:
			return "true"
		case k == 10:
			return "NaN"
		}
		return fmt.Sprint(r.IntN(10))
	}
	var b bytes.Buffer
	for range lines {
		switch r.IntN(40) {
		case 0:
			b.WriteString("\n")
			continue
		case 1:
			b.WriteString("{\"a\": broken\n")
			continue
		case 2:
			fmt.Fprintf(&b, "[%s,%s]\n", value(0), value(0)) // an array of records, or malformed
			continue
		}
		b.WriteByte('{')
		for i := range 1 + r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", names[r.IntN(len(names))], value(0))
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// inferBoth infers data serially and in parallel chunks of chunk bytes
// (split over two files) and returns both results.
func inferBoth(t *testing.T, data []byte, opts fileformat.InferOptions, chunk int) (serial, par string) {
	t.Helper()
	half := bytes.IndexByte(data[len(data)/2:], '\n')
	parts := [][]byte{data}
	if half >= 0 {
		cut := len(data)/2 + half + 1
		parts = [][]byte{data[:cut], data[cut:]}
	}
	run := func(chunk int, inPlace bool) string {
		in := newInferrer(opts)
		in.chunk = chunk
		var errs []string
		failed := false
		for i, p := range parts {
			var src io.Reader = bytes.NewReader(p)
			var m *maptest.Poison
			if inPlace {
				m = maptest.NewPoison(p)
				src = m
			}
			err := in.Add(context.Background(), fmt.Sprintf("f%d.json", i), src)
			if m != nil && m.Live.Load() != 0 {
				t.Fatalf("%d shared windows left mapped", m.Live.Load())
			}
			if err != nil {
				errs = append(errs, err.Error())
				if failed = errors.Is(err, fileformat.ErrMalformedRecord); failed {
					break
				}
			}
		}
		return fmt.Sprintf("%s %s %v", in.Schema(), sampled(in, failed), errs)
	}
	serial, par = run(-1, false), run(chunk, false)
	// In place (blocks of shared windows, poisoned when unmapped): the
	// same result.
	if inPlace := run(chunk, true); inPlace != par {
		t.Fatalf("chunk %d:\nread     %s\nin place %s", chunk, par, inPlace)
	}
	return serial, par
}

// sampled prints what in sampled. After a malformed record under FAILFAST
// (failed) the bytes read are left out: the inference fails, so they
// count against no byte budget, and the serial reader (64 KiB reads) and
// the parallel one (blocks of lines, chunks in flight) have read ahead of
// the malformed line by different amounts.
func sampled(in *inferrer, failed bool) string {
	s := in.Sampled()
	if failed {
		s.Bytes = -1
	}
	return fmt.Sprintf("%+v", s)
}

// TestParallelInferenceMatchesSerial: parallel inference gives the serial
// result on random documents, in every mode and inference setting.
func TestParallelInferenceMatchesSerial(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	cases := []struct {
		name string
		opts fileformat.InferOptions
	}{
		{"typed", fileformat.InferOptions{InferColumnTypes: true}},
		{"strings", fileformat.InferOptions{}},
		{"decimal", fileformat.InferOptions{InferColumnTypes: true, PrefersDecimal: true}},
		{"primitivesAsString", fileformat.InferOptions{InferColumnTypes: true, PrimitivesAsString: true}},
		{"dropMalformed", fileformat.InferOptions{InferColumnTypes: true, Mode: "DROPMALFORMED"}},
		{"failFast", fileformat.InferOptions{InferColumnTypes: true, Mode: "FAILFAST"}},
		{"dropNull", fileformat.InferOptions{InferColumnTypes: true, DropFieldIfAllNull: true, RescuedDataColumn: "_rescued_data"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(30) {
				r := rand.New(rand.NewPCG(seed, 11))
				data := randomDoc(r, 50+r.IntN(400))
				for _, chunk := range []int{1, 64, 1 << 10} {
					serial, par := inferBoth(t, data, c.opts, chunk)
					if serial != par {
						t.Fatalf("seed %d chunk %d:\nserial   %s\nparallel %s", seed, chunk, serial, par)
					}
				}
			}
		})
	}
}

// FuzzParallelInference compares parallel and serial inference on
// arbitrary input.
func FuzzParallelInference(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"A\":\"x\"}\n{\"b\":[1,2.5]}\n"), true)
	f.Add([]byte("{\"a\":{\"b\":1}}\nbad\n{\"a\":[]}\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, typed bool) {
		if runtime.GOMAXPROCS(0) < 2 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		}
		serial, par := inferBoth(t, data, fileformat.InferOptions{InferColumnTypes: typed}, 8)
		if serial != par {
			t.Fatalf("serial   %s\nparallel %s", serial, par)
		}
	})
}

// TestParallelInferenceManyFiles: a document cut into many files, some
// smaller than a chunk (inferred in the caller) and some larger (inferred
// by workers), infers as serially, the chunk buffers passing from file to
// file; a run of small files reuses one buffer.
func TestParallelInferenceManyFiles(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, c := range []struct {
		name string
		opts fileformat.InferOptions
	}{
		{"typed", fileformat.InferOptions{InferColumnTypes: true}},
		{"strings", fileformat.InferOptions{}},
		{"failFast", fileformat.InferOptions{InferColumnTypes: true, Mode: "FAILFAST"}},
		{"dropMalformed", fileformat.InferOptions{InferColumnTypes: true, Mode: "DROPMALFORMED"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(20) {
				r := rand.New(rand.NewPCG(seed, 17))
				data := randomDoc(r, 200+r.IntN(600))
				var parts [][]byte
				for len(data) > 0 {
					n := min(len(data), 1+r.IntN(3000))
					if i := bytes.IndexByte(data[n-1:], '\n'); i >= 0 {
						n += i
					} else {
						n = len(data)
					}
					parts, data = append(parts, data[:n]), data[n:]
				}
				for _, chunk := range []int{256, 1 << 10} {
					run := func(chunk int) string {
						in := newInferrer(c.opts)
						in.chunk = chunk
						var errs []string
						failed := false
						for i, p := range parts {
							if err := in.Add(context.Background(), fmt.Sprintf("f%d.json", i), bytes.NewReader(p)); err != nil {
								errs = append(errs, err.Error())
								if failed = errors.Is(err, fileformat.ErrMalformedRecord); failed {
									break
								}
							}
						}
						return fmt.Sprintf("%s %s %v", in.Schema(), sampled(in, failed), errs)
					}
					if serial, par := run(-1), run(chunk); serial != par {
						t.Fatalf("seed %d chunk %d, %d files:\nserial   %s\nparallel %s", seed, chunk, len(parts), serial, par)
					}
				}
			}
		})
	}
	t.Run("reuse", func(t *testing.T) {
		in := newInferrer(fileformat.InferOptions{InferColumnTypes: true})
		var first *byte
		for i := range 5 {
			if err := in.Add(context.Background(), fmt.Sprintf("f%d.json", i), strings.NewReader("{\"a\":1}\n{\"b\":\"x\"}\n")); err != nil {
				t.Fatal(err)
			}
			if len(in.parFree) != 1 {
				t.Fatalf("file %d: %d free chunk buffers, want 1", i, len(in.parFree))
			}
			b := in.parFree[0].buf[:1]
			if i == 0 {
				first = &b[0]
			} else if &b[0] != first {
				t.Fatalf("file %d: a new chunk buffer, want the first file's", i)
			}
		}
		if got := in.Schema().String(); !strings.Contains(got, "a") || !strings.Contains(got, "b") {
			t.Fatalf("schema %s, want a and b", got)
		}
	})
}

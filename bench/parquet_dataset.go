package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// parquetVersion changes whenever the converted bytes would change.
const parquetVersion = 1

// EnsureParquet returns the NDJSON dataset src converted to Parquet, one
// snappy Parquet file per NDJSON file (types inferred as
// cloudFiles.inferColumnTypes=true infers them, one schema for all files),
// under cacheDir; it converts once. RawBytes and DiskBytes are the Parquet
// files' sizes.
func EnsureParquet(cacheDir string, src Dataset) (Dataset, error) {
	dir := filepath.Join(cacheDir, fmt.Sprintf("parquet-v%d-%s", parquetVersion, filepath.Base(src.Dir)))
	if ds, err := readManifest(dir); err == nil {
		return ds, nil
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return Dataset{}, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return Dataset{}, err
	}
	files, err := filepath.Glob(filepath.Join(src.Dir, "part-*.json"))
	if err != nil || len(files) == 0 {
		return Dataset{}, fmt.Errorf("bench: no NDJSON files in %s: %v", src.Dir, err)
	}
	sort.Strings(files)
	ctx := context.Background()
	inf := jsonfmt.Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true})
	for _, f := range files {
		if err := addFile(ctx, inf, f); err != nil {
			return Dataset{}, err
		}
	}
	s := inf.Schema()
	ds := Dataset{Dir: dir, Files: len(files)}
	for _, f := range files {
		out := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(f), ".json")+".parquet")
		rows, size, err := convert(ctx, f, out, s)
		if err != nil {
			return Dataset{}, err
		}
		ds.Rows += rows
		ds.RawBytes += size
	}
	ds.DiskBytes = ds.RawBytes
	if err := writeManifest(tmp, ds); err != nil {
		return Dataset{}, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return Dataset{}, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return Dataset{}, err
	}
	return ds, nil
}

func addFile(ctx context.Context, inf fileformat.Inferrer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return inf.Add(ctx, path, f)
}

// convert writes the NDJSON file in as the Parquet file out with schema s.
func convert(ctx context.Context, in, out string, s *schema.StructType) (rows, size int64, err error) {
	f, err := os.Open(in)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	rr, err := jsonfmt.Format{}.Open(ctx, f, s, fileformat.ReadOptions{FilePath: in})
	if err != nil {
		return 0, 0, err
	}
	defer rr.Close()
	w, err := os.Create(out)
	if err != nil {
		return 0, 0, err
	}
	defer w.Close()
	pw, err := parquetio.NewWriter(w, s, parquetio.WriterOptions{})
	if err != nil {
		return 0, 0, err
	}
	buf := make([][]any, 0, 1024)
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", in, err)
		}
		buf = append(buf, row)
		rows++
		if len(buf) == cap(buf) {
			if err := pw.Write(buf); err != nil {
				return 0, 0, err
			}
			buf = buf[:0]
		}
	}
	if err := pw.Write(buf); err != nil {
		return 0, 0, err
	}
	if _, err := pw.Close(); err != nil {
		return 0, 0, err
	}
	fi, err := w.Stat()
	if err != nil {
		return 0, 0, err
	}
	return rows, fi.Size(), w.Close()
}

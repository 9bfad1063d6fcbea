package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// pqLeaf is one column of a checkpoint file, located by a normalised path
// ("add/partitionValues/*/key": the repeated group of a map or list is "*").
type pqLeaf struct {
	col    int
	maxDef int
	maxRep int
	// defAt[i] is the definition level at which path element i is present.
	defAt []int
	node  parquet.Node
}

// pqDecoder turns the rows of a checkpoint Parquet file into actions. It
// walks the file's own schema, so it reads checkpoints written by Spark
// (key_value maps), arrow/delta-rs (entries maps) and others alike, and
// ignores columns it does not know.
type pqDecoder struct {
	leaves map[string]*pqLeaf
	// rep caches one leaf under each group prefix (nil: none).
	rep map[string]*pqLeaf
	// vals[c] holds the values of column c for the current row.
	vals [][]parquet.Value
}

func newPQDecoder(s *parquet.Schema) (*pqDecoder, error) {
	d := &pqDecoder{leaves: make(map[string]*pqLeaf), rep: make(map[string]*pqLeaf)}
	for _, path := range s.Columns() {
		lc, ok := s.Lookup(path...)
		if !ok {
			return nil, fmt.Errorf("column %s not found in schema", strings.Join(path, "."))
		}
		var node parquet.Node = s
		defAt := make([]int, len(path))
		norm := make([]string, len(path))
		def := 0
		for i, name := range path {
			var next parquet.Node
			for _, f := range node.Fields() {
				if f.Name() == name {
					next = f
					break
				}
			}
			if next == nil {
				return nil, fmt.Errorf("column %s: no field %q", strings.Join(path, "."), name)
			}
			if next.Optional() || next.Repeated() {
				def++
			}
			defAt[i] = def
			norm[i] = name
			if next.Repeated() && !next.Leaf() {
				norm[i] = "*"
			}
			node = next
		}
		d.leaves[strings.Join(norm, "/")] = &pqLeaf{col: lc.ColumnIndex, maxDef: lc.MaxDefinitionLevel, maxRep: lc.MaxRepetitionLevel, defAt: defAt, node: node}
	}
	return d, nil
}

func (d *pqDecoder) setRow(row parquet.Row) {
	for i := range d.vals {
		d.vals[i] = d.vals[i][:0]
	}
	for _, v := range row {
		c := v.Column()
		for c >= len(d.vals) {
			d.vals = append(d.vals, nil)
		}
		d.vals[c] = append(d.vals[c], v)
	}
}

func (d *pqDecoder) first(path string) (parquet.Value, *pqLeaf, bool) {
	l := d.leaves[path]
	if l == nil || l.col >= len(d.vals) || len(d.vals[l.col]) == 0 {
		return parquet.Value{}, nil, false
	}
	v := d.vals[l.col][0]
	return v, l, v.DefinitionLevel() == l.maxDef && !v.IsNull()
}

// present reports whether the group at depth (0 = action) on the path of
// any leaf with the given prefix is non-null.
func (d *pqDecoder) present(prefix string, depth int) bool {
	l, cached := d.rep[prefix]
	if !cached {
		for p, cand := range d.leaves {
			if strings.HasPrefix(p, prefix+"/") && len(cand.defAt) > depth {
				l = cand
				break
			}
		}
		d.rep[prefix] = l
	}
	if l == nil || l.col >= len(d.vals) || len(d.vals[l.col]) == 0 {
		return false
	}
	// Every leaf of a present group is defined at least to the group's level.
	return d.vals[l.col][0].DefinitionLevel() >= l.defAt[depth] && l.defAt[depth] > 0
}

func (d *pqDecoder) str(path string) string {
	v, _, ok := d.first(path)
	if !ok {
		return ""
	}
	return string(v.ByteArray())
}

func (d *pqDecoder) i64(path string) (int64, bool) {
	v, _, ok := d.first(path)
	if !ok {
		return 0, false
	}
	switch v.Kind() {
	case parquet.Int32:
		return int64(v.Int32()), true
	case parquet.Int64:
		return v.Int64(), true
	}
	return 0, false
}

func (d *pqDecoder) i64p(path string) *int64 {
	n, ok := d.i64(path)
	if !ok {
		return nil
	}
	return &n
}

func (d *pqDecoder) boolean(path string) bool {
	v, _, ok := d.first(path)
	return ok && v.Kind() == parquet.Boolean && v.Boolean()
}

// strMap reads a map<string,string> column pair at prefix ("add/tags");
// a null value reads as "".
func (d *pqDecoder) strMap(prefix string) map[string]string {
	m := d.nullableMap(prefix)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v != nil {
			out[k] = *v
		} else {
			out[k] = ""
		}
	}
	return out
}

// nullableMap reads a map<string,string> column pair at prefix
// ("add/partitionValues"), keeping null values as nil.
func (d *pqDecoder) nullableMap(prefix string) map[string]*string {
	kl, vl := d.leaves[prefix+"/*/key"], d.leaves[prefix+"/*/value"]
	if kl == nil || kl.col >= len(d.vals) {
		return nil
	}
	keys := d.vals[kl.col]
	var vals []parquet.Value
	if vl != nil && vl.col < len(d.vals) {
		vals = d.vals[vl.col]
	}
	repDef := kl.defAt[len(kl.defAt)-2]
	var m map[string]*string
	for i, k := range keys {
		if k.DefinitionLevel() < repDef {
			continue
		}
		if m == nil {
			m = make(map[string]*string)
		}
		var val *string
		if i < len(vals) && vals[i].DefinitionLevel() == vl.maxDef && !vals[i].IsNull() {
			v := string(vals[i].ByteArray())
			val = &v
		}
		m[string(k.ByteArray())] = val
	}
	if m == nil && len(keys) > 0 && keys[0].DefinitionLevel() >= kl.defAt[len(kl.defAt)-3] {
		m = map[string]*string{} // present but empty
	}
	return m
}

// strList reads a list<string> column at prefix ("protocol/readerFeatures").
func (d *pqDecoder) strList(prefix string) []string {
	var l *pqLeaf
	for _, suffix := range []string{"/*/element", "/*/item", "/*/array", "/*"} {
		if l = d.leaves[prefix+suffix]; l != nil {
			break
		}
	}
	if l == nil || l.col >= len(d.vals) {
		return nil
	}
	var out []string
	for _, v := range d.vals[l.col] {
		if v.DefinitionLevel() == l.maxDef && !v.IsNull() {
			out = append(out, string(v.ByteArray()))
		}
	}
	return out
}

func (d *pqDecoder) dv(prefix string) *DeletionVector {
	if !d.present(prefix+"/deletionVector", 1) {
		return nil
	}
	dv := &DeletionVector{
		StorageType:    d.str(prefix + "/deletionVector/storageType"),
		PathOrInlineDv: d.str(prefix + "/deletionVector/pathOrInlineDv"),
	}
	if dv.StorageType == "" {
		return nil
	}
	if n, ok := d.i64(prefix + "/deletionVector/offset"); ok {
		o := int32(n)
		dv.Offset = &o
	}
	n, _ := d.i64(prefix + "/deletionVector/sizeInBytes")
	dv.SizeInBytes = int32(n)
	dv.Cardinality, _ = d.i64(prefix + "/deletionVector/cardinality")
	dv.MaxRowIndex = d.i64p(prefix + "/deletionVector/maxRowIndex")
	return dv
}

// actions decodes the current row (a checkpoint row holds at most one
// action, but the decoder accepts several).
func (d *pqDecoder) actions(fn func(Action) error) error {
	if d.present("txn", 0) {
		v, _ := d.i64("txn/version")
		t := &Txn{AppID: d.str("txn/appId"), Version: v, LastUpdated: d.i64p("txn/lastUpdated")}
		if err := fn(Action{Txn: t}); err != nil {
			return err
		}
	}
	if d.present("add", 0) {
		a := &Add{
			Path:                    d.str("add/path"),
			PartitionValues:         d.nullableMap("add/partitionValues"),
			DataChange:              d.boolean("add/dataChange"),
			Stats:                   d.str("add/stats"),
			Tags:                    d.strMap("add/tags"),
			DeletionVector:          d.dv("add"),
			BaseRowID:               d.i64p("add/baseRowId"),
			DefaultRowCommitVersion: d.i64p("add/defaultRowCommitVersion"),
			ClusteringProvider:      d.str("add/clusteringProvider"),
		}
		a.Size, _ = d.i64("add/size")
		a.ModificationTime, _ = d.i64("add/modificationTime")
		if a.Stats == "" && d.present("add/stats_parsed", 1) {
			a.Stats = d.statsFromParsed()
		}
		if err := fn(Action{Add: a}); err != nil {
			return err
		}
	}
	if d.present("remove", 0) {
		r := &Remove{
			Path:                    d.str("remove/path"),
			DataChange:              d.boolean("remove/dataChange"),
			ExtendedFileMetadata:    d.boolean("remove/extendedFileMetadata"),
			PartitionValues:         d.nullableMap("remove/partitionValues"),
			Stats:                   d.str("remove/stats"),
			Tags:                    d.strMap("remove/tags"),
			DeletionVector:          d.dv("remove"),
			BaseRowID:               d.i64p("remove/baseRowId"),
			DefaultRowCommitVersion: d.i64p("remove/defaultRowCommitVersion"),
		}
		r.DeletionTimestamp, _ = d.i64("remove/deletionTimestamp")
		r.Size, _ = d.i64("remove/size")
		if err := fn(Action{Remove: r}); err != nil {
			return err
		}
	}
	if d.present("metaData", 0) {
		m := &Metadata{
			ID:               d.str("metaData/id"),
			Name:             d.str("metaData/name"),
			Description:      d.str("metaData/description"),
			Format:           Format{Provider: d.str("metaData/format/provider"), Options: d.strMap("metaData/format/options")},
			SchemaString:     d.str("metaData/schemaString"),
			PartitionColumns: d.strList("metaData/partitionColumns"),
			Configuration:    d.strMap("metaData/configuration"),
			CreatedTime:      d.i64p("metaData/createdTime"),
		}
		if err := fn(Action{Metadata: m}); err != nil {
			return err
		}
	}
	if d.present("protocol", 0) {
		r, _ := d.i64("protocol/minReaderVersion")
		w, _ := d.i64("protocol/minWriterVersion")
		p := &Protocol{MinReaderVersion: int(r), MinWriterVersion: int(w),
			ReaderFeatures: d.strList("protocol/readerFeatures"), WriterFeatures: d.strList("protocol/writerFeatures")}
		if err := fn(Action{Protocol: p}); err != nil {
			return err
		}
	}
	if d.present("domainMetadata", 0) {
		dm := &DomainMetadata{Domain: d.str("domainMetadata/domain"), Configuration: d.str("domainMetadata/configuration"), Removed: d.boolean("domainMetadata/removed")}
		if err := fn(Action{DomainMetadata: dm}); err != nil {
			return err
		}
	}
	if d.present("checkpointMetadata", 0) {
		v, _ := d.i64("checkpointMetadata/version")
		if err := fn(Action{CheckpointMetadata: &CheckpointMetadata{Version: v, Tags: d.strMap("checkpointMetadata/tags")}}); err != nil {
			return err
		}
	}
	if d.present("sidecar", 0) {
		s := &Sidecar{Path: d.str("sidecar/path"), Tags: d.strMap("sidecar/tags")}
		s.SizeInBytes, _ = d.i64("sidecar/sizeInBytes")
		s.ModificationTime, _ = d.i64("sidecar/modificationTime")
		if err := fn(Action{Sidecar: s}); err != nil {
			return err
		}
	}
	return nil
}

// statsFromParsed rebuilds the stats JSON from a checkpoint's stats_parsed
// struct (checkpoints written with writeStatsAsJson=false).
func (d *pqDecoder) statsFromParsed() string {
	st := Stats{}
	st.NumRecords, _ = d.i64("add/stats_parsed/numRecords")
	if v, _, ok := d.first("add/stats_parsed/tightBounds"); ok && v.Kind() == parquet.Boolean {
		b := v.Boolean()
		st.TightBounds = &b
	}
	for _, part := range []struct {
		name string
		dst  *map[string]any
	}{{"minValues", &st.MinValues}, {"maxValues", &st.MaxValues}, {"nullCount", &st.NullCount}} {
		prefix := "add/stats_parsed/" + part.name + "/"
		for p, l := range d.leaves {
			rest, ok := strings.CutPrefix(p, prefix)
			if !ok || strings.Contains(rest, "*") {
				continue
			}
			v, _, ok := d.first(p)
			if !ok {
				continue
			}
			val, ok := statValue(v, l.node)
			if !ok {
				continue
			}
			if *part.dst == nil {
				*part.dst = make(map[string]any)
			}
			setNested(*part.dst, strings.Split(rest, "/"), val)
		}
	}
	s, err := st.Encode()
	if err != nil {
		return ""
	}
	return s
}

func setNested(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = make(map[string]any)
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// statValue renders a stats_parsed leaf as Delta's stats JSON would.
func statValue(v parquet.Value, node parquet.Node) (any, bool) {
	var lv format.LogicalTypeValue
	if node != nil && node.Leaf() {
		if lt := node.Type().LogicalType(); lt != nil {
			lv = lt.Value
		}
	}
	switch lt := lv.(type) {
	case *format.TimestampType:
		if v.Kind() != parquet.Int64 {
			return nil, false
		}
		step := time.Microsecond
		if lt.Unit.Value != nil {
			step = lt.Unit.Value.Duration()
		}
		t := time.Unix(0, 0).Add(time.Duration(v.Int64()) * step)
		return t.UTC().Format("2006-01-02T15:04:05.000Z07:00"), true
	case *format.DateType:
		if v.Kind() != parquet.Int32 {
			return nil, false
		}
		return time.Unix(int64(v.Int32())*86400, 0).UTC().Format("2006-01-02"), true
	case *format.DecimalType:
		var unscaled *big.Int
		switch v.Kind() {
		case parquet.Int32:
			unscaled = big.NewInt(int64(v.Int32()))
		case parquet.Int64:
			unscaled = big.NewInt(v.Int64())
		case parquet.ByteArray, parquet.FixedLenByteArray:
			unscaled = twosComplement(v.ByteArray())
		default:
			return nil, false
		}
		r := new(big.Rat).SetFrac(unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(lt.Scale)), nil))
		return json.Number(r.FloatString(int(lt.Scale))), true
	}
	switch v.Kind() {
	case parquet.Boolean:
		return v.Boolean(), true
	case parquet.Int32:
		return json.Number(fmt.Sprint(v.Int32())), true
	case parquet.Int64:
		return json.Number(fmt.Sprint(v.Int64())), true
	case parquet.Float:
		f := float64(v.Float())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return f, true
	case parquet.Double:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return f, true
	case parquet.ByteArray:
		return string(v.ByteArray()), true
	}
	return nil, false
}

func twosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
	}
	return n
}

// ReadParquetRows decodes every row of a checkpoint (or sidecar) Parquet
// file, row group by row group, assembling whole rows: the reference
// ReadParquet is checked against (differential tests and fuzzing).
func ReadParquetRows(data []byte, fn func(Action) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decode checkpoint parquet: %v", r)
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("open checkpoint parquet: %w", err)
	}
	dec, err := newPQDecoder(f.Schema())
	if err != nil {
		return fmt.Errorf("checkpoint schema: %w", err)
	}
	rows := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		rr := rg.Rows()
		for {
			n, rerr := rr.ReadRows(rows)
			for i := 0; i < n; i++ {
				dec.setRow(rows[i])
				if err := dec.actions(fn); err != nil {
					rr.Close()
					return err
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				rr.Close()
				return fmt.Errorf("read checkpoint rows: %w", rerr)
			}
			if n == 0 {
				break
			}
		}
		if err := rr.Close(); err != nil {
			return fmt.Errorf("close checkpoint rows: %w", err)
		}
	}
	return nil
}

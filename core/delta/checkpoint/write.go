package checkpoint

import (
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/delta/action"
	"github.com/tributary-io/tributary/core/parquetio"
)

// RowGroupRows bounds a row group, so that writing a checkpoint needs
// memory for one row group, not a second copy of the table state.
const RowGroupRows = 8192

// batchRows is how many rows of one action kind are buffered per column
// before they are handed to the column writers.
const batchRows = 1024

// State is what a checkpoint holds, in the order it is written: the
// protocol, the metaData, the txns, the domainMetadata, the live files and
// the tombstones kept (the caller drops expired ones). The iterators are
// run once.
type State struct {
	Protocol action.Protocol
	Metadata action.Metadata
	Txns     []action.Txn
	Domains  []action.DomainMetadata
	Adds     iter.Seq[*action.Add]
	Removes  iter.Seq[*action.Remove]
}

// Action kinds: the top-level struct column each leaf belongs to.
const (
	kindTxn = iota
	kindAdd
	kindRemove
	kindMeta
	kindProto
	kindDomain
)

var kindOf = map[string]int{"txn": kindTxn, "add": kindAdd, "remove": kindRemove,
	"metaData": kindMeta, "protocol": kindProto, "domainMetadata": kindDomain}

// column buffers the values of one leaf column for the current batch.
type column struct {
	index  int
	kind   int
	maxDef int
	vals   []parquet.Value
}

// put appends a value at the given levels.
func (c *column) put(rep, def int, v parquet.Value) {
	c.vals = append(c.vals, v.Level(rep, def, c.index))
}

// null appends a null whose ancestors are defined down to def.
func (c *column) null(def int) { c.put(0, def, parquet.Value{}) }

// strValue views s as a BYTE_ARRAY value without copying: the column
// buffers copy the bytes when the values are written, and s outlives that.
func strValue(s string) parquet.Value {
	return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (c *column) str(s string)   { c.put(0, c.maxDef, strValue(s)) }
func (c *column) i64(v int64)    { c.put(0, c.maxDef, parquet.Int64Value(v)) }
func (c *column) i32(v int32)    { c.put(0, c.maxDef, parquet.Int32Value(v)) }
func (c *column) boolean(v bool) { c.put(0, c.maxDef, parquet.BooleanValue(v)) }

// optStr writes s, or a null for "".
func (c *column) optStr(s string) {
	if s == "" {
		c.null(c.maxDef - 1)
		return
	}
	c.str(s)
}

func (c *column) optI64(p *int64) {
	if p == nil {
		c.null(c.maxDef - 1)
		return
	}
	c.i64(*p)
}

func (c *column) optI32(p *int32) {
	if p == nil {
		c.null(c.maxDef - 1)
		return
	}
	c.i32(*p)
}

// dvCols are the leaves of a deletionVector struct.
type dvCols struct{ storageType, path, offset, size, cardinality, maxRowIndex *column }

// mapCols are the key and value leaves of a MAP.
type mapCols struct{ key, value *column }

// writer is one checkpoint being written.
type writer struct {
	pw   *parquet.Writer
	cols []column
	// kind is the kind of the n rows buffered.
	kind, n int
	inGroup int
	actions int64
	// nulls are batchRows values null at the top level (every column of
	// another kind than the batch's).
	nulls []parquet.Value
	keys  []string

	txn struct{ appID, version, lastUpdated *column }
	add struct {
		path, size, modTime, dataChange, baseRowID, defaultRowCommitVersion, stats *column
		pv, tags                                                                   mapCols
		dv                                                                         dvCols
	}
	remove struct {
		path, deletionTimestamp, dataChange, extendedFileMetadata, size *column
		pv                                                              mapCols
		dv                                                              dvCols
	}
	meta struct {
		id, name, description, provider, schemaString, partitionColumns, createdTime *column
		options, configuration                                                       mapCols
	}
	proto  struct{ minReader, minWriter, readerFeatures, writerFeatures *column }
	domain struct{ domain, configuration, removed *column }
}

func newWriter(w io.Writer) (*writer, error) {
	sch := parquet.SchemaOf(ckptRow{})
	wr := &writer{pw: parquet.NewWriter(w, sch, parquet.Compression(parquetio.FastSnappy())), nulls: make([]parquet.Value, batchRows)}
	paths := sch.Columns()
	wr.cols = make([]column, len(paths))
	byPath := make(map[string]*column, len(paths))
	for _, p := range paths {
		leaf, ok := sch.Lookup(p...)
		if !ok {
			return nil, fmt.Errorf("checkpoint schema: no leaf %v", p)
		}
		c := &wr.cols[leaf.ColumnIndex]
		*c = column{index: leaf.ColumnIndex, kind: kindOf[p[0]], maxDef: leaf.MaxDefinitionLevel}
		byPath[strings.Join(p, ".")] = c
	}
	var missing []string
	col := func(path string) *column {
		c, ok := byPath[path]
		if !ok {
			missing = append(missing, path)
		}
		return c
	}
	mapOf := func(prefix string) mapCols {
		return mapCols{key: col(prefix + ".key_value.key"), value: col(prefix + ".key_value.value")}
	}
	dvOf := func(prefix string) dvCols {
		return dvCols{col(prefix + ".storageType"), col(prefix + ".pathOrInlineDv"), col(prefix + ".offset"),
			col(prefix + ".sizeInBytes"), col(prefix + ".cardinality"), col(prefix + ".maxRowIndex")}
	}
	wr.txn.appID, wr.txn.version, wr.txn.lastUpdated = col("txn.appId"), col("txn.version"), col("txn.lastUpdated")
	a := &wr.add
	a.path, a.pv, a.size, a.modTime = col("add.path"), mapOf("add.partitionValues"), col("add.size"), col("add.modificationTime")
	a.dataChange, a.tags, a.dv = col("add.dataChange"), mapOf("add.tags"), dvOf("add.deletionVector")
	a.baseRowID, a.defaultRowCommitVersion, a.stats = col("add.baseRowId"), col("add.defaultRowCommitVersion"), col("add.stats")
	r := &wr.remove
	r.path, r.deletionTimestamp, r.dataChange = col("remove.path"), col("remove.deletionTimestamp"), col("remove.dataChange")
	r.extendedFileMetadata, r.pv, r.size, r.dv = col("remove.extendedFileMetadata"), mapOf("remove.partitionValues"), col("remove.size"), dvOf("remove.deletionVector")
	m := &wr.meta
	m.id, m.name, m.description = col("metaData.id"), col("metaData.name"), col("metaData.description")
	m.provider, m.options, m.schemaString = col("metaData.format.provider"), mapOf("metaData.format.options"), col("metaData.schemaString")
	m.partitionColumns, m.configuration, m.createdTime = col("metaData.partitionColumns.list.element"), mapOf("metaData.configuration"), col("metaData.createdTime")
	p := &wr.proto
	p.minReader, p.minWriter = col("protocol.minReaderVersion"), col("protocol.minWriterVersion")
	p.readerFeatures, p.writerFeatures = col("protocol.readerFeatures.list.element"), col("protocol.writerFeatures.list.element")
	d := &wr.domain
	d.domain, d.configuration, d.removed = col("domainMetadata.domain"), col("domainMetadata.configuration"), col("domainMetadata.removed")
	if missing != nil {
		return nil, fmt.Errorf("checkpoint schema: no leaves %v", missing)
	}
	return wr, nil
}

// row starts a row of kind k, handing the buffered rows to the column
// writers first when they are of another kind or fill a batch.
func (w *writer) row(k int) error {
	if w.n > 0 && (w.kind != k || w.n == batchRows) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.kind = k
	w.n++
	return nil
}

// flush writes the buffered rows: their kind's columns get the values
// built, every other column a top-level null per row. A row group is cut
// once it holds RowGroupRows rows.
func (w *writer) flush() error {
	if w.n == 0 {
		return nil
	}
	cws := w.pw.ColumnWriters()
	for i := range w.cols {
		c := &w.cols[i]
		vals := w.nulls[:w.n]
		if c.kind == w.kind {
			vals = c.vals
		}
		if n, err := cws[i].WriteRowValues(vals); err != nil {
			return fmt.Errorf("write checkpoint column %d: %w", i, err)
		} else if n != w.n {
			return fmt.Errorf("write checkpoint column %d: %d rows written, want %d", i, n, w.n)
		}
		clear(c.vals)
		c.vals = c.vals[:0]
	}
	w.actions += int64(w.n)
	w.inGroup += w.n
	w.n = 0
	if w.inGroup >= RowGroupRows {
		w.inGroup = 0
		return w.pw.Flush()
	}
	return nil
}

// sortedKeys returns m's keys in order, in a slice reused across rows.
func sortedKeys[V any](w *writer, m map[string]V) []string {
	w.keys = w.keys[:0]
	for k := range m {
		w.keys = append(w.keys, k)
	}
	slices.Sort(w.keys)
	return w.keys
}

// strMap writes a MAP<string,string> (nil: a null map).
func (w *writer) strMap(mc mapCols, m map[string]string) {
	k, v := mc.key, mc.value
	switch len(m) {
	case 0:
		def := k.maxDef - 1 // an empty map
		if m == nil {
			def--
		}
		k.null(def)
		v.null(def)
		return
	case 1:
		for key, val := range m {
			k.str(key)
			v.str(val)
		}
		return
	}
	for i, key := range sortedKeys(w, m) {
		rep := min(i, 1)
		k.put(rep, k.maxDef, strValue(key))
		v.put(rep, v.maxDef, strValue(m[key]))
	}
}

// nullableMap writes a MAP<string,string> whose values may be null; a nil
// m is a null map, or an empty one when nilEmpty.
func (w *writer) nullableMap(mc mapCols, m map[string]*string, nilEmpty bool) {
	k, v := mc.key, mc.value
	if len(m) == 0 {
		def := k.maxDef - 1
		if m == nil && !nilEmpty {
			def--
		}
		k.null(def)
		v.null(def)
		return
	}
	for i, key := range sortedKeys(w, m) {
		rep := min(i, 1)
		k.put(rep, k.maxDef, strValue(key))
		if p := m[key]; p != nil {
			v.put(rep, v.maxDef, strValue(*p))
		} else {
			v.put(rep, v.maxDef-1, parquet.Value{})
		}
	}
}

// strList writes a LIST<string> (nil: a null list).
func strList(c *column, l []string) {
	if len(l) == 0 {
		def := c.maxDef - 1
		if l == nil {
			def--
		}
		c.null(def)
		return
	}
	for i, s := range l {
		c.put(min(i, 1), c.maxDef, strValue(s))
	}
}

// dv writes a deletion vector descriptor (nil: a null struct).
func (dc *dvCols) write(d *action.DeletionVector) {
	if d == nil {
		def := dc.storageType.maxDef - 2
		for _, c := range []*column{dc.storageType, dc.path, dc.offset, dc.size, dc.cardinality, dc.maxRowIndex} {
			c.null(def)
		}
		return
	}
	dc.storageType.str(d.StorageType)
	dc.path.str(d.PathOrInlineDv)
	dc.offset.optI32(d.Offset)
	dc.size.i32(d.SizeInBytes)
	dc.cardinality.i64(d.Cardinality)
	dc.maxRowIndex.optI64(d.MaxRowIndex)
}

func (w *writer) writeAdd(a *action.Add) error {
	if err := w.row(kindAdd); err != nil {
		return err
	}
	c := &w.add
	c.path.str(a.Path)
	w.nullableMap(c.pv, a.PartitionValues, true)
	c.size.i64(a.Size)
	c.modTime.i64(a.ModificationTime)
	c.dataChange.boolean(false)
	w.strMap(c.tags, a.Tags)
	c.dv.write(a.DeletionVector)
	c.baseRowID.optI64(a.BaseRowID)
	c.defaultRowCommitVersion.optI64(a.DefaultRowCommitVersion)
	c.stats.optStr(a.Stats)
	return nil
}

func (w *writer) writeRemove(r *action.Remove) error {
	if err := w.row(kindRemove); err != nil {
		return err
	}
	c := &w.remove
	c.path.str(r.Path)
	c.deletionTimestamp.i64(r.DeletionTimestamp)
	c.dataChange.boolean(false)
	c.extendedFileMetadata.boolean(r.ExtendedFileMetadata)
	w.nullableMap(c.pv, r.PartitionValues, false)
	c.size.i64(r.Size)
	c.dv.write(r.DeletionVector)
	return nil
}

func (w *writer) writeHead(s *State) error {
	if err := w.row(kindProto); err != nil {
		return err
	}
	p := &w.proto
	p.minReader.i32(int32(s.Protocol.MinReaderVersion))
	p.minWriter.i32(int32(s.Protocol.MinWriterVersion))
	strList(p.readerFeatures, s.Protocol.ReaderFeatures)
	strList(p.writerFeatures, s.Protocol.WriterFeatures)

	if err := w.row(kindMeta); err != nil {
		return err
	}
	md, m := &s.Metadata, &w.meta
	m.id.str(md.ID)
	m.name.optStr(md.Name)
	m.description.optStr(md.Description)
	provider := md.Format.Provider
	if provider == "" {
		provider = "parquet"
	}
	m.provider.str(provider)
	w.strMap(m.options, action.NonNilMap(md.Format.Options))
	m.schemaString.str(md.SchemaString)
	strList(m.partitionColumns, action.NonNilSlice(md.PartitionColumns))
	w.strMap(m.configuration, action.NonNilMap(md.Configuration))
	m.createdTime.optI64(md.CreatedTime)

	for _, tx := range s.Txns {
		if err := w.row(kindTxn); err != nil {
			return err
		}
		w.txn.appID.str(tx.AppID)
		w.txn.version.i64(tx.Version)
		w.txn.lastUpdated.optI64(tx.LastUpdated)
	}
	for _, dm := range s.Domains {
		if err := w.row(kindDomain); err != nil {
			return err
		}
		w.domain.domain.str(dm.Domain)
		w.domain.configuration.str(dm.Configuration)
		w.domain.removed.boolean(false)
	}
	return nil
}

// Write writes s to w as a classic checkpoint Parquet file (snappy
// compressed, row groups of RowGroupRows rows) and returns the number of
// actions (rows) and of adds written.
func Write(w io.Writer, s State) (actions, adds int64, err error) {
	wr, err := newWriter(w)
	if err != nil {
		return 0, 0, err
	}
	if err := wr.writeHead(&s); err != nil {
		return 0, 0, err
	}
	if s.Adds != nil {
		for a := range s.Adds {
			if err = wr.writeAdd(a); err != nil {
				return 0, 0, err
			}
			adds++
		}
	}
	if s.Removes != nil {
		for r := range s.Removes {
			if err = wr.writeRemove(r); err != nil {
				return 0, 0, err
			}
		}
	}
	if err := wr.flush(); err != nil {
		return 0, 0, err
	}
	if err := wr.pw.Close(); err != nil {
		return 0, 0, err
	}
	return wr.actions, adds, nil
}

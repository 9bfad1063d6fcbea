package action

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// This file is the column reader of checkpoint Parquet files: each leaf
// column an action needs is read page by page through its own cursor, and
// the cursors advance in lockstep one row at a time. Unlike a row reader
// it never assembles rows of every column (a checkpoint has ~60 leaves, of
// which a row uses a handful), resolves each field once per file instead
// of per row, and skips column chunks whose statistics say every value is
// null (the remove columns of an append-only table, deletion vectors,
// …). Memory is one page per column plus the actions handed to fn.

// colCursor streams the values of one leaf column of one row group.
type colCursor struct {
	leaf     *pqLeaf
	repeated bool
	// allNull: the chunk holds only nulls (its statistics say so); the
	// cursor yields a null value per row without reading.
	allNull bool
	pages   parquet.Pages
	vr      parquet.ValueReader
	buf     []parquet.Value
	i, n    int
	err     error
	// row is the index of the current row in the row group (-1 before
	// the first).
	row int64
	// buf[cur] is the current row's value (non-repeated columns); vals
	// the current row's values (repeated columns).
	cur  int
	vals []parquet.Value
	// fills counts the refills of buf; arena holds the bytes of every
	// defined value of buf (refill arenaFill) back to back, value j at
	// arena[arenaAt[j]:arenaAt[j+1]]: the strings of a column share one
	// allocation per refill instead of one each.
	fills, arenaFill int
	arena            string
	arenaAt          []int32
}

// fill makes buf[i] the next value; false at the end of the chunk or on
// an error (c.err).
func (c *colCursor) fill() bool {
	for c.i >= c.n {
		if c.err != nil || c.pages == nil {
			return false
		}
		if c.vr != nil {
			n, err := c.vr.ReadValues(c.buf)
			c.i, c.n = 0, n
			c.fills++
			if errors.Is(err, io.EOF) {
				c.vr = nil
			} else if err != nil {
				c.err = fmt.Errorf("read column %d values: %w", c.leaf.col, err)
				return false
			} else if n == 0 {
				c.err = fmt.Errorf("read column %d values: no progress", c.leaf.col)
				return false
			}
			continue
		}
		p, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) {
			c.pages.Close()
			c.pages = nil
			return false
		}
		if err != nil {
			c.err = fmt.Errorf("read column %d page: %w", c.leaf.col, err)
			return false
		}
		c.vr = p.Values()
	}
	return true
}

// seek makes row r (>= the current row) the cursor's current row. Rows
// in between are dropped without being decoded into actions: a column is
// only read at the rows that hold its action.
func (c *colCursor) seek(r int64) error {
	if c == nil || c.allNull {
		return nil
	}
	if !c.repeated {
		for skip := r - c.row - 1; skip > 0; {
			if !c.fill() {
				return c.endErr()
			}
			k := min(skip, int64(c.n-c.i))
			c.i += int(k)
			c.row += k
			skip -= k
		}
	}
	for c.row < r {
		if err := c.next(c.row+1 == r); err != nil {
			return err
		}
	}
	return nil
}

func (c *colCursor) endErr() error {
	if c.err != nil {
		return c.err
	}
	return fmt.Errorf("column %d ends before the row group's last row", c.leaf.col)
}

// next advances the cursor by one row; keep=false drops a repeated
// column's values instead of collecting them.
func (c *colCursor) next(keep bool) error {
	if !c.fill() {
		return c.endErr()
	}
	c.row++
	if !c.repeated {
		c.cur = c.i
		c.i++
		return nil
	}
	v := c.buf[c.i]
	c.i++
	if v.RepetitionLevel() != 0 {
		return fmt.Errorf("column %d: a row starts with repetition level %d", c.leaf.col, v.RepetitionLevel())
	}
	c.vals = c.vals[:0]
	if keep {
		c.vals = append(c.vals, v)
	}
	for c.fill() && c.buf[c.i].RepetitionLevel() > 0 {
		if keep {
			c.vals = append(c.vals, c.buf[c.i])
		}
		c.i++
	}
	return c.err
}

// def returns the definition level of the current row's (first) value.
func (c *colCursor) def() int {
	switch {
	case c == nil || c.allNull:
		return 0
	case c.repeated:
		if len(c.vals) == 0 {
			return 0
		}
		return int(c.vals[0].DefinitionLevel())
	}
	if c.row < 0 {
		return 0
	}
	return int(c.buf[c.cur].DefinitionLevel())
}

// value returns the current row's value when it is defined and not null.
func (c *colCursor) value() (parquet.Value, bool) {
	if c == nil || c.allNull {
		return parquet.Value{}, false
	}
	var v *parquet.Value
	switch {
	case c.repeated && len(c.vals) > 0:
		v = &c.vals[0]
	case !c.repeated && c.row >= 0:
		v = &c.buf[c.cur]
	default:
		return parquet.Value{}, false
	}
	return *v, int(v.DefinitionLevel()) == c.leaf.maxDef && !v.IsNull()
}

func (c *colCursor) str() string {
	v, ok := c.value()
	if !ok {
		return ""
	}
	if c.repeated {
		return string(v.ByteArray())
	}
	if c.arenaFill != c.fills || c.arenaAt == nil {
		c.fillArena()
	}
	return c.arena[c.arenaAt[c.cur]:c.arenaAt[c.cur+1]]
}

// fillArena copies the defined byte array values of buf into one string.
func (c *colCursor) fillArena() {
	if cap(c.arenaAt) < c.n+1 {
		c.arenaAt = make([]int32, c.n+1)
	}
	c.arenaAt = c.arenaAt[:c.n+1]
	size := 0
	for j := range c.buf[:c.n] {
		if v := &c.buf[j]; int(v.DefinitionLevel()) == c.leaf.maxDef && !v.IsNull() {
			size += len(v.ByteArray())
		}
	}
	var b strings.Builder
	b.Grow(size)
	for j := range c.buf[:c.n] {
		c.arenaAt[j] = int32(b.Len())
		if v := &c.buf[j]; int(v.DefinitionLevel()) == c.leaf.maxDef && !v.IsNull() {
			b.Write(v.ByteArray())
		}
	}
	c.arenaAt[c.n] = int32(b.Len())
	c.arena, c.arenaFill = b.String(), c.fills
}

func (c *colCursor) i64() (int64, bool) {
	v, ok := c.value()
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

func (c *colCursor) i64p() *int64 {
	n, ok := c.i64()
	if !ok {
		return nil
	}
	p := new(int64) // allocated only here (&n would put n on the heap on every call)
	*p = n
	return p
}

func (c *colCursor) boolean() bool {
	v, ok := c.value()
	return ok && v.Kind() == parquet.Boolean && v.Boolean()
}

// colMap is a map<string,string> column pair.
type colMap struct{ key, val *colCursor }

// nullable reads the map of the current row keeping null values as nil;
// nil when the map is null, empty when present but empty.
func (m colMap) nullable() map[string]*string {
	kc := m.key
	if kc == nil || kc.allNull || !kc.repeated || len(kc.leaf.defAt) < 3 {
		return nil
	}
	keys := kc.vals
	var vals []parquet.Value
	valDef := 0
	if m.val != nil && m.val.repeated && !m.val.allNull {
		vals, valDef = m.val.vals, m.val.leaf.maxDef
	}
	repDef := kc.leaf.defAt[len(kc.leaf.defAt)-2]
	var out map[string]*string
	for i, k := range keys {
		if int(k.DefinitionLevel()) < repDef {
			continue
		}
		if out == nil {
			out = make(map[string]*string, len(keys))
		}
		var val *string
		if i < len(vals) && int(vals[i].DefinitionLevel()) == valDef && !vals[i].IsNull() {
			v := string(vals[i].ByteArray())
			val = &v
		}
		out[string(k.ByteArray())] = val
	}
	if out == nil && len(keys) > 0 && int(keys[0].DefinitionLevel()) >= kc.leaf.defAt[len(kc.leaf.defAt)-3] {
		out = map[string]*string{} // present but empty
	}
	return out
}

// strings reads the map of the current row with null values as "".
func (m colMap) strings() map[string]string {
	n := m.nullable()
	if n == nil {
		return nil
	}
	out := make(map[string]string, len(n))
	for k, v := range n {
		if v != nil {
			out[k] = *v
		} else {
			out[k] = ""
		}
	}
	return out
}

// strList reads a list<string> column of the current row.
func strListOf(c *colCursor) []string {
	if c == nil || c.allNull {
		return nil
	}
	vals := c.vals
	if !c.repeated {
		if c.row < 0 {
			return nil
		}
		vals = c.buf[c.cur : c.cur+1]
	}
	var out []string
	for _, v := range vals {
		if int(v.DefinitionLevel()) == c.leaf.maxDef && !v.IsNull() {
			out = append(out, string(v.ByteArray()))
		}
	}
	return out
}

// colDV is a deletionVector struct's columns.
type colDV struct {
	storageType, path, offset, size, cardinality, maxRowIndex *colCursor
}

func (d colDV) read() *DeletionVector {
	st := d.storageType.str()
	if st == "" {
		return nil
	}
	dv := &DeletionVector{StorageType: st, PathOrInlineDv: d.path.str()}
	if n, ok := d.offset.i64(); ok {
		o := int32(n)
		dv.Offset = &o
	}
	n, _ := d.size.i64()
	dv.SizeInBytes = int32(n)
	dv.Cardinality, _ = d.cardinality.i64()
	dv.MaxRowIndex = d.maxRowIndex.i64p()
	return dv
}

// colGroup is one action kind's struct column.
type colGroup struct {
	rep     *colCursor   // a leaf defined in every row holding the action
	members []*colCursor // the columns its fields are read from
	depth   int          // the group's depth on rep's path (0: an action)
}

// at tells whether row r holds the group and, when it does, brings its
// columns to row r.
func (g *colGroup) at(r int64) (bool, error) {
	if g.rep == nil {
		return false, nil
	}
	if err := g.rep.seek(r); err != nil {
		return false, err
	}
	if lvl := g.rep.leaf.defAt[g.depth]; lvl == 0 || g.rep.def() < lvl {
		return false, nil
	}
	for _, c := range g.members {
		if err := c.seek(r); err != nil {
			return false, err
		}
	}
	return true, nil
}

// colDecoder resolves the columns of every action field once per row
// group.
type colDecoder struct {
	dec     *pqDecoder
	cursors []*colCursor // every cursor of the row group, in column order
	byPath  map[string]*colCursor

	txn, add, remove, meta, proto, domain, ckptMeta, sidecar colGroup

	txnAppID, txnVersion, txnLastUpdated *colCursor

	addPath, addSize, addModTime, addDataChange, addStats, addBaseRowID, addDefaultRCV, addClustering *colCursor
	addPV, addTags                                                                                    colMap
	addDV                                                                                             colDV
	// statsParsed are add.stats_parsed's non-repeated leaves (their
	// normalised path after "add/stats_parsed/"), read when stats is null.
	statsParsed      []parsedLeaf
	statsParsedGroup colGroup

	rmPath, rmDataChange, rmExtended, rmStats, rmBaseRowID, rmDefaultRCV, rmDelTS, rmSize *colCursor
	rmPV, rmTags                                                                          colMap
	rmDV                                                                                  colDV

	mdID, mdName, mdDesc, mdProvider, mdSchema, mdCreated, mdPartCols *colCursor
	mdOptions, mdConfig                                               colMap

	prReader, prWriter, prReaderFeatures, prWriterFeatures *colCursor

	dmDomain, dmConfig, dmRemoved *colCursor

	cmVersion *colCursor
	cmTags    colMap

	scPath, scSize, scModTime *colCursor
	scTags                    colMap
}

type parsedLeaf struct {
	rest string // path below add/stats_parsed/
	c    *colCursor
}

// newColDecoder opens cursors on the columns of row group rg that the
// actions use.
func newColDecoder(dec *pqDecoder, rg parquet.RowGroup, stats []nullStats) *colDecoder {
	d := &colDecoder{dec: dec, byPath: make(map[string]*colCursor)}
	chunks := rg.ColumnChunks()
	var cur *colGroup // the group whose columns are being opened
	open := func(path string, mayBeAllNull bool) *colCursor {
		if c, ok := d.byPath[path]; ok {
			return c
		}
		l := dec.leaves[path]
		if l == nil || l.col >= len(chunks) {
			return nil
		}
		c := &colCursor{leaf: l, repeated: l.maxRep > 0, row: -1}
		if mayBeAllNull && !c.repeated && l.col < len(stats) && stats[l.col].allNull() {
			c.allNull = true
		} else {
			c.pages = chunks[l.col].Pages()
			c.buf = make([]parquet.Value, 256)
		}
		d.byPath[path] = c
		d.cursors = append(d.cursors, c)
		if cur != nil {
			cur.members = append(cur.members, c)
		}
		return c
	}
	col := func(path string) *colCursor { return open(path, true) }
	mp := func(prefix string) colMap {
		return colMap{key: open(prefix+"/*/key", false), val: open(prefix+"/*/value", false)}
	}
	list := func(prefix string) *colCursor {
		for _, suffix := range []string{"/*/element", "/*/item", "/*/array", "/*"} {
			if dec.leaves[prefix+suffix] != nil {
				return open(prefix+suffix, false)
			}
		}
		return nil
	}
	dv := func(prefix string) colDV {
		p := prefix + "/deletionVector/"
		return colDV{storageType: col(p + "storageType"), path: col(p + "pathOrInlineDv"), offset: col(p + "offset"),
			size: col(p + "sizeInBytes"), cardinality: col(p + "cardinality"), maxRowIndex: col(p + "maxRowIndex")}
	}
	// group picks the leaf that tells whether a row holds the action: the
	// required field when the file has it, else any leaf under the group.
	group := func(g *colGroup, name, required string) {
		cur = g
		if g.rep = open(name+"/"+required, false); g.rep != nil {
			return
		}
		best := ""
		for p := range dec.leaves {
			if strings.HasPrefix(p, name+"/") && (best == "" || p < best) {
				best = p
			}
		}
		if best != "" {
			g.rep = open(best, false)
		}
	}

	group(&d.txn, "txn", "appId")
	d.txnAppID, d.txnVersion, d.txnLastUpdated = col("txn/appId"), col("txn/version"), col("txn/lastUpdated")

	group(&d.add, "add", "path")
	d.addPath, d.addSize, d.addModTime = col("add/path"), col("add/size"), col("add/modificationTime")
	d.addDataChange, d.addStats = col("add/dataChange"), col("add/stats")
	d.addBaseRowID, d.addDefaultRCV, d.addClustering = col("add/baseRowId"), col("add/defaultRowCommitVersion"), col("add/clusteringProvider")
	d.addPV, d.addTags, d.addDV = mp("add/partitionValues"), mp("add/tags"), dv("add")
	const sp = "add/stats_parsed/"
	var parsed []string
	for p, l := range dec.leaves {
		if rest, ok := strings.CutPrefix(p, sp); ok && len(l.defAt) > 1 && !strings.Contains(rest, "*") {
			parsed = append(parsed, p)
		}
	}
	slices.Sort(parsed)
	cur = &d.statsParsedGroup
	d.statsParsedGroup.depth = 1
	for i, p := range parsed {
		if i == 0 {
			d.statsParsedGroup.rep = open(p, false) // read even when all null: it tells presence
		}
		d.statsParsed = append(d.statsParsed, parsedLeaf{rest: p[len(sp):], c: col(p)})
	}
	cur = nil

	group(&d.remove, "remove", "path")
	d.rmPath, d.rmDataChange, d.rmExtended = col("remove/path"), col("remove/dataChange"), col("remove/extendedFileMetadata")
	d.rmStats, d.rmBaseRowID, d.rmDefaultRCV = col("remove/stats"), col("remove/baseRowId"), col("remove/defaultRowCommitVersion")
	d.rmDelTS, d.rmSize = col("remove/deletionTimestamp"), col("remove/size")
	d.rmPV, d.rmTags, d.rmDV = mp("remove/partitionValues"), mp("remove/tags"), dv("remove")

	group(&d.meta, "metaData", "id")
	d.mdID, d.mdName, d.mdDesc = col("metaData/id"), col("metaData/name"), col("metaData/description")
	d.mdProvider, d.mdSchema, d.mdCreated = col("metaData/format/provider"), col("metaData/schemaString"), col("metaData/createdTime")
	d.mdPartCols = list("metaData/partitionColumns")
	d.mdOptions, d.mdConfig = mp("metaData/format/options"), mp("metaData/configuration")

	group(&d.proto, "protocol", "minReaderVersion")
	d.prReader, d.prWriter = col("protocol/minReaderVersion"), col("protocol/minWriterVersion")
	d.prReaderFeatures, d.prWriterFeatures = list("protocol/readerFeatures"), list("protocol/writerFeatures")

	group(&d.domain, "domainMetadata", "domain")
	d.dmDomain, d.dmConfig, d.dmRemoved = col("domainMetadata/domain"), col("domainMetadata/configuration"), col("domainMetadata/removed")

	group(&d.ckptMeta, "checkpointMetadata", "version")
	d.cmVersion, d.cmTags = col("checkpointMetadata/version"), mp("checkpointMetadata/tags")

	group(&d.sidecar, "sidecar", "path")
	d.scPath, d.scSize, d.scModTime = col("sidecar/path"), col("sidecar/sizeInBytes"), col("sidecar/modificationTime")
	d.scTags = mp("sidecar/tags")
	return d
}

func (d *colDecoder) close() {
	for _, c := range d.cursors {
		if c.pages != nil {
			c.pages.Close()
			c.pages = nil
		}
	}
}

// row hands the actions of row r to fn (rows are visited in order).
func (d *colDecoder) row(r int64, fn func(Action) error) error {
	if ok, err := d.txn.at(r); err != nil {
		return err
	} else if ok {
		v, _ := d.txnVersion.i64()
		if err := fn(Action{Txn: &Txn{AppID: d.txnAppID.str(), Version: v, LastUpdated: d.txnLastUpdated.i64p()}}); err != nil {
			return err
		}
	}
	if ok, err := d.add.at(r); err != nil {
		return err
	} else if ok {
		a := &Add{
			Path:                    d.addPath.str(),
			PartitionValues:         d.addPV.nullable(),
			DataChange:              d.addDataChange.boolean(),
			Stats:                   d.addStats.str(),
			Tags:                    d.addTags.strings(),
			DeletionVector:          d.addDV.read(),
			BaseRowID:               d.addBaseRowID.i64p(),
			DefaultRowCommitVersion: d.addDefaultRCV.i64p(),
			ClusteringProvider:      d.addClustering.str(),
		}
		a.Size, _ = d.addSize.i64()
		a.ModificationTime, _ = d.addModTime.i64()
		if a.Stats == "" {
			if ok, err := d.statsParsedGroup.at(r); err != nil {
				return err
			} else if ok {
				a.Stats = d.statsFromParsed()
			}
		}
		if err := fn(Action{Add: a}); err != nil {
			return err
		}
	}
	if ok, err := d.remove.at(r); err != nil {
		return err
	} else if ok {
		r := &Remove{
			Path:                    d.rmPath.str(),
			DataChange:              d.rmDataChange.boolean(),
			ExtendedFileMetadata:    d.rmExtended.boolean(),
			PartitionValues:         d.rmPV.nullable(),
			Stats:                   d.rmStats.str(),
			Tags:                    d.rmTags.strings(),
			DeletionVector:          d.rmDV.read(),
			BaseRowID:               d.rmBaseRowID.i64p(),
			DefaultRowCommitVersion: d.rmDefaultRCV.i64p(),
		}
		r.DeletionTimestamp, _ = d.rmDelTS.i64()
		r.Size, _ = d.rmSize.i64()
		if err := fn(Action{Remove: r}); err != nil {
			return err
		}
	}
	if ok, err := d.meta.at(r); err != nil {
		return err
	} else if ok {
		m := &Metadata{
			ID:               d.mdID.str(),
			Name:             d.mdName.str(),
			Description:      d.mdDesc.str(),
			Format:           Format{Provider: d.mdProvider.str(), Options: d.mdOptions.strings()},
			SchemaString:     d.mdSchema.str(),
			PartitionColumns: strListOf(d.mdPartCols),
			Configuration:    d.mdConfig.strings(),
			CreatedTime:      d.mdCreated.i64p(),
		}
		if err := fn(Action{Metadata: m}); err != nil {
			return err
		}
	}
	if ok, err := d.proto.at(r); err != nil {
		return err
	} else if ok {
		r, _ := d.prReader.i64()
		w, _ := d.prWriter.i64()
		p := &Protocol{MinReaderVersion: int(r), MinWriterVersion: int(w),
			ReaderFeatures: strListOf(d.prReaderFeatures), WriterFeatures: strListOf(d.prWriterFeatures)}
		if err := fn(Action{Protocol: p}); err != nil {
			return err
		}
	}
	if ok, err := d.domain.at(r); err != nil {
		return err
	} else if ok {
		dm := &DomainMetadata{Domain: d.dmDomain.str(), Configuration: d.dmConfig.str(), Removed: d.dmRemoved.boolean()}
		if err := fn(Action{DomainMetadata: dm}); err != nil {
			return err
		}
	}
	if ok, err := d.ckptMeta.at(r); err != nil {
		return err
	} else if ok {
		v, _ := d.cmVersion.i64()
		if err := fn(Action{CheckpointMetadata: &CheckpointMetadata{Version: v, Tags: d.cmTags.strings()}}); err != nil {
			return err
		}
	}
	if ok, err := d.sidecar.at(r); err != nil {
		return err
	} else if ok {
		s := &Sidecar{Path: d.scPath.str(), Tags: d.scTags.strings()}
		s.SizeInBytes, _ = d.scSize.i64()
		s.ModificationTime, _ = d.scModTime.i64()
		if err := fn(Action{Sidecar: s}); err != nil {
			return err
		}
	}
	return nil
}

// statsFromParsed rebuilds the stats JSON of the current row from
// add.stats_parsed (checkpoints written with writeStatsAsJson=false).
func (d *colDecoder) statsFromParsed() string {
	st := Stats{}
	for _, pl := range d.statsParsed {
		switch pl.rest {
		case "numRecords":
			st.NumRecords, _ = pl.c.i64()
			continue
		case "tightBounds":
			if v, ok := pl.c.value(); ok && v.Kind() == parquet.Boolean {
				b := v.Boolean()
				st.TightBounds = &b
			}
			continue
		}
		part, rest, ok := strings.Cut(pl.rest, "/")
		if !ok {
			continue
		}
		var dst *map[string]any
		switch part {
		case "minValues":
			dst = &st.MinValues
		case "maxValues":
			dst = &st.MaxValues
		case "nullCount":
			dst = &st.NullCount
		default:
			continue
		}
		v, ok := pl.c.value()
		if !ok {
			continue
		}
		val, ok := statValue(v, pl.c.leaf.node)
		if !ok {
			continue
		}
		if *dst == nil {
			*dst = make(map[string]any)
		}
		setNested(*dst, strings.Split(rest, "/"), val)
	}
	s, err := st.Encode()
	if err != nil {
		return ""
	}
	return s
}

// nullStats is a column chunk's value and null counts from its metadata.
type nullStats struct{ values, nulls int64 }

func (n nullStats) allNull() bool { return n.values > 0 && n.nulls == n.values }

// ReadParquet decodes every action of a checkpoint (or sidecar) Parquet
// file, row group by row group, reading only the columns of the fields
// actions hold (see colDecoder); ReadParquetRows is the row-at-a-time
// reader it replaced, kept as its reference.
func ReadParquet(data []byte, fn func(Action) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decode checkpoint parquet: %v", r)
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("open checkpoint parquet: %w", err)
	}
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.Codec == format.Lz4Raw {
				// parquet-go v0.32 decodes LZ4_RAW pages wrongly (see
				// parquetio's ErrUnsupportedCodec): a wrong file list
				// must not come out of a checkpoint.
				return fmt.Errorf("%w: checkpoint column %s is LZ4_RAW compressed, which Tributary cannot read yet", ErrMalformedAction, strings.Join(c.MetaData.PathInSchema, "."))
			}
		}
	}
	dec, err := newPQDecoder(f.Schema())
	if err != nil {
		return fmt.Errorf("checkpoint schema: %w", err)
	}
	md := f.Metadata()
	for i, rg := range f.RowGroups() {
		var stats []nullStats
		if i < len(md.RowGroups) {
			for _, cc := range md.RowGroups[i].Columns {
				// A writer that recorded no statistics leaves the null
				// count 0: the chunk is then read.
				stats = append(stats, nullStats{values: cc.MetaData.NumValues, nulls: cc.MetaData.Statistics.NullCount})
			}
		}
		if err := readRowGroup(dec, rg, stats, fn); err != nil {
			return err
		}
	}
	return nil
}

func readRowGroup(dec *pqDecoder, rg parquet.RowGroup, stats []nullStats, fn func(Action) error) error {
	d := newColDecoder(dec, rg, stats)
	defer d.close()
	if !slices.ContainsFunc(d.cursors, func(c *colCursor) bool { return !c.allNull }) {
		return nil // no action column to read: no actions (whatever the row count claims)
	}
	rows := rg.NumRows()
	for r := int64(0); r < rows; r++ {
		if err := d.row(r, fn); err != nil {
			return err
		}
	}
	return nil
}

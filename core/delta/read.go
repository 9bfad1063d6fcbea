package delta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// Column mapping (PROTOCOL.md "Column Mapping").
const (
	PropColumnMappingMode = "delta.columnMapping.mode"
	// MetaPhysicalName and MetaColumnID are the field metadata keys of a
	// column's physical name and id.
	MetaPhysicalName = "delta.columnMapping.physicalName"
	MetaColumnID     = "delta.columnMapping.id"
)

// Column mapping modes.
const (
	ColumnMappingNone = "none"
	ColumnMappingName = "name"
	ColumnMappingID   = "id"
)

// ErrUnreadableFile is wrapped when a data file cannot be read in the
// table's schema: a column whose type cannot be converted, a partition value
// that does not parse, a deletion vector naming rows the file does not have.
var ErrUnreadableFile = errors.New("delta: data file unreadable")

// ColumnMappingMode returns the table's delta.columnMapping.mode ("none",
// "name" or "id"). The property counts only when the protocol supports
// column mapping (reader version 2, or 3 with the columnMapping feature).
func (s *Snapshot) ColumnMappingMode() (string, error) {
	p := s.Protocol
	if !(p.MinReaderVersion == 2 || p.MinReaderVersion == 3 && p.HasReaderFeature(FeatureColumnMapping)) {
		return ColumnMappingNone, nil
	}
	v, ok := s.Metadata.Configuration[PropColumnMappingMode]
	if !ok {
		return ColumnMappingNone, nil
	}
	switch m := strings.ToLower(strings.TrimSpace(v)); m {
	case ColumnMappingNone, ColumnMappingName, ColumnMappingID:
		return m, nil
	}
	return "", fmt.Errorf("%w: table property %s=%q (want none, name or id)", ErrUnsupportedProtocol, PropColumnMappingMode, v)
}

// PhysicalName returns the name a field has in data files, partition values
// and stats under the column mapping mode: its
// delta.columnMapping.physicalName in name and id modes, its name otherwise.
func PhysicalName(f schema.Field, mode string) string {
	if mode != ColumnMappingNone && mode != "" {
		if p, ok := f.Metadata[MetaPhysicalName].(string); ok && p != "" {
			return p
		}
	}
	return f.Name
}

func columnID(f schema.Field) (int, bool) {
	switch v := f.Metadata[MetaColumnID].(type) {
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	case float64:
		return int(v), true
	case int:
		return v, true
	case int64:
		return int(v), true
	}
	return 0, false
}

// FileRows is the live rows of one data file.
type FileRows struct {
	// Add is the file's add action.
	Add *Add
	// Rows are the file's rows not removed by its deletion vector, in file
	// order, in the snapshot's logical schema (Snapshot.Schema(), partition
	// columns included) and the row representation of package schema.
	Rows [][]any
}

// ReadAdd reads the live rows of one data file of this table (an add of
// this snapshot or of a commit read with the same schema): the Parquet file
// is read from the table's store, columns are resolved by the column mapping
// mode and converted to the logical types (type widening), partition
// columns are filled from the add's partition values, and the rows its
// deletion vector removes are dropped. Memory is bounded by one file.
func (s *Snapshot) ReadAdd(ctx context.Context, a *Add) ([][]any, error) {
	mode, err := s.ColumnMappingMode()
	if err != nil {
		return nil, err
	}
	key, err := ObjectKey(a.Path)
	if errors.Is(err, ErrAbsolutePath) {
		key, err = absoluteKey(a.Path, s.table.rootURI)
	}
	if err != nil {
		return nil, err
	}
	dv, err := s.table.LoadDeletionVector(ctx, a.DeletionVector)
	if err != nil {
		return nil, fmt.Errorf("delta: data file %s: %w", key, err)
	}
	data, err := s.table.readAll(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("delta: read data file %s: %w", key, err)
	}
	rows, err := readLogical(data, s.schema, s.Metadata.PartitionColumns, a.PartitionValues, mode, dv)
	if err != nil {
		return nil, fmt.Errorf("delta: data file %s: %w", key, err)
	}
	return rows, nil
}

// ScanRows calls fn with the live rows of each active file, one file at a
// time in path order (memory is bounded by the largest file). It stops at
// the first error, or when fn returns one.
func (s *Snapshot) ScanRows(ctx context.Context, fn func(FileRows) error) error {
	for a := range s.Files() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := s.ReadAdd(ctx, a)
		if err != nil {
			return err
		}
		if err := fn(FileRows{Add: a, Rows: rows}); err != nil {
			return err
		}
	}
	return nil
}

// ReadRowsAt loads the table as of version (-1: the latest) and calls fn
// with the live rows of each of its files (see Snapshot.ScanRows). It
// returns the snapshot it read.
func (t *Table) ReadRowsAt(ctx context.Context, version int64, fn func(FileRows) error) (*Snapshot, error) {
	var snap *Snapshot
	var err error
	if version < 0 {
		snap, err = t.Snapshot(ctx)
	} else {
		snap, err = t.SnapshotAt(ctx, version)
	}
	if err != nil {
		return nil, err
	}
	return snap, snap.ScanRows(ctx, fn)
}

// readLogical decodes a Parquet data file into rows of the logical schema.
func readLogical(data []byte, logical *schema.StructType, partCols []string, partVals map[string]*string, mode string, dv RowSet) ([][]any, error) {
	fileSchema, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var ids *idNode
	if mode == ColumnMappingID {
		if ids, err = fileFieldIDs(data); err != nil {
			return nil, err
		}
	}
	if len(dv) > 0 && dv[len(dv)-1] >= uint64(len(rows)) {
		return nil, fmt.Errorf("%w: deletion vector removes row %d, the file has %d rows", ErrUnreadableFile, dv[len(dv)-1], len(rows))
	}
	// Each logical column comes from a partition value or a file column.
	type source struct {
		part    bool
		partVal any
		col     int // file column, -1: absent (null)
		conv    converter
	}
	srcs := make([]source, len(logical.Fields))
	for i, f := range logical.Fields {
		if isPartitionColumn(partCols, f.Name) {
			phys := PhysicalName(f, mode)
			v, err := parsePartitionValue(partVals, phys, f.Name, f.Type)
			if err != nil {
				return nil, err
			}
			srcs[i] = source{part: true, partVal: v}
			continue
		}
		j := matchField(fileSchema, ids, f, mode)
		srcs[i] = source{col: j}
		if j >= 0 {
			c, err := buildConverter(f.Type, fileSchema.Fields[j].Type, ids.child(j), mode, f.Name)
			if err != nil {
				return nil, err
			}
			srcs[i].conv = c
		}
	}
	out := make([][]any, 0, len(rows)-len(dv))
	next := 0 // index into dv
	for r, row := range rows {
		if next < len(dv) && dv[next] == uint64(r) {
			next++
			continue
		}
		lr := make([]any, len(srcs))
		for i, s := range srcs {
			switch {
			case s.part:
				lr[i] = s.partVal
			case s.col >= 0:
				v, err := s.conv(row[s.col])
				if err != nil {
					return nil, fmt.Errorf("row %d: %w", r, err)
				}
				lr[i] = v
			}
		}
		out = append(out, lr)
		rows[r] = nil // let the file's rows go as the logical ones are built
	}
	return out, nil
}

func isPartitionColumn(cols []string, name string) bool {
	for _, c := range cols {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// matchField finds the file field holding the logical field f: by field
// id (id mode), physical name (name mode) or name (case-insensitively as
// Spark does when there is no exact match). -1 when absent.
func matchField(file *schema.StructType, ids *idNode, f schema.Field, mode string) int {
	if mode == ColumnMappingID {
		id, ok := columnID(f)
		if !ok || ids == nil {
			return -1
		}
		for j := range file.Fields {
			if c := ids.child(j); c != nil && c.id == id && c.hasID {
				return j
			}
		}
		return -1
	}
	name := PhysicalName(f, mode)
	if j := file.FieldIndex(name); j >= 0 {
		return j
	}
	if mode == ColumnMappingNone {
		return file.FieldIndexFold(name)
	}
	return -1
}

// converter turns a value read from a file into the logical type's value.
type converter func(any) (any, error)

func identity(v any) (any, error) { return v, nil }

// buildConverter builds the conversion from a file type to a logical type,
// resolving nested struct fields like top-level ones.
func buildConverter(logical, file schema.Type, ids *idNode, mode, path string) (converter, error) {
	switch lt := logical.(type) {
	case *schema.StructType:
		ft, ok := file.(*schema.StructType)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
		}
		cols := make([]int, len(lt.Fields))
		convs := make([]converter, len(lt.Fields))
		for i, f := range lt.Fields {
			j := matchField(ft, ids, f, mode)
			cols[i] = j
			if j >= 0 {
				c, err := buildConverter(f.Type, ft.Fields[j].Type, ids.child(j), mode, path+"."+f.Name)
				if err != nil {
					return nil, err
				}
				convs[i] = c
			}
		}
		return func(v any) (any, error) {
			if v == nil {
				return nil, nil
			}
			in, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%w: column %s: %T is not a struct", ErrUnreadableFile, path, v)
			}
			out := make([]any, len(cols))
			for i, j := range cols {
				if j < 0 || j >= len(in) {
					continue
				}
				x, err := convs[i](in[j])
				if err != nil {
					return nil, err
				}
				out[i] = x
			}
			return out, nil
		}, nil
	case *schema.ArrayType:
		ft, ok := file.(*schema.ArrayType)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
		}
		ec, err := buildConverter(lt.Element, ft.Element, ids.child(0), mode, path+".element")
		if err != nil {
			return nil, err
		}
		return func(v any) (any, error) {
			if v == nil {
				return nil, nil
			}
			in, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%w: column %s: %T is not an array", ErrUnreadableFile, path, v)
			}
			out := make([]any, len(in))
			for i, e := range in {
				x, err := ec(e)
				if err != nil {
					return nil, err
				}
				out[i] = x
			}
			return out, nil
		}, nil
	case *schema.MapType:
		ft, ok := file.(*schema.MapType)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
		}
		kc, err := buildConverter(lt.Key, ft.Key, ids.child(0), mode, path+".key")
		if err != nil {
			return nil, err
		}
		vc, err := buildConverter(lt.Value, ft.Value, ids.child(1), mode, path+".value")
		if err != nil {
			return nil, err
		}
		return func(v any) (any, error) {
			if v == nil {
				return nil, nil
			}
			in, ok := v.([]schema.MapEntry)
			if !ok {
				return nil, fmt.Errorf("%w: column %s: %T is not a map", ErrUnreadableFile, path, v)
			}
			out := make([]schema.MapEntry, len(in))
			for i, e := range in {
				k, err := kc(e.Key)
				if err != nil {
					return nil, err
				}
				x, err := vc(e.Value)
				if err != nil {
					return nil, err
				}
				out[i] = schema.MapEntry{Key: k, Value: x}
			}
			return out, nil
		}, nil
	}
	switch file.(type) {
	case *schema.StructType, *schema.ArrayType, *schema.MapType:
		return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
	}
	if schema.EqualType(logical, file) {
		return identity, nil
	}
	return func(v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		x, err := convertPrimitive(v, logical)
		if err != nil {
			return nil, fmt.Errorf("%w: column %s: %s in the file cannot be read as %s: %v", ErrUnreadableFile, path, file, logical, err)
		}
		return x, nil
	}, nil
}

// convertPrimitive converts a file value to the logical primitive type:
// the widenings Delta allows (integers to wider integers, double or
// decimal; float to double; decimals to a larger scale; date to
// timestamp_ntz) and string/binary reinterpretation.
func convertPrimitive(v any, to schema.Type) (any, error) {
	if d, ok := to.(schema.DecimalType); ok {
		var dec schema.Decimal
		switch x := v.(type) {
		case schema.Decimal:
			dec = x
		default:
			n, ok := asInt(v)
			if !ok {
				return nil, fmt.Errorf("%T is not a number", v)
			}
			dec = schema.Decimal{Unscaled: big.NewInt(n)}
		}
		if dec.Scale > d.Scale {
			return nil, fmt.Errorf("scale %d does not fit scale %d", dec.Scale, d.Scale)
		}
		u := new(big.Int).Mul(dec.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-dec.Scale)), nil))
		return schema.Decimal{Unscaled: u, Scale: d.Scale}, nil
	}
	p, ok := to.(schema.PrimitiveType)
	if !ok {
		return nil, fmt.Errorf("unknown type %s", to)
	}
	switch p {
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		n, ok := asInt(v)
		if !ok {
			return nil, fmt.Errorf("%T is not an integer", v)
		}
		switch p {
		case schema.Long:
			return n, nil
		case schema.Integer:
			if n == int64(int32(n)) {
				return int32(n), nil
			}
		case schema.Short:
			if n == int64(int16(n)) {
				return int16(n), nil
			}
		case schema.Byte:
			if n == int64(int8(n)) {
				return int8(n), nil
			}
		}
		return nil, fmt.Errorf("%d overflows %s", n, p)
	case schema.Double:
		if f, ok := v.(float32); ok {
			return float64(f), nil
		}
		if n, ok := asInt(v); ok {
			return float64(n), nil
		}
	case schema.Float:
		if n, ok := asInt(v); ok {
			return float32(n), nil
		}
	case schema.String:
		if b, ok := v.([]byte); ok {
			return string(b), nil
		}
	case schema.Binary:
		if s, ok := v.(string); ok {
			return []byte(s), nil
		}
	case schema.TimestampNTZ, schema.Timestamp:
		switch x := v.(type) {
		case time.Time:
			return x, nil
		case schema.Date:
			return time.Unix(int64(x)*86400, 0).UTC(), nil
		}
	}
	return nil, fmt.Errorf("%T cannot be converted", v)
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// parsePartitionValue decodes a serialised partition value (PROTOCOL.md
// "Partition Value Serialization"); a missing key, null or "" is NULL.
func parsePartitionValue(vals map[string]*string, phys, name string, t schema.Type) (any, error) {
	p, ok := vals[phys]
	if !ok {
		// Older writers keyed by the logical name.
		for k, v := range vals {
			if strings.EqualFold(k, phys) || strings.EqualFold(k, name) {
				p, ok = v, true
				break
			}
		}
	}
	if !ok || p == nil || *p == "" {
		return nil, nil
	}
	v, err := parsePartitionString(*p, t)
	if err != nil {
		return nil, fmt.Errorf("%w: partition column %s=%q: %v", ErrUnreadableFile, name, *p, err)
	}
	return v, nil
}

func parsePartitionString(s string, t schema.Type) (any, error) {
	if d, ok := t.(schema.DecimalType); ok {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return nil, errors.New("not a decimal")
		}
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil)))
		if !r.IsInt() {
			return nil, fmt.Errorf("more than %d decimal places", d.Scale)
		}
		return schema.Decimal{Unscaled: new(big.Int).Set(r.Num()), Scale: d.Scale}, nil
	}
	p, ok := t.(schema.PrimitiveType)
	if !ok {
		return nil, fmt.Errorf("type %s cannot be a partition column", t)
	}
	switch p {
	case schema.String:
		return s, nil
	case schema.Binary:
		return []byte(s), nil
	case schema.Boolean:
		return strconv.ParseBool(s)
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		bits := map[schema.PrimitiveType]int{schema.Long: 64, schema.Integer: 32, schema.Short: 16, schema.Byte: 8}[p]
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			// delta-rs writes integral partitions of float-typed sources as "2021.0".
			f, ferr := strconv.ParseFloat(s, 64)
			if ferr != nil || f != float64(int64(f)) {
				return nil, err
			}
			n = int64(f)
		}
		return convertPrimitive(n, p)
	case schema.Double:
		return strconv.ParseFloat(s, 64)
	case schema.Float:
		f, err := strconv.ParseFloat(s, 32)
		return float32(f), err
	case schema.DateType:
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, err
		}
		return schema.Date(d.Unix() / 86400), nil
	case schema.Timestamp, schema.TimestampNTZ:
		for _, layout := range []string{"2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
			if ts, err := time.Parse(layout, s); err == nil {
				return ts.UTC(), nil
			}
		}
		return nil, errors.New("not a timestamp")
	}
	return nil, fmt.Errorf("type %s cannot be a partition column", p)
}

// idNode is the Parquet field_id tree of a file, shaped like the schema
// parquetio.ReadFile returns (a list's child is its element, a map's
// children are key and value).
type idNode struct {
	id       int
	hasID    bool
	children []*idNode
}

func (n *idNode) child(i int) *idNode {
	if n == nil || i < 0 || i >= len(n.children) {
		return nil
	}
	return n.children[i]
}

// fileFieldIDs reads the field ids of a Parquet file's schema.
func fileFieldIDs(data []byte) (n *idNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %w: reading field ids: %v", ErrUnreadableFile, parquetio.ErrCorrupt, r)
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", parquetio.ErrCorrupt, err)
	}
	root := &idNode{}
	for _, c := range f.Root().Columns() {
		root.children = append(root.children, idsOf(c))
	}
	return root, nil
}

// idsOf mirrors parquetio's tree building: LIST and MAP groups collapse to
// their element / key and value.
func idsOf(c *parquet.Column) *idNode {
	n := &idNode{id: c.ID(), hasID: c.ID() != 0}
	kids := c.Columns()
	if c.Repeated() && !c.Leaf() && !isAnnotated(c) {
		// A bare repeated group is a list of that group.
		elem := &idNode{}
		for _, k := range kids {
			elem.children = append(elem.children, idsOf(k))
		}
		n.children = []*idNode{elem}
		return n
	}
	if c.Leaf() {
		return n
	}
	if isAnnotated(c) && len(kids) == 1 && kids[0].Repeated() {
		rg := kids[0]
		inner := rg.Columns()
		if isMapNode(c) && len(inner) == 2 {
			k, v := inner[0], inner[1]
			if v.Name() == "key" {
				k, v = v, k
			}
			n.children = []*idNode{idsOf(k), idsOf(v)}
			return n
		}
		if rg.Leaf() || len(inner) != 1 || rg.Name() == "array" || rg.Name() == c.Name()+"_tuple" {
			e := &idNode{id: rg.ID(), hasID: rg.ID() != 0}
			for _, k := range inner {
				e.children = append(e.children, idsOf(k))
			}
			n.children = []*idNode{e}
			return n
		}
		n.children = []*idNode{idsOf(inner[0])}
		return n
	}
	for _, k := range kids {
		n.children = append(n.children, idsOf(k))
	}
	return n
}

func isAnnotated(c *parquet.Column) bool {
	return isListNode(c) || isMapNode(c)
}

func isListNode(c *parquet.Column) bool {
	if lt := c.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	ct := c.Type().ConvertedType()
	return ct != nil && *ct == deprecated.List
}

func isMapNode(c *parquet.Column) bool {
	if lt := c.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.MapType); ok {
			return true
		}
	}
	ct := c.Type().ConvertedType()
	return ct != nil && (*ct == deprecated.Map || *ct == deprecated.MapKeyValue)
}

// RowCount is a snapshot's live row count (DESCRIBE DETAIL's numRecords).
type RowCount struct {
	// Rows is the number of live rows: the files' records minus the rows
	// their deletion vectors remove.
	Rows int64
	// FromFooters counts the files whose stats lack numRecords, counted
	// from their Parquet footer instead.
	FromFooters int
	// DeletedByDVs is the rows removed by deletion vectors.
	DeletedByDVs int64
}

// footerReaders bounds the data files whose footers are read at once.
const footerReaders = 8

// CountRows counts the snapshot's live rows without reading data: each
// file's stats numRecords or, when the stats lack it (tables written
// without stats), the row count in the file's Parquet footer; minus the
// cardinality of each file's deletion vector.
func (s *Snapshot) CountRows(ctx context.Context) (RowCount, error) {
	var rc RowCount
	var need []*Add
	for a := range s.Files() {
		n, ok := statsNumRecords(a.Stats)
		if !ok {
			need = append(need, a)
		} else {
			rc.Rows += n
		}
		if a.DeletionVector != nil {
			rc.DeletedByDVs += a.DeletionVector.Cardinality
		}
	}
	rc.FromFooters = len(need)
	counts := make([]int64, len(need))
	errs := make([]error, len(need))
	sem := make(chan struct{}, footerReaders)
	var wg sync.WaitGroup
	for i, a := range need {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			counts[i], errs[i] = s.footerRows(ctx, a)
		}()
	}
	wg.Wait()
	for i := range need {
		if errs[i] != nil {
			return RowCount{}, errs[i]
		}
		rc.Rows += counts[i]
	}
	rc.Rows -= rc.DeletedByDVs
	return rc, nil
}

// statsNumRecords returns numRecords from an add's stats JSON, ok=false
// when there are no stats or they lack it.
func statsNumRecords(stats string) (int64, bool) {
	if stats == "" {
		return 0, false
	}
	var st struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if err := json.Unmarshal([]byte(stats), &st); err != nil || st.NumRecords == nil {
		return 0, false
	}
	return *st.NumRecords, true
}

func (s *Snapshot) footerRows(ctx context.Context, a *Add) (int64, error) {
	key, err := ObjectKey(a.Path)
	if errors.Is(err, ErrAbsolutePath) {
		key, err = absoluteKey(a.Path, s.table.rootURI)
	}
	if err != nil {
		return 0, err
	}
	data, err := s.table.readAll(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("delta: read data file %s: %w", key, err)
	}
	n, err := parquetio.NumRows(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0, fmt.Errorf("delta: data file %s: %w", key, err)
	}
	return n, nil
}

package checkpoint

import (
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/delta/action"
)

// This file keeps the row writer the column writer replaced (parquet-go's
// generic writer over ckptRow values, maps and all): the reference of the
// differential tests and benchmarks.

func ptr[T any](v T) *T { return &v }

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ckptDVOf(d *action.DeletionVector) *ckptDV {
	if d == nil {
		return nil
	}
	return &ckptDV{StorageType: ptr(d.StorageType), PathOrInlineDv: ptr(d.PathOrInlineDv), Offset: d.Offset,
		SizeInBytes: ptr(d.SizeInBytes), Cardinality: ptr(d.Cardinality), MaxRowIndex: d.MaxRowIndex}
}

// writeRows is the former writer: rows buffered 1,024 at a time, a row
// group cut every RowGroupRows rows.
func writeRows(w io.Writer, s State) (actions, adds int64, err error) {
	pw := parquet.NewGenericWriter[ckptRow](w, parquet.Compression(&parquet.Snappy))
	buf := make([]ckptRow, 0, 1024)
	inGroup := 0
	flush := func() error {
		if len(buf) > 0 {
			if _, err := pw.Write(buf); err != nil {
				return err
			}
			actions += int64(len(buf))
			inGroup += len(buf)
			buf = buf[:0]
		}
		if inGroup >= RowGroupRows {
			inGroup = 0
			return pw.Flush()
		}
		return nil
	}
	emit := func(r ckptRow) error {
		buf = append(buf, r)
		if len(buf) == cap(buf) {
			return flush()
		}
		return nil
	}
	p := s.Protocol
	if err := emit(ckptRow{Protocol: &ckptProto{MinReaderVersion: ptr(int32(p.MinReaderVersion)), MinWriterVersion: ptr(int32(p.MinWriterVersion)),
		ReaderFeatures: p.ReaderFeatures, WriterFeatures: p.WriterFeatures}}); err != nil {
		return 0, 0, err
	}
	m := s.Metadata
	provider := m.Format.Provider
	if provider == "" {
		provider = "parquet"
	}
	if err := emit(ckptRow{MetaData: &ckptMeta{ID: ptr(m.ID), Name: optStr(m.Name), Description: optStr(m.Description),
		Format:       &ckptFormat{Provider: ptr(provider), Options: action.NonNilMap(m.Format.Options)},
		SchemaString: ptr(m.SchemaString), PartitionColumns: action.NonNilSlice(m.PartitionColumns),
		Configuration: action.NonNilMap(m.Configuration), CreatedTime: m.CreatedTime}}); err != nil {
		return 0, 0, err
	}
	for _, tx := range s.Txns {
		if err := emit(ckptRow{Txn: &ckptTxn{AppID: ptr(tx.AppID), Version: ptr(tx.Version), LastUpdated: tx.LastUpdated}}); err != nil {
			return 0, 0, err
		}
	}
	for _, dm := range s.Domains {
		if err := emit(ckptRow{DomainMetadata: &ckptDomain{Domain: ptr(dm.Domain), Configuration: ptr(dm.Configuration), Removed: ptr(false)}}); err != nil {
			return 0, 0, err
		}
	}
	for a := range s.Adds {
		adds++
		if err := emit(ckptRow{Add: &ckptAdd{Path: ptr(a.Path), PartitionValues: action.NonNilMap(a.PartitionValues), Size: ptr(a.Size),
			ModificationTime: ptr(a.ModificationTime), DataChange: ptr(false), Tags: a.Tags, DeletionVector: ckptDVOf(a.DeletionVector),
			BaseRowID: a.BaseRowID, DefaultRowCommitVersion: a.DefaultRowCommitVersion, Stats: optStr(a.Stats)}}); err != nil {
			return 0, 0, err
		}
	}
	for r := range s.Removes {
		if err := emit(ckptRow{Remove: &ckptRemove{Path: ptr(r.Path), DeletionTimestamp: ptr(r.DeletionTimestamp), DataChange: ptr(false),
			ExtendedFileMetadata: ptr(r.ExtendedFileMetadata), PartitionValues: r.PartitionValues, Size: ptr(r.Size),
			DeletionVector: ckptDVOf(r.DeletionVector)}}); err != nil {
			return 0, 0, err
		}
	}
	if err := flush(); err != nil {
		return 0, 0, err
	}
	if err := pw.Close(); err != nil {
		return 0, 0, err
	}
	return actions, adds, nil
}

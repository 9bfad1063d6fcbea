// Package checkpoint writes classic (V1) single-file Delta checkpoints:
// the Parquet file holding a snapshot's protocol, metaData, txn,
// domainMetadata, add and remove actions, one row each.
//
// The writer is columnar: each leaf column of the checkpoint schema gets
// its values (with their repetition and definition levels) straight from
// the actions, a batch of rows at a time, and hands them to parquet-go's
// column writers. Nothing is assembled into rows and no reflection runs
// per row, so the cost is a few appends per leaf per action — the mirror
// of package action's column reader (action.ReadParquet). Package delta
// calls Write from Table.Checkpoint.
package checkpoint

// The schema is the classic checkpoint schema Spark writes: one optional
// struct column per action kind, maps as MAP<string,string> and lists as
// LIST<string>. These Go types only define it (parquet.SchemaOf); the
// writer fills the columns directly.
type ckptRow struct {
	Txn            *ckptTxn    `parquet:"txn,optional"`
	Add            *ckptAdd    `parquet:"add,optional"`
	Remove         *ckptRemove `parquet:"remove,optional"`
	MetaData       *ckptMeta   `parquet:"metaData,optional"`
	Protocol       *ckptProto  `parquet:"protocol,optional"`
	DomainMetadata *ckptDomain `parquet:"domainMetadata,optional"`
}

type ckptTxn struct {
	AppID       *string `parquet:"appId,optional"`
	Version     *int64  `parquet:"version,optional"`
	LastUpdated *int64  `parquet:"lastUpdated,optional"`
}

type ckptDV struct {
	StorageType    *string `parquet:"storageType,optional"`
	PathOrInlineDv *string `parquet:"pathOrInlineDv,optional"`
	Offset         *int32  `parquet:"offset,optional"`
	SizeInBytes    *int32  `parquet:"sizeInBytes,optional"`
	Cardinality    *int64  `parquet:"cardinality,optional"`
	MaxRowIndex    *int64  `parquet:"maxRowIndex,optional"`
}

type ckptAdd struct {
	Path                    *string            `parquet:"path,optional"`
	PartitionValues         map[string]*string `parquet:"partitionValues,optional"`
	Size                    *int64             `parquet:"size,optional"`
	ModificationTime        *int64             `parquet:"modificationTime,optional"`
	DataChange              *bool              `parquet:"dataChange,optional"`
	Tags                    map[string]string  `parquet:"tags,optional"`
	DeletionVector          *ckptDV            `parquet:"deletionVector,optional"`
	BaseRowID               *int64             `parquet:"baseRowId,optional"`
	DefaultRowCommitVersion *int64             `parquet:"defaultRowCommitVersion,optional"`
	Stats                   *string            `parquet:"stats,optional"`
}

type ckptRemove struct {
	Path                 *string            `parquet:"path,optional"`
	DeletionTimestamp    *int64             `parquet:"deletionTimestamp,optional"`
	DataChange           *bool              `parquet:"dataChange,optional"`
	ExtendedFileMetadata *bool              `parquet:"extendedFileMetadata,optional"`
	PartitionValues      map[string]*string `parquet:"partitionValues,optional"`
	Size                 *int64             `parquet:"size,optional"`
	DeletionVector       *ckptDV            `parquet:"deletionVector,optional"`
}

type ckptFormat struct {
	Provider *string           `parquet:"provider,optional"`
	Options  map[string]string `parquet:"options,optional"`
}

type ckptMeta struct {
	ID               *string           `parquet:"id,optional"`
	Name             *string           `parquet:"name,optional"`
	Description      *string           `parquet:"description,optional"`
	Format           *ckptFormat       `parquet:"format,optional"`
	SchemaString     *string           `parquet:"schemaString,optional"`
	PartitionColumns []string          `parquet:"partitionColumns,optional,list"`
	Configuration    map[string]string `parquet:"configuration,optional"`
	CreatedTime      *int64            `parquet:"createdTime,optional"`
}

type ckptProto struct {
	MinReaderVersion *int32   `parquet:"minReaderVersion,optional"`
	MinWriterVersion *int32   `parquet:"minWriterVersion,optional"`
	ReaderFeatures   []string `parquet:"readerFeatures,optional,list"`
	WriterFeatures   []string `parquet:"writerFeatures,optional,list"`
}

type ckptDomain struct {
	Domain        *string `parquet:"domain,optional"`
	Configuration *string `parquet:"configuration,optional"`
	Removed       *bool   `parquet:"removed,optional"`
}

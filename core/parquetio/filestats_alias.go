package parquetio

import "github.com/tributary-io/tributary/core/parquetio/filestats"

// FileStats are a data file's Delta statistics (see package filestats).
type FileStats = filestats.FileStats

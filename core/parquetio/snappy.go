package parquetio

import (
	"github.com/parquet-go/parquet-go/compress"

	"github.com/tributary-io/tributary/core/parquetio/internal/codec"
)

// FastSnappy returns the SNAPPY codec with the fast block encoder (see
// codec.FastSnappy), for other Parquet writers (Delta checkpoints) to share.
func FastSnappy() compress.Codec { return codec.FastSnappy{} }

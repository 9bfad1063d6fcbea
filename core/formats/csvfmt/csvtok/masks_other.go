//go:build !amd64

package csvtok

// maskBlocks fills sep, quote and high (blockMasks) for the 64-byte
// blocks of src (len(src) a multiple of 64; the slices as long as the
// blocks at least): sepw and quotew are the delimiter and the quote byte
// repeated eight times.
func maskBlocks(src []byte, sepw, quotew uint64, sep, quote, high []uint64) {
	maskBlocksGo(src, sepw, quotew, sep, quote, high)
}

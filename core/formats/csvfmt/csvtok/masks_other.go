//go:build !amd64

package csvtok

// maskBlocks fills sep, quote, special and high (blockMasks) for the
// 64-byte blocks of src (len(src) a multiple of 64; the slices as long as
// the blocks at least): sepw, quotew, esc1w and esc2w are the delimiter,
// the quote and the escape bytes repeated eight times.
func maskBlocks(src []byte, sepw, quotew, esc1w, esc2w uint64, sep, quote, special, high []uint64) {
	maskBlocksGo(src, sepw, quotew, esc1w, esc2w, sep, quote, special, high)
}

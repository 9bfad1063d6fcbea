package csvtok

// maskBlocks fills sep, quote, special and high (blockMasks) for the
// 64-byte blocks of src (len(src) a multiple of 64; the slices as long as
// the blocks at least): sepw, quotew, esc1w and esc2w are the delimiter,
// the quote and the escape bytes repeated eight times. SSE2, which every
// amd64 has.
//
//go:noescape
func maskBlocks(src []byte, sepw, quotew, esc1w, esc2w uint64, sep, quote, special, high []uint64)

package csvtok

// maskBlocks fills sep, quote and high (blockMasks) for the 64-byte
// blocks of src (len(src) a multiple of 64; the slices as long as the
// blocks at least): sepw and quotew are the delimiter and the quote byte
// repeated eight times. SSE2, which every amd64 has.
//
//go:noescape
func maskBlocks(src []byte, sepw, quotew uint64, sep, quote, high []uint64)

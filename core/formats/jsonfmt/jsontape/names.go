package jsontape

// NameWord returns a member name of 1 to 8 bytes as a little-endian
// integer w and the mask of its bytes, so that a scanner can recognise
// the name in a document with one masked 8-byte load; 0, 0 for a name of
// another length.
func NameWord(name string) (w, mask uint64) {
	if len(name) == 0 || len(name) > 8 {
		return 0, 0
	}
	for i := len(name) - 1; i >= 0; i-- {
		w = w<<8 | uint64(name[i])
	}
	return w, 1<<(8*len(name)) - 1
}

// RawName reports whether name is written in JSON as its own bytes
// between quotes (no quote, backslash or control character to escape).
func RawName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

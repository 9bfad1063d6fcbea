package fileformat

// TextOptions are the options of the text formats that turn a file's bytes
// into records, before any record is parsed.
type TextOptions struct {
	// Encoding is the encoding option (alias charset): the files' Java
	// charset name, resolved by package charset; "" means UTF-8.
	Encoding string
	// LineSep is the lineSep option: the string that ends a record; ""
	// means any of "\n", "\r\n" and "\r".
	LineSep string
}

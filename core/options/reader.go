package options

import "github.com/tributary-io/tributary/core/options/readeropts"

// FileFormat is a value of cloudFiles.format (readeropts.FileFormat).
type FileFormat = readeropts.FileFormat

// File formats accepted by cloudFiles.format (no default, no detection).
const (
	FormatAvro       = readeropts.FormatAvro
	FormatBinaryFile = readeropts.FormatBinaryFile
	FormatCSV        = readeropts.FormatCSV
	FormatJSON       = readeropts.FormatJSON
	FormatORC        = readeropts.FormatORC
	FormatParquet    = readeropts.FormatParquet
	FormatText       = readeropts.FormatText
	FormatXML        = readeropts.FormatXML
)

// FileFormats lists every accepted cloudFiles.format value.
func FileFormats() []FileFormat { return readeropts.FileFormats() }

// Reader are the plain (non-cloudFiles) reader options of the file format
// (readeropts.Reader).
type Reader = readeropts.Reader

// readerOptions are the file format reader options (package readeropts),
// applied to the stream's Reader.
func readerOptions() []optSpec {
	var out []optSpec
	for _, r := range readeropts.Specs() {
		if r.Refused {
			out = append(out, refusedOpt(r.Name, scopeReader, r.Formats, r.Doc))
			continue
		}
		out = append(out, optSpec{
			name: r.Name, scope: scopeReader, formats: r.Formats, def: r.Default, doc: r.Doc,
			set: func(s *Stream, v string) error {
				if err := r.Set(&s.Reader, s.CloudFiles.Format, v); err != nil {
					return err
				}
				if r.Warning != "" {
					s.Warnings = append(s.Warnings, r.Warning)
				}
				return nil
			},
			get: func(s *Stream) (string, bool) { return r.Get(&s.Reader) },
		})
	}
	return out
}

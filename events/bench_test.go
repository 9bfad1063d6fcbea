package events

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse measures Parse on representative bodies (one record each,
// except s3_keys_weird with four records needing URL decoding).
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"s3_put.json", "s3_keys_weird.json", "sns_s3_put.json", "eventbridge_created.json"} {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

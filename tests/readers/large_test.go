package readers

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// largeValueBytes is the size of the string value of the large-value table:
// 64 MB, the size Tributary promises to carry through to every reader.
const largeValueBytes = 64 << 20

// digestSpec asks an engine for the byte length and SHA-256 of column in
// every row of a table, instead of the rows (a 64 MB value is not sent
// around as JSON).
type digestSpec struct {
	Path   string `json:"path"`
	Key    string `json:"key"`
	Column string `json:"column"`
}

// digestOut is what one reader saw: for each key, the value's length in
// bytes and its SHA-256 (hex); "reader" names the engine or library.
type digestOut struct {
	Path   string `json:"path"`
	Reader string `json:"reader"`
	Rows   []struct {
		Key    any    `json:"key"`
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256"`
	} `json:"rows"`
}

// largeTable is a table whose rows hold values of these sizes.
type largeTable struct {
	path string
	want map[string]digest // by key
}

type digest struct {
	bytes int64
	sum   string
}

// writeLargeTable ingests, with the CLI, a file whose first line carries a
// 64 MB string (not ASCII only: its bytes and characters differ), followed
// by small rows.
func writeLargeTable(t *testing.T, bin string) *largeTable {
	t.Helper()
	dir := t.TempDir()
	src, tbl, ckpt := filepath.Join(dir, "src"), filepath.Join(dir, "table"), filepath.Join(dir, "checkpoint")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(64, 64))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,"
	var big strings.Builder
	big.Grow(largeValueBytes)
	for big.Len() < largeValueBytes-2 {
		if r.IntN(1000) == 0 {
			big.WriteString("é")
			continue
		}
		big.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	values := map[string]string{"1": big.String(), "2": "small", "3": strings.Repeat("é", 5000)}
	var in strings.Builder
	lt := &largeTable{path: tbl, want: map[string]digest{}}
	for _, k := range []string{"1", "2", "3"} {
		in.WriteString(`{"id":` + k + `,"s":"` + values[k] + "\"}\n")
		sum := sha256.Sum256([]byte(values[k]))
		lt.want[k] = digest{int64(len(values[k])), hex.EncodeToString(sum[:])}
	}
	if err := os.WriteFile(filepath.Join(src, "large.json"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--quiet", "--source", src, "--table", tbl, "--checkpoint", ckpt,
		"--option", "cloudFiles.format=json", "--option", "cloudFiles.inferColumnTypes=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("large value: tributary run: %v\n%s", err, out)
	}
	return lt
}

// checkDigests checks that every reader of the large table saw every
// value whole.
func checkDigests(t *testing.T, engine string, lt *largeTable, outs []digestOut) {
	t.Helper()
	readers := 0
	for _, o := range outs {
		if o.Path != lt.path {
			continue
		}
		readers++
		got := map[string]digest{}
		for _, r := range o.Rows {
			got[keyText(normalize(r.Key))] = digest{r.Bytes, r.SHA256}
		}
		for k, want := range lt.want {
			if g, ok := got[k]; !ok || g != want {
				t.Errorf("%s (%s): row %s: %d bytes, sha256 %.12s…; want %d bytes, %.12s…", engine, o.Reader, k, g.bytes, g.sum, want.bytes, want.sum)
			}
		}
		if len(got) != len(lt.want) {
			t.Errorf("%s (%s): %d rows, want %d", engine, o.Reader, len(got), len(lt.want))
		}
		t.Logf("%s (%s) read the %d-byte value whole", engine, o.Reader, largeValueBytes)
	}
	if readers == 0 {
		t.Errorf("%s reported no digests of the large-value table", engine)
	}
}

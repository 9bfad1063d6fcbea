package localfs

import "os"

// writebackBytes is how many bytes written to a temporary file start their
// disk writes (startWriteback) before the next ones are written.
const writebackBytes = 4 << 20

// writeback writes to f and starts the disk writes of every writebackBytes
// written, so that the fsync that follows (writeTemp, WithSync) waits for
// the last few MiB instead of the whole file: the writes to the disk overlap
// the copy. It changes nothing of what is durable when: the fsync still
// follows, and it reports any write error. (A 20 MB Parquet file, copy and
// fsync: 18.5 → 11.5 ms.)
type writeback struct {
	f       *os.File
	off     int64 // start of the bytes whose disk writes are not started
	pending int64
}

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.pending += int64(n)
	if w.pending >= writebackBytes {
		startWriteback(w.f, w.off, w.pending)
		w.off += w.pending
		w.pending = 0
	}
	return n, err
}

package pagew

import (
	"bytes"
	"hash/maphash"
)

// bytesDict is the dictionary of a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY
// column chunk: its entries' bytes back to back in insertion order, and an
// open-addressing table from their hashes to entry numbers (a Go map with
// string keys costs a string per entry and more per lookup).
type bytesDict struct {
	seed  maphash.Seed
	slots []int32  // entry number + 1, 0 when free; a power of two long
	hash  []uint64 // by entry
	start []uint32 // by entry: where it starts in data; one more: the end
	data  []byte
}

// reset empties the dictionary, keeping its memory.
func (d *bytesDict) reset() {
	if d.start == nil {
		d.seed = maphash.MakeSeed()
	}
	clear(d.slots)
	d.hash, d.start, d.data = d.hash[:0], append(d.start[:0], 0), d.data[:0]
}

// len is the number of entries.
func (d *bytesDict) len() int { return len(d.hash) }

// entry returns entry i's bytes.
func (d *bytesDict) entry(i int) []byte { return d.data[d.start[i]:d.start[i+1]] }

// index returns b's entry number, adding b as a new entry (added true)
// when it has none.
func (d *bytesDict) index(b []byte) (x int32, added bool) {
	h := maphash.Bytes(d.seed, b)
	if 2*len(d.hash) >= len(d.slots) {
		d.grow()
	}
	mask := uint64(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := d.slots[i]
		if e == 0 {
			x = int32(len(d.hash))
			d.slots[i] = x + 1
			d.hash = append(d.hash, h)
			d.data = append(d.data, b...)
			d.start = append(d.start, uint32(len(d.data)))
			return x, true
		}
		if d.hash[e-1] == h && bytes.Equal(d.entry(int(e-1)), b) {
			return e - 1, false
		}
	}
}

// grow doubles the table (at least 64 slots) and re-inserts the entries.
func (d *bytesDict) grow() {
	n := max(64, 2*len(d.slots))
	if cap(d.slots) >= n {
		d.slots = d.slots[:n]
		clear(d.slots)
	} else {
		d.slots = make([]int32, n)
	}
	mask := uint64(n - 1)
	for x, h := range d.hash {
		i := h & mask
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = int32(x + 1)
	}
}

// intDict is the dictionary of a column chunk of another physical type
// (INT32, INT64, FLOAT, DOUBLE), keyed by the values' bits: an
// open-addressing table of (key, entry number) pairs, which costs less per
// lookup than a Go map. Entry numbers follow insertion order, as the
// map's did.
type intDict struct {
	seed  uint64
	slots []intSlot // a power of two long
	n     int       // entries
}

// intSlot is a slot of an intDict: x is the entry number + 1, 0 when free.
type intSlot struct {
	key uint64
	x   int32
}

// reset empties the dictionary, keeping its memory.
func (d *intDict) reset() {
	if d.seed == 0 {
		d.seed = maphash.Comparable(maphash.MakeSeed(), uint64(0)) | 1
	}
	clear(d.slots)
	d.n = 0
}

// mix spreads k's bits over the hash (murmur3's finalizer of k xor the
// seed: a bijection, so that keys colliding in the table depend on the
// random seed).
func (d *intDict) mix(k uint64) uint64 {
	h := k ^ d.seed
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// index returns k's entry number, adding k as a new entry (added true)
// when it has none.
func (d *intDict) index(k uint64) (x int32, added bool) {
	if 2*d.n >= len(d.slots) {
		d.grow()
	}
	mask := uint64(len(d.slots) - 1)
	for i := d.mix(k) & mask; ; i = (i + 1) & mask {
		s := &d.slots[i]
		if s.x == 0 {
			d.n++
			s.key, s.x = k, int32(d.n)
			return int32(d.n - 1), true
		}
		if s.key == k {
			return s.x - 1, false
		}
	}
}

// grow doubles the table (at least 64 slots) and re-inserts the entries.
func (d *intDict) grow() {
	old := d.slots
	n := max(64, 2*len(old))
	d.slots = make([]intSlot, n)
	mask := uint64(n - 1)
	for _, s := range old {
		if s.x == 0 {
			continue
		}
		i := d.mix(s.key) & mask
		for d.slots[i].x != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = s
	}
}

// Package boltfile checks a bbolt file's structure before bbolt maps it:
// bbolt trusts its file and, on a truncated or garbled one, dies with
// SIGBUS or panics; Verify finds such damage with plain reads first.
package boltfile

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
)

// The bbolt file format (go.etcd.io/bbolt v1.x, format version 2) as far as
// Verify reads it. Every integer is little-endian on the platforms bbolt
// writes (it uses the machine's byte order; all supported targets are
// little-endian).
const (
	boltMagic         = 0xED0CDAED
	boltVersion       = 2
	pageHeaderSize    = 16 // id u64, flags u16, count u16, overflow u32
	elementSize       = 16 // branch: pos u32, ksize u32, pgid u64; leaf: flags u32, pos u32, ksize u32, vsize u32
	metaSize          = 64 // magic, version, pageSize, flags u32; root, sequence, freelist, pgid, txid, checksum u64
	metaChecksumAt    = 56
	bucketHeaderSize  = 16 // root u64, sequence u64
	flagBranch        = 0x01
	flagLeaf          = 0x02
	flagFreelist      = 0x10
	leafFlagBucket    = 0x01
	noFreelist        = ^uint64(0)
	maxTreeDepth      = 64 // far beyond any real tree (bbolt's are a handful of levels deep)
	maxProbedPageSize = 1024 << 14
)

// Corruption is what Verify found wrong.
type Corruption struct {
	// Detail says what is wrong, for an error message.
	Detail string
	// Empty reports a file that never held any file state: zero bytes
	// (bbolt itself takes those for new), or cut short while bbolt was
	// creating it, as when the disk fills up then (its first meta page
	// still holds the initial transaction id 0: the first commit, id 2,
	// would have replaced it).
	Empty bool
}

// Error returns Detail.
func (c *Corruption) Error() string { return c.Detail }

// meta is a decoded bbolt meta page.
type meta struct {
	valid                         bool
	pageSize                      uint32
	root, freelist, hwm, txid     uint64
	magic, version, checksumValid bool
}

func decodeMeta(b []byte) meta {
	var m meta
	if len(b) < pageHeaderSize+metaSize {
		return m
	}
	h := b[pageHeaderSize : pageHeaderSize+metaSize]
	le := binary.LittleEndian
	m.magic = le.Uint32(h[0:]) == boltMagic
	m.version = le.Uint32(h[4:]) == boltVersion
	m.pageSize = le.Uint32(h[8:])
	m.root = le.Uint64(h[16:])
	m.freelist = le.Uint64(h[32:])
	m.hwm = le.Uint64(h[40:])
	m.txid = le.Uint64(h[48:])
	sum := fnv.New64a()
	sum.Write(h[:metaChecksumAt])
	m.checksumValid = sum.Sum64() == le.Uint64(h[metaChecksumAt:])
	m.valid = m.magic && m.version && m.checksumValid
	return m
}

// Verify checks that the bbolt file f (size bytes) is whole and that every
// page bbolt could reach from its current meta page lies inside the file,
// has the right type and holds elements inside its bounds, with no page
// reached twice (which would make bbolt loop). bbolt itself trusts the file
// and, reading it through mmap, dies with SIGBUS on a truncated one or
// panics on a garbled page; after Verify it does neither. The cost is one
// read of each reachable page.
func Verify(f io.ReaderAt, size int64) *Corruption {
	if size == 0 {
		return &Corruption{Detail: "it is empty (0 bytes)", Empty: true}
	}
	head := make([]byte, pageHeaderSize+metaSize)
	if n, _ := f.ReadAt(head, 0); n < len(head) {
		return &Corruption{Detail: fmt.Sprintf("it is truncated to %d bytes, shorter than its first page", size)}
	}
	m0 := decodeMeta(head)
	psz := uint32(0)
	if m0.valid {
		psz = m0.pageSize
	} else {
		// bbolt then looks for the second meta page at every page size.
		for ps := int64(1024); ps <= maxProbedPageSize && ps+int64(len(head)) <= size; ps <<= 1 {
			b := make([]byte, len(head))
			if _, err := f.ReadAt(b, ps); err == nil {
				if m := decodeMeta(b); m.valid && int64(m.pageSize) == ps {
					psz = m.pageSize
					break
				}
			}
		}
	}
	if psz == 0 {
		if !m0.magic {
			return &Corruption{Detail: "it is not a bbolt database (no valid meta page)"}
		}
		return &Corruption{Detail: "both of its meta pages are damaged"}
	}
	if psz < 1024 || psz > maxProbedPageSize || psz&(psz-1) != 0 {
		return &Corruption{Detail: fmt.Sprintf("its meta page gives an invalid page size %d", psz)}
	}
	m1 := meta{}
	b1 := make([]byte, len(head))
	if _, err := f.ReadAt(b1, int64(psz)); err == nil {
		m1 = decodeMeta(b1)
	}
	if m0.valid && m0.pageSize != psz {
		m0.valid = false
	}
	if m1.valid && m1.pageSize != psz {
		m1.valid = false
	}
	// bbolt uses the meta with the higher transaction id if it is valid,
	// else the other one.
	cur, other := m0, m1
	if m1.txid > m0.txid {
		cur, other = m1, m0
	}
	if !cur.valid {
		cur = other
	}
	if !cur.valid {
		return &Corruption{Detail: "both of its meta pages are damaged"}
	}
	// Only bbolt's initialising transactions (ids 0 and 1, one per meta
	// page) ever happened: the file holds no state. The first write
	// transaction has id 2 and overwrites meta page 0.
	neverUsed := m0.valid && m0.txid == 0 && (!m1.valid || m1.txid <= 1)
	fail := func(format string, args ...any) *Corruption {
		return &Corruption{Detail: fmt.Sprintf(format, args...), Empty: neverUsed}
	}
	switch {
	case cur.hwm < 4 || cur.hwm > 1<<40:
		// bbolt's smallest file has 4 pages: two meta pages, the free-page
		// list and the root bucket's page.
		return fail("its meta page gives an invalid page count %d", cur.hwm)
	case cur.hwm > uint64(size)/uint64(psz):
		return fail("it is truncated: %d bytes, but its pages need %d", size, cur.hwm*uint64(psz))
	}
	v := &verifier{f: f, psz: int64(psz), hwm: cur.hwm, seen: make([]bool, cur.hwm)}
	v.seen[0], v.seen[1] = true, true
	var free []uint64
	if cur.freelist != noFreelist {
		var err error
		if free, err = v.freelist(cur.freelist); err != nil {
			return fail("its free-page list is damaged: %v", err)
		}
	}
	if err := v.page(cur.root, 0); err != nil {
		return fail("its page tree is damaged: %v", err)
	}
	for _, id := range free {
		if v.seen[id] {
			return fail("its page tree is damaged: page %d is both in use and free", id)
		}
	}
	return nil
}

// verifier walks a bbolt file's pages.
type verifier struct {
	f    io.ReaderAt
	psz  int64
	hwm  uint64
	seen []bool
}

// read returns page id with its overflow pages, after checking its header.
func (v *verifier) read(id uint64) ([]byte, error) {
	if id < 2 || id >= v.hwm {
		return nil, fmt.Errorf("page %d is outside the file's %d pages", id, v.hwm)
	}
	// The page first (it lies inside the file, id < hwm), then its
	// overflow pages, if any, once its header says how many.
	buf := make([]byte, v.psz)
	if _, err := v.f.ReadAt(buf, int64(id)*v.psz); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := binary.LittleEndian.Uint64(buf); got != id {
		return nil, fmt.Errorf("page %d holds the header of page %d", id, got)
	}
	overflow := uint64(binary.LittleEndian.Uint32(buf[12:]))
	if overflow >= v.hwm-id {
		return nil, fmt.Errorf("page %d runs %d pages past the end", id, overflow)
	}
	for p := id; p <= id+overflow; p++ {
		if v.seen[p] {
			return nil, fmt.Errorf("page %d is reached twice", p)
		}
		v.seen[p] = true
	}
	if overflow > 0 {
		buf = append(buf, make([]byte, int64(overflow)*v.psz)...)
		if _, err := v.f.ReadAt(buf[v.psz:], int64(id+1)*v.psz); err != nil {
			return nil, fmt.Errorf("page %d: %w", id, err)
		}
	}
	return buf, nil
}

func (v *verifier) freelist(id uint64) ([]uint64, error) {
	buf, err := v.read(id)
	if err != nil {
		return nil, err
	}
	if flags := binary.LittleEndian.Uint16(buf[8:]); flags != flagFreelist {
		return nil, fmt.Errorf("page %d has type %#x, not a free-page list", id, flags)
	}
	count, at := uint64(binary.LittleEndian.Uint16(buf[10:])), uint64(pageHeaderSize)
	if count == 0xFFFF {
		count, at = binary.LittleEndian.Uint64(buf[pageHeaderSize:]), pageHeaderSize+8
	}
	if count > (uint64(len(buf))-at)/8 {
		return nil, fmt.Errorf("page %d lists %d free pages, more than it holds", id, count)
	}
	ids := make([]uint64, count)
	dup := map[uint64]bool{}
	for i := range ids {
		ids[i] = binary.LittleEndian.Uint64(buf[at+uint64(i)*8:])
		if ids[i] < 2 || ids[i] >= v.hwm {
			return nil, fmt.Errorf("free page %d is outside the file's %d pages", ids[i], v.hwm)
		}
		if dup[ids[i]] {
			return nil, fmt.Errorf("page %d is free twice", ids[i])
		}
		dup[ids[i]] = true
	}
	return ids, nil
}

// page checks the branch or leaf page id and everything below it.
func (v *verifier) page(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d: the tree is deeper than %d levels", id, maxTreeDepth)
	}
	buf, err := v.read(id)
	if err != nil {
		return err
	}
	return v.nodes(buf, fmt.Sprintf("page %d", id), depth)
}

// nodes checks the elements of a branch or leaf page held in buf (a page
// of the file, or an inline bucket's page inside a value).
func (v *verifier) nodes(buf []byte, name string, depth int) error {
	if len(buf) < pageHeaderSize {
		return fmt.Errorf("%s is shorter than a page header", name)
	}
	flags := binary.LittleEndian.Uint16(buf[8:])
	count := int(binary.LittleEndian.Uint16(buf[10:]))
	if flags != flagBranch && flags != flagLeaf {
		return fmt.Errorf("%s has type %#x, not a branch or leaf page", name, flags)
	}
	if pageHeaderSize+count*elementSize > len(buf) {
		return fmt.Errorf("%s lists %d elements, more than it holds", name, count)
	}
	if flags == flagBranch && count == 0 {
		return fmt.Errorf("%s is an empty branch page", name)
	}
	le := binary.LittleEndian
	for i := range count {
		at := pageHeaderSize + i*elementSize
		el := buf[at : at+elementSize]
		if flags == flagBranch {
			pos, ksize := uint64(le.Uint32(el[0:])), uint64(le.Uint32(el[4:]))
			if uint64(at)+pos+ksize > uint64(len(buf)) {
				return fmt.Errorf("%s: element %d lies outside the page", name, i)
			}
			if err := v.page(le.Uint64(el[8:]), depth+1); err != nil {
				return err
			}
			continue
		}
		lflags, pos, ksize, vsize := le.Uint32(el[0:]), uint64(le.Uint32(el[4:])), uint64(le.Uint32(el[8:])), uint64(le.Uint32(el[12:]))
		end := uint64(at) + pos + ksize + vsize
		if end > uint64(len(buf)) {
			return fmt.Errorf("%s: element %d lies outside the page", name, i)
		}
		if lflags&leafFlagBucket == 0 {
			continue
		}
		value := buf[uint64(at)+pos+ksize : end]
		if len(value) < bucketHeaderSize {
			return fmt.Errorf("%s: bucket element %d is too short", name, i)
		}
		root := le.Uint64(value)
		if root == 0 {
			// An inline bucket: its leaf page follows the bucket header.
			inline := value[bucketHeaderSize:]
			if len(inline) >= pageHeaderSize && le.Uint16(inline[8:]) != flagLeaf {
				return fmt.Errorf("%s: inline bucket %d is not a leaf page", name, i)
			}
			if err := v.nodes(inline, fmt.Sprintf("%s (inline bucket %d)", name, i), depth+1); err != nil {
				return err
			}
			continue
		}
		if err := v.page(root, depth+1); err != nil {
			return err
		}
	}
	return nil
}

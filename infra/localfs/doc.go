// Package localfs provides an objstore.Store over a local directory tree, used
// by Tributary's embedded (no-AWS) mode for sources, tables and checkpoints.
//
// # Layout
//
// A key maps to the file at the same relative path under the root directory
// ('/' separates directories). Every access goes through an os.Root, so no
// key and no symbolic link inside the tree can reach outside the root,
// except the reads of a store opened WithFollowLinks (a stream's source
// directory): Get, Head, Copy's source and List then follow symbolic links
// wherever they lead, as Hadoop's local file system does, while writes and
// deletes of directories stay within the root.
// Intermediate directories are created on write and empty ones are removed
// again when their last object is deleted. A key cannot be both an object
// and the parent of other objects ("a" and "a/b"): a filesystem cannot hold
// a file and a directory under one name, so such a write fails with an
// error naming the key (it is not ErrExists).
//
// # Atomicity
//
// Put, PutIfAbsent and Copy first write the whole content to a temporary
// file in the destination's directory and fsync it (unless WithSync(false)).
// Put and Copy then rename it over the key, so readers see the old or the
// new file, never a partial one. PutIfAbsent hard-links the temporary file
// to the key (link(2) fails when the name exists, atomically) and removes
// the temporary name; exactly one of several racing writers wins, and the
// key only ever names a complete file. A failing reader or a cancelled
// context removes the temporary file and leaves the key untouched.
//
// Temporary files are named with the reserved prefix TempPrefix. List never
// yields them, and keys with a segment starting with TempPrefix are refused
// with objstore.ErrInvalidKey, as are keys holding a NUL byte. Temporary
// files left by a crash are harmless; RemoveStaleTemp deletes them.
//
// # ETags
//
// Hashing content on every Head would cost a full read of large files, so
// the ETag is derived from metadata: "<inode>-<size>-<mtime ns>" (hex).
// Every write sets the file's modification time explicitly to the current
// time with nanosecond precision. A rename replaces a file with a new inode
// that existed alongside the old one, so the inode differs; after a Delete
// the inode may be reused, but the new modification time is later. The ETag
// therefore changes on every write (also when the content is identical,
// which the contract allows). This relies on a filesystem that stores
// nanosecond timestamps (ext4, XFS, btrfs, tmpfs, APFS); on filesystems with
// coarse timestamps (FAT, HFS+) two writes within one tick that reuse an
// inode could share an ETag. Files changed in place by other programs get
// a new ETag when their size or kernel-set modification time changes.
//
// # Listing
//
// List walks the tree lazily, reading one directory at a time and sorting
// its entries so that keys come out in byte order of the full key (a
// directory "a" sorts as "a/", after "a-b" and "a.b" and before "a0").
// Directories outside the prefix, or entirely at or before StartAfter, are
// not read. Symbolic links are followed (within the root unless
// WithFollowLinks): a link to a file lists as that file under the link's
// key, a link to a directory as that directory. A directory that is one of
// its own ancestors again (a link loop; recognised by device and inode) is
// not entered, so every file is listed once per path that does not loop.
// Entries that cannot be listed as objects — names that are not valid keys
// (invalid UTF-8), dangling links, links leaving the root (without
// WithFollowLinks), link loops, links into a WithExcluded directory,
// anything that is neither a regular file nor a directory — are left out,
// or, with ListOptions.Unreadable, yielded with ObjectInfo.Unreadable
// saying why (a directory's key ends in '/').
//
// # Reading a source directory
//
// A store opened WithFollowLinks opens its files (Get, ReadWhole, Copy's
// source) relative to a descriptor of its root directory (openat) rather
// than by their full paths, so that the kernel walks only the key's own
// components. The descriptor is never staler than the listing that named
// a file: every List drops it when it starts, files are opened by their
// full paths while any List is in progress (and in a store never listed),
// and the last List to end opens the root again by its path and keeps
// that descriptor until the next List or Close. A source directory
// renamed away and created again under its name (a long-running stream
// keeps its store for hours) is so read anew from the first listing after
// that; until then, reads of files named by an earlier listing go to the
// directory that listing saw, or a newer one. Symbolic links, ".." in
// their targets, errors (naming the file's full path) and missing files
// are as with a full path.
package localfs

package discovery

import (
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// maxFanOutDepth bounds how many levels a pass descends to find enough
// prefixes to share among its workers (planParts).
const maxFanOutDepth = 4

func foundOf(info objstore.ObjectInfo) Found {
	return Found{File: state.File{Path: info.Key, Size: info.Size, ETag: info.ETag, ModTime: info.ModTime}, Skip: info.Unreadable}
}

// prunable reports a sub-prefix a pass leaves out: its last segment is
// Hidden by its first byte ('.', or '_' without '='). Its subtree is the
// key range from it up to it with the final '/' raised to '0', and every
// key that range holds is hidden too (a prefix hidden only by a
// "._COPYING_" suffix or an empty segment is listed and filtered instead).
func prunable(p string) bool {
	seg := strings.TrimSuffix(p, "/")
	seg = seg[strings.LastIndexByte(seg, '/')+1:]
	return seg != "" && (seg[0] == '.' || seg[0] == '_') && Hidden(seg)
}

package engine

import (
	"encoding/binary"
	"hash/fnv"
	"time"
)

// JitterOffset is how much later than at a recheck of the object key comes
// when its state asks for up to max of jitter: an offset in [0, max) fixed
// by the object and the time, so that objects and ticks spread out while
// every run (and every machine) computes the same. It is whole seconds
// when max is a second or more.
func JitterOffset(key string, at time.Time, max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(at.UnixNano()))
	h.Write(b[:])
	off := time.Duration(h.Sum64() % uint64(max))
	if max >= time.Second {
		off = off.Truncate(time.Second)
	}
	return off
}

// jitterKey names an object for JitterOffset: its uid, or its namespace
// and name when it has none.
func jitterKey(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	if uid, _ := md["uid"].(string); uid != "" {
		return uid
	}
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	return ns + "/" + name
}

//go:build !js

package store

// flushed is the watermark of the newest catalog version written: the
// tail pointer's "flushed" (OBJECTS.md, "Tails").
func (f *objFiles) flushed() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cat.watermark()
}

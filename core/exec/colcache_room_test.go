package exec

import (
	"fmt"
	"testing"
)

// With a room below its limit the cache keeps to the room: a Put makes
// space by evicting the oldest columns, and ShrinkTo gives back at once
// what a governor takes, oldest first, protected columns last.
func TestColCacheKeepsToItsRoom(t *testing.T) {
	size := intColumn(1000).Bytes()
	c := NewColCache(size * 100)
	room := size * 10
	c.SetRoom(func() int64 { return room })
	hot := colKey("hot")
	c.Put(hot, intColumn(1000), 0)
	c.Get(hot, 0) // protected
	for i := range 30 {
		c.Put(colKey(fmt.Sprint("c", i)), intColumn(1000), 0)
		if c.Used() > room {
			t.Fatalf("after %d puts the cache holds %d bytes, room %d", i+1, c.Used(), room)
		}
	}
	if c.Used() != room {
		t.Errorf("the cache holds %d bytes, want its whole room %d", c.Used(), room)
	}
	room = size * 3
	if freed := c.ShrinkTo(room); freed != size*7 || c.Used() != room {
		t.Fatalf("ShrinkTo gave back %d bytes and holds %d, want %d and %d", freed, c.Used(), size*7, room)
	}
	if c.Get(hot, 0) == nil || c.Get(colKey("c29"), 0) == nil {
		t.Error("shrinking evicted the protected or the newest column before older ones")
	}
	if c.Get(colKey("c27"), 0) != nil {
		t.Error("a column older than the room keeps is still cached")
	}
	if c.ShrinkTo(0); c.Used() != 0 || len(c.Items) != 0 {
		t.Errorf("ShrinkTo(0) left %d bytes in %d columns", c.Used(), len(c.Items))
	}
	room = -5 // the queries hold more than the pool: nothing is kept
	c.Put(colKey("late"), intColumn(1000), 0)
	if c.Used() != 0 {
		t.Errorf("a column was kept with no room: %d bytes", c.Used())
	}
}

package exec

// The column cache shares the server's memory budget with the queries
// (issue 29): it is memory lent, not set aside. A server's governor
// (server/governor.go) tells the cache how much it may hold at the
// moment (SetRoom): what the budget's query pool has left after the
// running queries' reservations. A query that needs memory takes it
// first and the cache then gives back what no longer fits (Shrink), so a
// query is refused only when the queries alone fill the pool, never for
// columns kept for later.

// SetRoom makes room() the most the cache may hold from now on, below
// its own limit; the cache asks at each Put. room must not wait on
// anything that calls into the cache.
func (c *ColCache) SetRoom(room func() int64) {
	if c == nil {
		return
	}
	c.Mu.Lock()
	c.room = room
	c.Mu.Unlock()
}

// bound is what the cache may hold now: its limit, or less when its
// room is smaller.
func (c *ColCache) bound() int64 {
	c.Mu.Lock()
	room := c.room
	c.Mu.Unlock()
	if room == nil {
		return c.limit
	}
	return max(min(c.limit, room()), 0)
}

// Used is the payload bytes of the columns the cache holds; it takes no
// lock, so a governor may read it while holding its own.
func (c *ColCache) Used() int64 {
	if c == nil {
		return 0
	}
	return c.held.Load()
}

// Limit is the most the cache ever holds (its -column-cache bound).
func (c *ColCache) Limit() int64 {
	if c == nil {
		return 0
	}
	return c.limit
}

// ShrinkTo evicts the least recently used columns until the cache holds
// at most n bytes, and returns the bytes it gave back. Columns a running
// query still reads stay alive for it; only the cache lets go of them.
func (c *ColCache) ShrinkTo(n int64) int64 {
	if c == nil {
		return 0
	}
	c.Mu.Lock()
	defer c.Mu.Unlock()
	before := c.used
	c.evictTo(max(n, 0))
	return before - c.used
}

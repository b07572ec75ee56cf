package meta

import "sync"

// memberCache keeps the answers of Store.Member, so a request made with a
// personal token does not open a bbolt transaction to learn its role.
// Every committed write and every Replace empties it. The generation
// stops a reader that read before a write committed from caching what it
// read after the write emptied the cache.
type memberCache struct {
	mu  sync.RWMutex
	gen uint64
	m   map[string]memberAnswer
}

type memberAnswer struct {
	m  Membership
	ok bool
}

// maxCachedMembers bounds the cache; past it the cache starts over.
const maxCachedMembers = 10000

func memberKey(org, userID string) string { return org + "\x00" + userID }

// get returns the cached answer and the generation to pass to put.
func (c *memberCache) get(key string) (memberAnswer, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	a, ok := c.m[key]
	return a, ok, c.gen
}

// put caches a unless the cache was emptied since generation gen.
func (c *memberCache) put(key string, a memberAnswer, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil || len(c.m) >= maxCachedMembers {
		c.m = make(map[string]memberAnswer)
	}
	c.m[key] = a
}

// clear empties the cache.
func (c *memberCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m = nil
}

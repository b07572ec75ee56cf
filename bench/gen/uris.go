package gen

import (
	"math/rand/v2"
	"strconv"
	"sync"
)

// uri is one path of the site with what kind of resource it is, which
// drives the method, status, size and latency drawn for a request to it.
type uri struct {
	path string
	kind int
}

// Kinds of URI.
const (
	kindAPI = iota
	kindPage
	kindAsset
)

// headURIs are the hottest paths of any site; they take the first ranks of
// the Zipf popularity so the top of `summarize count() by uri` looks real.
var headURIs = []uri{
	{"/", kindPage}, {"/api/v1/health", kindAPI}, {"/api/v1/cart", kindAPI},
	{"/favicon.ico", kindAsset}, {"/static/js/app.3f9a1c2e.js", kindAsset},
	{"/api/v1/auth/refresh", kindAPI}, {"/api/v2/recommendations", kindAPI},
	{"/static/css/main.8b2d4f10.css", kindAsset}, {"/login", kindPage},
	{"/api/graphql", kindAPI}, {"/robots.txt", kindAsset}, {"/metrics", kindPage},
	{"/api/v1/checkout", kindAPI}, {"/cart", kindPage}, {"/api/v1/auth/login", kindAPI},
	{"/sitemap.xml", kindAsset}, {"/checkout", kindPage}, {"/api/v1/cart/items", kindAPI},
	{"/signup", kindPage}, {"/about", kindPage}, {"/contact", kindPage},
	{"/api/v1/auth/logout", kindAPI}, {"/logout", kindPage}, {"/health", kindPage},
}

var (
	searchTerms = []string{"shoes", "laptop", "phone", "headphones", "desk", "chair", "jacket", "camera",
		"watch", "backpack", "tent", "bike", "monitor", "keyboard", "coffee", "tea", "lamp", "sofa", "socks", "gift"}
	categories = []string{"electronics", "books", "clothing", "home", "garden", "toys", "sports", "beauty",
		"grocery", "automotive", "music", "movies", "games", "office", "pets", "health", "jewelry", "tools",
		"baby", "outdoor"}
	// blogWords build slugs; some ("rapid", "capital", "therapist")
	// contain "api" without being API paths, as real text does.
	blogWords = []string{"how", "we", "scaled", "our", "rapid", "checkout", "capital", "growth", "therapist",
		"notes", "shipping", "faster", "search", "design", "team", "launch", "year", "review", "guide", "tips"}
	docSections = []string{"getting-started", "guides", "reference", "faq", "billing", "shipping", "returns",
		"account", "security", "integrations"}
)

var (
	uriOnce  sync.Once
	uriTable []uri
)

// uris returns the fixed URI universe (about 40,000 paths), most popular
// first. It is built once from a constant seed so every Generator, whatever
// its own seed, shares it.
func uris() []uri {
	uriOnce.Do(func() { uriTable = buildURIs() })
	return uriTable
}

func buildURIs() []uri {
	r := rand.New(rand.NewPCG(0x75726973, 0x7461626c))
	seen := make(map[string]bool, 48000)
	var tail []uri
	add := func(kind int, parts ...string) {
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		b := make([]byte, 0, n)
		for _, p := range parts {
			b = append(b, p...)
		}
		if s := string(b); !seen[s] {
			seen[s] = true
			tail = append(tail, uri{s, kind})
		}
	}
	for _, u := range headURIs {
		seen[u.path] = true
	}
	id := func(max int) string { return strconv.Itoa(1 + r.IntN(max)) }
	for range 4000 {
		u := id(250000)
		add(kindAPI, "/api/v1/users/", u)
		add(kindAPI, "/api/v1/users/", u, "/orders")
		add(kindAPI, "/api/v1/users/", u, "/profile")
	}
	for range 5000 {
		o := id(9000000)
		add(kindAPI, "/api/v1/orders/", o)
		add(kindAPI, "/api/v1/orders/", o, "/items")
	}
	for range 3000 {
		add(kindPage, "/account/orders/", id(9000000))
	}
	for range 2500 {
		p := id(60000)
		add(kindAPI, "/api/v2/products/", p)
		add(kindAPI, "/api/v2/products/", p, "/reviews")
		add(kindPage, "/products/", p)
		add(kindPage, "/products/", p, "/reviews")
		add(kindAsset, "/images/products/", p, ".jpg")
	}
	for range 600 {
		add(kindAPI, "/api/v1/payments/pay_", strconv.FormatUint(r.Uint64()>>16, 36))
		add(kindAPI, "/api/v1/inventory/SKU-", id(99999))
	}
	for _, t := range searchTerms {
		add(kindAPI, "/api/v1/search?q=", t)
		for p := 2; p <= 10; p++ {
			add(kindAPI, "/api/v1/search?q=", t, "&page=", strconv.Itoa(p))
		}
		add(kindPage, "/search?q=", t)
	}
	for _, c := range categories {
		add(kindPage, "/category/", c)
		for p := 2; p <= 20; p++ {
			add(kindPage, "/category/", c, "/page/", strconv.Itoa(p))
		}
	}
	for range 400 {
		w1, w2, w3 := blogWords[r.IntN(len(blogWords))], blogWords[r.IntN(len(blogWords))], blogWords[r.IntN(len(blogWords))]
		add(kindPage, "/blog/", strconv.Itoa(2018+r.IntN(7)), "/", w1, "-", w2, "-", w3)
	}
	for _, s := range docSections {
		for p := 1; p <= 30; p++ {
			add(kindPage, "/docs/", s, "/page-", strconv.Itoa(p))
		}
	}
	for range 200 {
		h := strconv.FormatUint(r.Uint64()>>32, 16)
		add(kindAsset, "/static/js/chunk-", id(400), ".", h, ".js")
		add(kindAsset, "/static/css/chunk-", id(400), ".", h, ".css")
	}
	r.Shuffle(len(tail), func(i, j int) { tail[i], tail[j] = tail[j], tail[i] })
	return append(append([]uri(nil), headURIs...), tail...)
}

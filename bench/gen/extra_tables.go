package gen

import (
	"fmt"
	"sync"
)

// Probabilities of the marker words of message, so benchmarks can search
// for a word of known frequency: CommonWord is in about 2% of messages,
// RareWord in about one in 100,000.
const (
	CommonWord = "timeout"
	RareWord   = "deadlock"
	commonP    = 0.02
	rareP      = 0.00001
)

// vocabSize is the number of distinct words message draws from (Zipf, so
// a few hundred words make most of the text and thousands appear rarely).
const vocabSize = 20000

// wideFields is how many sparse fields the Wide shape spreads over.
const wideFields = 300

var syllables = []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pe", "da", "zen", "gor",
	"bal", "fi", "qu", "tor", "ex", "an", "ul", "se", "ri", "mo", "ca", "vel"}

var (
	namespaces = []string{"shop", "payments", "search", "checkout", "auth", "edge"}
	apps       = []string{"frontend", "cart", "catalog", "payment-gw", "recommender", "gateway", "inventory", "mailer"}
	tiers      = []string{"web", "api", "worker"}
	zones      = []string{"eu-central-1a", "eu-central-1b", "us-east-1a", "us-east-1c", "ap-south-1a"}
	tagWords   = []string{"canary", "beta", "mobile", "bot", "internal", "retry", "slow", "cached", "ab-test-7"}
	errKinds   = []string{"UpstreamTimeout", "ConnectionReset", "NullPointerException", "PoolExhausted", "OOMKilled"}
	verbs      = []string{"served", "fetched", "rendered", "rejected", "proxied", "redirected", "validated", "queued"}
	frames     = []string{"net/http.(*conn).serve", "main.(*Server).handle", "github.com/shop/cart.(*Service).Checkout",
		"github.com/shop/db.(*Pool).Acquire", "database/sql.(*DB).conn", "runtime.gopark", "github.com/shop/rpc.Call",
		"com.shop.payments.Gateway.charge", "org.apache.http.impl.client.CloseableHttpClient.execute"}
	wideKinds = []string{"int", "float", "string", "bool"}
)

// extraTables is the read-only vocabulary of the Real and Wide shapes.
type extraTables struct {
	words      []string // vocabulary, most frequent first
	wideNames  []string
	widePicker *picker
}

var (
	extraOnce sync.Once
	extraVal  *extraTables
)

func sharedExtraTables() *extraTables {
	extraOnce.Do(func() {
		t := &extraTables{}
		seen := map[string]bool{CommonWord: true, RareWord: true}
		// Words are syllable strings enumerated in a fixed order, so the
		// vocabulary is the same for every seed.
		for i := 0; len(t.words) < vocabSize; i++ {
			w, x := "", i
			for k := 0; k < 2+i%3; k++ {
				w += syllables[x%len(syllables)]
				x = x/len(syllables) + k*7 + 3
			}
			if !seen[w] {
				seen[w] = true
				t.words = append(t.words, w)
			}
		}
		for i := range wideFields {
			t.wideNames = append(t.wideNames, fmt.Sprintf("attr_%s_%03d", t.words[i*7%len(t.words)], i))
		}
		t.widePicker = newPicker(zipfWeights(wideFields, 0.7))
		extraVal = t
	})
	return extraVal
}

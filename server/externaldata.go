package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// externalFetcher reads URLs for APL's externaldata operator, but only
// those that start with a prefix on the operator's allow-list: a query
// must not be a way to make the server call arbitrary hosts.
type externalFetcher struct {
	allow  []string
	client *http.Client
	max    int64
}

// newExternalFetcher returns nil (externaldata disabled) for an empty list.
func newExternalFetcher(allow []string, maxBytes int64) *externalFetcher {
	if len(allow) == 0 {
		return nil
	}
	return &externalFetcher{allow: allow, client: &http.Client{Timeout: 30 * time.Second}, max: maxBytes}
}

// fetch downloads url when it is allowed.
func (f *externalFetcher) fetch(url string) ([]byte, error) {
	ok := false
	for _, p := range f.allow {
		if strings.HasPrefix(url, p) {
			ok = true
			break
		}
	}
	if !ok {
		return nil, fmt.Errorf("not on the server's externaldata allow-list")
	}
	resp, err := f.client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > f.max {
		return nil, fmt.Errorf("document larger than %d bytes", f.max)
	}
	return body, nil
}

package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/db"
)

// Distributed queries: every node listed in Config.Peers or found alive
// through the bucket (membership.go), this one included as
// Config.Advertise, scans its share of each query's blocks
// (core/exec/fragment_run.go). Nodes call each other on /internal/v1/fragment,
// authenticated by the shared Config.ClusterSecret.

// clusterSecretHeader carries the shared secret between nodes;
// clusterOrgHeader the org whose datasets a fragment reads (the nodes
// trust each other, and the fragment's dataset is named as the org names
// it); fragmentErrorHeader says why a node refused a fragment with 409,
// so the sender can tell a stale catalog from a changed schema.
const (
	clusterSecretHeader = "X-Aplite-Cluster-Secret"
	clusterOrgHeader    = "X-Aplite-Org"
	fragmentErrorHeader = "X-Aplite-Fragment-Error"
)

// fragmentClient posts fragments to other nodes. Each call's context
// carries the per-fragment timeout (Config.FragmentTimeout), which ends
// it even on a kept-alive connection to a stopped node; the dial timeout
// bounds a node whose address no longer answers at all, and the client's
// own timeout is only a backstop.
var fragmentClient = &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{
	DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 16,
	IdleConnTimeout:     90 * time.Second,
}}

// clusterStats counts fragments for /metrics.
type clusterStats struct {
	sent, failed, served, forwarded atomic.Int64
	// timedOut counts fragments given up on after the per-fragment
	// timeout; partial the answers that went without a node's part.
	timedOut, partial atomic.Int64
}

// distribute lets req, a query of org, spread over the peers, when there
// are any.
func (s *Server) distribute(req *db.Request, org string) {
	if len(s.cfg.Peers) == 0 && s.cfg.Ingest == "" && s.members == nil {
		return
	}
	nodes, self := s.clusterNodes(), s.cfg.Advertise
	if len(nodes) < 2 && s.cfg.Ingest == "" {
		return // alone for now: no other query node beats in the bucket
	}
	run := func(ctx context.Context, node string, f *db.Fragment) ([]byte, error) {
		return s.sendFragment(ctx, node, org, f)
	}
	req.Distribute = &db.Distribution{Nodes: nodes, Self: self, Run: run, Attempts: 2, MinRows: s.cfg.FragmentMinRows, Ingest: s.cfg.Ingest,
		Timeout: s.cfg.FragmentTimeout,
		OnFailure: func(node string, err error) {
			s.cluster.failed.Add(1)
			if errors.Is(err, db.ErrNoAnswer) {
				s.cluster.timedOut.Add(1)
			}
			if node != s.cfg.Ingest {
				fmt.Fprintf(s.cfg.Log, "aplite: fragment on %s failed (its blocks go to another node): %v\n", node, err)
			}
		},
		OnPartial: func(node string, err error) {
			s.cluster.partial.Add(1)
			fmt.Fprintf(s.cfg.Log, "aplite: ingest node %s failed; the answer lacks its unflushed events: %v\n", node, err)
		}}
}

// sendFragment runs f, a fragment of a query of org, on node over HTTP.
func (s *Server) sendFragment(ctx context.Context, node, org string, f *db.Fragment) ([]byte, error) {
	s.cluster.sent.Add(1)
	body, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	url := node
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/internal/v1/fragment", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	// Partial states go uncompressed: the server gzips any answer a
	// client accepts gzipped (Go's client asks by default), and for q5's
	// 40,000 groups that cost both nodes more CPU than the scan did,
	// to save bandwidth nodes on one network do not lack.
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set(clusterSecretHeader, s.cfg.ClusterSecret)
	req.Header.Set(clusterOrgHeader, org)
	resp, err := fragmentClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("status %d", resp.StatusCode)
		var eb errorBody
		if json.Unmarshal(out, &eb) == nil && eb.Message != "" {
			msg = fmt.Sprintf("%d: %s", resp.StatusCode, eb.Message)
		}
		switch resp.Header.Get(fragmentErrorHeader) {
		case "parts":
			return nil, fmt.Errorf("%w (%s)", db.ErrFragmentParts, msg)
		case "schema":
			return nil, fmt.Errorf("%w (%s)", db.ErrFragmentSchema, msg)
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// handleFragment runs a fragment another node sent. A block this node
// does not know yet (its catalog is older) makes it reload the catalogs
// once before it gives up.
func (s *Server) handleFragment(c *call) error {
	secret := c.Request.Header.Peek(clusterSecretHeader)
	if s.cfg.ClusterSecret == "" || subtle.ConstantTimeCompare(secret, []byte(s.cfg.ClusterSecret)) != 1 {
		return forbidden("fragments are only accepted from nodes that share the cluster secret")
	}
	var f db.Fragment
	if err := json.Unmarshal(c.PostBody(), &f); err != nil {
		return badRequest("fragment: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// A fragment draws on this node's memory budget as a query does.
	ctx, release, err := s.admitQuery(ctx, "")
	if err != nil {
		return err
	}
	defer release()
	cat := s.datasets(string(c.Request.Header.Peek(clusterOrgHeader)))
	out, err := s.db.RunFragment(ctx, cat, &f)
	if errors.Is(err, db.ErrFragmentParts) && s.db.ReadOnly() && s.refresh(ctx) == nil {
		out, err = s.db.RunFragment(ctx, cat, &f)
	}
	if err != nil {
		if me := memoryError(ctx, err); me != nil {
			return me
		}
		for why, sentinel := range map[string]error{"parts": db.ErrFragmentParts, "schema": db.ErrFragmentSchema} {
			if errors.Is(err, sentinel) {
				ae := conflict("%v", err)
				ae.Headers = [][2]string{{fragmentErrorHeader, why}}
				return ae
			}
		}
		return err
	}
	s.cluster.served.Add(1)
	c.SetContentType("application/octet-stream")
	c.SetBody(out)
	return nil
}

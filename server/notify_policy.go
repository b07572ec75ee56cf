package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// The notifier URL policy: a notifier must not make the server a way to
// reach what only it can reach (its own ports, the cloud's metadata
// service at 169.254.169.254, the private network behind it). Loopback,
// link-local, private (RFC 1918, unique-local IPv6, CGNAT 100.64/10),
// unspecified, broadcast and multicast targets are refused when a
// notifier is created or updated (for an address, or a name such as
// localhost, in its URL) and again when an alert is delivered, on the
// address each connection actually dials after DNS, and after every
// redirect. An operator allows some with `aplite serve -notify-allow
// CIDR|host[,...]` (Config.NotifyAllow).

// notifyPolicy is the parsed allow list.
type notifyPolicy struct {
	nets  []netip.Prefix
	hosts map[string]bool
}

// cgnat is the shared address space of RFC 6598, private in all but name.
var (
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
	thisNet   = netip.MustParsePrefix("0.0.0.0/8")
	broadcast = netip.MustParseAddr("255.255.255.255")
)

// ParseNotifyAllow parses -notify-allow's entries: CIDRs (127.0.0.0/8),
// single addresses (10.0.0.5) and host names (hooks.internal). It names
// the entry it cannot read.
func ParseNotifyAllow(list []string) error {
	_, err := parseNotifyPolicy(list)
	return err
}

func parseNotifyPolicy(list []string) (*notifyPolicy, error) {
	p := &notifyPolicy{hosts: map[string]bool{}}
	for _, e := range list {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case strings.Contains(e, "/"):
			pfx, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("-notify-allow %q: not a CIDR such as 127.0.0.0/8 or fd00::/8", e)
			}
			p.nets = append(p.nets, pfx.Masked())
		default:
			if ip, err := netip.ParseAddr(e); err == nil {
				p.nets = append(p.nets, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
				continue
			}
			if strings.ContainsAny(e, ":@?#[] ") {
				return nil, fmt.Errorf("-notify-allow %q: not an address, a CIDR or a host name", e)
			}
			p.hosts[strings.ToLower(strings.TrimSuffix(e, "."))] = true
		}
	}
	return p, nil
}

// policy is the server's parsed allow list (checked by New, so an entry
// that does not parse here is skipped, never widened).
func (s *Server) notifyPolicy() *notifyPolicy {
	p, err := parseNotifyPolicy(s.cfg.NotifyAllow)
	if err != nil {
		return &notifyPolicy{}
	}
	return p
}

// restricted names the kind of address ip is when notifiers may not
// reach it by default, "" when they may.
func restricted(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate() || cgnat.Contains(ip):
		return "private"
	case ip.IsUnspecified() || thisNet.Contains(ip):
		return "unspecified"
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast() || ip == broadcast:
		return "multicast or broadcast"
	}
	return ""
}

// allowIP returns nil when a notifier may connect to ip.
func (p *notifyPolicy) allowIP(ip netip.Addr) error {
	kind := restricted(ip)
	if kind == "" {
		return nil
	}
	for _, n := range p.nets {
		if n.Contains(ip.Unmap()) {
			return nil
		}
	}
	article := "a"
	if kind == "unspecified" {
		article = "an"
	}
	return fmt.Errorf("%s is %s %s address (aplite serve -notify-allow lets an operator allow it)", ip, article, kind)
}

// checkURL is the create-time check of a notifier's URL: http or https,
// a host, and no address (or localhost name) the policy refuses. Other
// names are checked when an alert is delivered, after DNS.
func (p *notifyPolicy) checkURL(raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http or https URL with a host")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if p.hosts[host] {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.allowIP(ip)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%s is a loopback name (aplite serve -notify-allow lets an operator allow it)", host)
	}
	return nil
}

// client is an HTTP client whose every connection, redirects included,
// dials only addresses the policy allows, checked on the address dialed
// (after DNS), not on the name. It ignores proxy settings, which would
// dial on its behalf.
func (p *notifyPolicy) client(timeout time.Duration) *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		d := &net.Dialer{Timeout: timeout}
		if !p.hosts[strings.ToLower(strings.TrimSuffix(host, "."))] {
			d.Control = func(_, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil {
					return fmt.Errorf("notifier target %s: %w", address, err)
				}
				return p.allowIP(ap.Addr())
			}
		}
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil, DialContext: dial,
		TLSHandshakeTimeout: timeout, MaxIdleConns: 1, IdleConnTimeout: time.Second}}
}

// checkNotifierURLs applies the policy to the URLs of the notifier kinds
// aplite delivers (webhook and customWebhook; the others are never sent),
// naming the field at fault.
func (s *Server) checkNotifierURLs(props json.RawMessage) error {
	var kinds map[string]json.RawMessage
	if json.Unmarshal(props, &kinds) != nil {
		return nil // validate has refused it
	}
	p := s.notifyPolicy()
	for kind, raw := range kinds {
		if kind != "webhook" && kind != "customWebhook" || string(raw) == "null" {
			continue
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return badRequest("properties.%s must be an object with a url", kind)
		}
		name, u := "", ""
		for k, v := range fields { // the clients spell it url or URL
			if strings.EqualFold(k, "url") {
				name = k
				if json.Unmarshal(v, &u) != nil {
					return badRequest("properties.%s.%s must be a string", kind, k)
				}
			}
		}
		if name == "" {
			return badRequest("properties.%s.url is required", kind)
		}
		if err := p.checkURL(u); err != nil {
			return badRequest("properties.%s.%s: %v", kind, name, err)
		}
	}
	return nil
}

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/server/meta"
)

// AdminSocketName is the unix socket, under the data directory, on which
// a running server takes `aplite admin` commands. It asks no token: the
// socket is the owner's alone, the same trust as editing meta.db of a
// stopped server. It lives in a directory of its own made 0700 before the
// socket exists, so no umask leaves a moment in which others may connect.
const AdminSocketName = ".admin/admin.sock"

// adminRequest carries the arguments of every admin operation; the path
// names the operation.
type adminRequest struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	Org   string `json:"org,omitempty"`
	Role  string `json:"role,omitempty"`
	// Limits are limits-set's new values.
	Limits *Limits `json:"limits,omitempty"`
}

// adminResponse carries every operation's answer.
type adminResponse struct {
	Org   *meta.Org        `json:"org,omitempty"`
	Orgs  []meta.Org       `json:"orgs,omitempty"`
	User  *meta.User       `json:"user,omitempty"`
	Users []meta.MemberRow `json:"users,omitempty"`
	Token string           `json:"token,omitempty"`
	// License is the license after limits-set.
	License *meta.License `json:"license,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// run performs op on a.
func (r *adminRequest) run(a Admin, op string) (out adminResponse, err error) {
	switch op {
	case "org-create":
		var o meta.Org
		o, err = a.CreateOrg(r.ID, r.Name)
		out.Org = &o
	case "org-list":
		out.Orgs, err = a.Orgs()
	case "user-add":
		var u meta.User
		u, out.Token, err = a.AddUser(r.Email, r.Name, r.Org, r.Role)
		out.User = &u
	case "user-remove":
		err = a.RemoveUser(r.Email, r.Org)
	case "user-list":
		out.Users, err = a.Users(r.Org)
	case "token-api":
		out.Token, err = a.IssueAPIToken(r.Org, r.Name)
	case "token-personal":
		out.Token, err = a.IssuePAT(r.Email)
	case "limits-set":
		var l meta.License
		if r.Limits == nil {
			r.Limits = &Limits{}
		}
		l, err = a.SetLimits(r.Org, *r.Limits)
		out.License = &l
	default:
		err = fmt.Errorf("%w: unknown admin operation %q", meta.ErrInvalid, op)
	}
	return out, err
}

// maxSocketPath is the longest path a unix socket address holds on Linux
// (sun_path is 108 bytes with its terminating NUL; other systems hold 104).
const maxSocketPath = 103

// socketAddr returns the address to bind or dial for the socket at path.
// A path too long for a socket address is reached through an open handle
// of its directory, /proc/self/fd/N/NAME (Linux), so a deep data
// directory still gets its admin socket; release closes the handle once
// the address is no longer needed.
func socketAddr(path string) (addr string, release func(), err error) {
	if len(path) <= maxSocketPath {
		return path, func() {}, nil
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), filepath.Base(path)), func() { d.Close() }, nil
}

// startAdminSocket serves the admin operations on the data directory's
// socket. Without one (a file system without sockets) the server still
// runs; `aplite admin` then needs it stopped.
func (s *Server) startAdminSocket() {
	path := filepath.Join(s.cfg.DataDir, AdminSocketName)
	dir := filepath.Dir(path)
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.Chmod(dir, 0o700) // in case it was made with other bits
	}
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "aplite: no admin socket (%v): `aplite admin` will need the server stopped\n", err)
		return
	}
	os.Remove(path) // a crashed server's: this process holds the directory's lock
	addr, release, err := socketAddr(path)
	var ln net.Listener
	if err == nil {
		ln, err = net.Listen("unix", addr)
		release()
	}
	if err == nil {
		// Closing would remove the socket file by the address it was
		// bound to, which for a long path names a handle closed since
		// (its number perhaps reused): it is removed by its path instead.
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
	}
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "aplite: no admin socket (%v): `aplite admin` will need the server stopped\n", err)
		return
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		fmt.Fprintf(s.cfg.Log, "aplite: no admin socket: %v\n", err)
		return
	}
	s.adminLn = ln
	s.adminSrv = &fasthttp.Server{Handler: s.handleAdmin, Name: "aplite-admin", ReadTimeout: time.Minute, Logger: fasthttpLogger{s},
		WriteTimeout: time.Minute}
	go s.adminSrv.Serve(ln)
}

// stopAdminSocket shuts the admin server down: a command in flight
// finishes, and open connections are closed, before the metadata they
// write to is; then the socket file goes.
func (s *Server) stopAdminSocket() {
	if s.adminSrv != nil {
		s.adminSrv.Shutdown()
		// Shutdown knows only a listener Serve has taken; one it has not
		// yet must not start serving after the metadata is closed.
		s.adminLn.Close()
		os.Remove(filepath.Join(s.cfg.DataDir, AdminSocketName))
	}
}

func (s *Server) handleAdmin(ctx *fasthttp.RequestCtx) {
	var r adminRequest
	out := adminResponse{}
	err := json.Unmarshal(ctx.PostBody(), &r)
	if err == nil {
		a := &adminStore{ms: s.meta, after: s.forgetMetaCaches}
		out, err = r.run(a, string(bytes.TrimPrefix(ctx.Path(), []byte("/"))))
	}
	status := http.StatusOK
	if err != nil {
		status, out = adminStatus(err), adminResponse{Error: err.Error()}
	}
	body, _ := json.Marshal(out)
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentTypeJSON)
	ctx.SetBody(body)
}

func adminStatus(err error) int {
	switch {
	case errors.Is(err, meta.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, meta.ErrExists):
		return http.StatusConflict
	case errors.Is(err, meta.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, meta.ErrReadOnly):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// adminClient runs admin operations on a server through its socket.
type adminClient struct {
	c       *http.Client
	release func() // of the socket's address (socketAddr)
}

// dialAdmin connects to the admin socket of the server running on dir.
func dialAdmin(dir string) (*adminClient, error) {
	addr, release, err := socketAddr(filepath.Join(dir, AdminSocketName))
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("unix", addr, time.Second)
	if err != nil {
		release()
		return nil, err // no server (or a crashed one's socket file)
	}
	// The connection that proved a server listens carries the first
	// request: dialing again would leave the server an empty connection.
	var first atomic.Pointer[net.Conn]
	first.Store(&conn)
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		if c := first.Swap(nil); c != nil {
			return *c, nil
		}
		var d net.Dialer
		return d.DialContext(ctx, "unix", addr)
	}
	return &adminClient{c: &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: dial}},
		release: release}, nil
}

func (a *adminClient) do(op string, r adminRequest) (adminResponse, error) {
	var out adminResponse
	body, _ := json.Marshal(r)
	resp, err := a.c.Post("http://aplite-admin/"+op, contentTypeJSON, bytes.NewReader(body))
	if err != nil {
		return out, fmt.Errorf("the running server's admin socket: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return out, fmt.Errorf("the running server's admin socket: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return out, errors.New(out.Error)
	}
	return out, nil
}

func (a *adminClient) CreateOrg(id, name string) (meta.Org, error) {
	out, err := a.do("org-create", adminRequest{ID: id, Name: name})
	if err != nil || out.Org == nil {
		return meta.Org{}, err
	}
	return *out.Org, nil
}

func (a *adminClient) Orgs() ([]meta.Org, error) {
	out, err := a.do("org-list", adminRequest{})
	return out.Orgs, err
}

func (a *adminClient) AddUser(email, name, org, role string) (meta.User, string, error) {
	out, err := a.do("user-add", adminRequest{Email: email, Name: name, Org: org, Role: role})
	if err != nil || out.User == nil {
		return meta.User{}, "", err
	}
	return *out.User, out.Token, nil
}

func (a *adminClient) RemoveUser(email, org string) error {
	_, err := a.do("user-remove", adminRequest{Email: email, Org: org})
	return err
}

func (a *adminClient) Users(org string) ([]meta.MemberRow, error) {
	out, err := a.do("user-list", adminRequest{Org: org})
	return out.Users, err
}

func (a *adminClient) IssueAPIToken(org, name string) (string, error) {
	out, err := a.do("token-api", adminRequest{Org: org, Name: name})
	return out.Token, err
}

func (a *adminClient) IssuePAT(email string) (string, error) {
	out, err := a.do("token-personal", adminRequest{Email: email})
	return out.Token, err
}

func (a *adminClient) SetLimits(org string, l Limits) (meta.License, error) {
	out, err := a.do("limits-set", adminRequest{Org: org, Limits: &l})
	if err != nil || out.License == nil {
		return meta.License{}, err
	}
	return *out.License, nil
}

func (a *adminClient) Close() error {
	a.c.CloseIdleConnections()
	a.release()
	return nil
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/aplite/aplite/server"
	"github.com/aplite/aplite/server/meta"
)

// adminUsage is `aplite admin -h`.
const adminUsage = `usage: aplite admin SUBJECT VERB [flags] [ARG]   (flags may follow ARG)

Manages what the API cannot create or set: organizations, their members,
first tokens, request limits. Works on a stopped server's data directory,
and on a running one (through the socket DATA/.admin/admin.sock).

  org create [-name NAME] ID          create an organization; prints ID
  org list                            list organizations: ID, NAME
  user add -org ID [-role ROLE] [-name NAME] EMAIL
                                      make EMAIL a member of org ID (role owner,
                                      admin, user or read-only; default user);
                                      prints a personal token if the user is new
  user remove -org ID EMAIL           take EMAIL out of org ID (a user left in
                                      no org is deleted with its tokens)
  user list [-org ID]                 list memberships: ORG, EMAIL, ROLE, USER ID
  token create -org ID [-name NAME]   print a new API token of org ID allowed
                                      everything
  token create -user EMAIL            print a new personal token for EMAIL
  limits set -org ID [-api-rate N] [-ingest-rate N] [-query-rate N]
                                      set org ID's requests per second: on every
                                      authenticated route, on ingest, on queries
                                      (0 unlimited; a running server applies
                                      them to the next request); prints them
  limits list [-org ID]               list limits: ORG, API, INGEST, QUERY
                                      (requests per second, 0 unlimited)

A new org allows 100000 requests per second of each kind. Over the API
limit a request gets 429, over the ingest or query limit 430, with
Retry-After; every response carries X-RateLimit-* (and X-IngestLimit-* or
X-QueryLimit-* on ingest and queries) so clients can pace themselves.

Every command takes -data DIR (APLITE_DATA, default ./data).
Exit 0 on success, 1 when the operation fails, 2 on a usage error.
`

// adminCmd is one `aplite admin SUBJECT VERB`.
type adminCmd struct {
	fs               *flag.FlagSet
	data, org, name  *string
	role, user       *string
	rates            [3]*int64 // limits set: api, ingest, query
	args             []string  // positional arguments
	stdout, stderr   io.Writer
	subject, verb    string
	wantArgs         int
	requireOrgOrUser bool
}

// cmdAdmin is `aplite admin`.
func cmdAdmin(args []string) int {
	if len(args) > 0 && wantsHelp(args[:1]) {
		fmt.Fprint(os.Stdout, adminUsage)
		return 0
	}
	if len(args) < 2 {
		fmt.Fprint(os.Stderr, adminUsage)
		return 2
	}
	c := &adminCmd{subject: args[0], verb: args[1], stdout: os.Stdout, stderr: os.Stderr}
	run, ok := c.command()
	if !ok {
		fmt.Fprintf(os.Stderr, "aplite admin: unknown command %q\n\n%s", args[0]+" "+args[1], adminUsage)
		return 2
	}
	if code, ok := c.parse(args[2:]); !ok {
		return code
	}
	a, err := server.OpenAdmin(*c.data)
	if err == nil {
		err = run(a)
		if cerr := a.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "aplite admin %s %s: %v\n", c.subject, c.verb, err)
		return 1
	}
	return 0
}

// command returns the operation of subject and verb and sets its flags.
func (c *adminCmd) command() (func(server.Admin) error, bool) {
	c.fs = flag.NewFlagSet("admin "+c.subject+" "+c.verb, flag.ContinueOnError)
	c.fs.SetOutput(io.Discard)
	c.data = c.fs.String("data", envOr("APLITE_DATA", "./data"), "data directory (APLITE_DATA)")
	c.org = c.fs.String("org", "", "organization id")
	c.name = c.fs.String("name", "", "display name")
	c.role = c.fs.String("role", "user", "role in the organization")
	c.user = c.fs.String("user", "", "email of the user")
	switch c.subject + " " + c.verb {
	case "org create":
		c.wantArgs = 1
		return c.orgCreate, true
	case "org list":
		return c.orgList, true
	case "user add":
		c.wantArgs = 1
		return c.userAdd, true
	case "user remove":
		c.wantArgs = 1
		return c.userRemove, true
	case "user list":
		return c.userList, true
	case "token create":
		c.requireOrgOrUser = true
		return c.tokenCreate, true
	case "limits set":
		for i, name := range rateFlags {
			c.rates[i] = c.fs.Int64(name, -1, "requests per second, 0 unlimited")
		}
		return c.limitsSet, true
	case "limits list":
		return c.limitsList, true
	}
	return nil, false
}

// parse reads flags placed before or after the positional arguments.
func (c *adminCmd) parse(args []string) (int, bool) {
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(c.stdout, adminUsage)
				return 0, false
			}
			return c.usage("%v", err)
		}
		if c.fs.NArg() == 0 {
			break
		}
		c.args = append(c.args, c.fs.Arg(0))
		args = c.fs.Args()[1:]
	}
	switch {
	case len(c.args) != c.wantArgs:
		return c.usage("want %d argument(s), got %d", c.wantArgs, len(c.args))
	case c.subject == "user" && c.verb != "list" && *c.org == "":
		return c.usage("-org is required")
	case c.requireOrgOrUser && (*c.org == "") == (*c.user == ""):
		return c.usage("give -org ID (an API token) or -user EMAIL (a personal token)")
	case c.subject+" "+c.verb == "limits set":
		return c.checkRates()
	}
	return 0, true
}

func (c *adminCmd) usage(format string, args ...any) (int, bool) {
	fmt.Fprintf(c.stderr, "aplite admin %s %s: %s\n\n%s", c.subject, c.verb, fmt.Sprintf(format, args...), adminUsage)
	return 2, false
}

func (c *adminCmd) orgCreate(a server.Admin) error {
	o, err := a.CreateOrg(c.args[0], *c.name)
	if err == nil {
		fmt.Fprintln(c.stdout, o.ID)
	}
	return err
}

func (c *adminCmd) orgList(a server.Admin) error {
	orgs, err := a.Orgs()
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	for _, o := range orgs {
		fmt.Fprintf(w, "%s\t%s\n", o.ID, o.Name)
	}
	w.Flush()
	return err
}

func (c *adminCmd) userAdd(a server.Admin) error {
	u, tok, err := a.AddUser(c.args[0], *c.name, *c.org, *c.role)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "aplite admin: %s (%s) is %s in %s\n", u.Email, u.ID, *c.role, *c.org)
	if tok != "" {
		fmt.Fprintln(c.stderr, "aplite admin: a new user: its personal token follows, shown only this once")
		fmt.Fprintln(c.stdout, tok)
	}
	return nil
}

func (c *adminCmd) userRemove(a server.Admin) error {
	return a.RemoveUser(c.args[0], *c.org)
}

func (c *adminCmd) userList(a server.Admin) error {
	rows, err := a.Users(*c.org)
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.Org, r.User.Email, r.Role, r.User.ID)
	}
	w.Flush()
	return err
}

func (c *adminCmd) tokenCreate(a server.Admin) error {
	var tok string
	var err error
	if *c.user != "" {
		tok, err = a.IssuePAT(*c.user)
	} else {
		tok, err = a.IssueAPIToken(*c.org, strings.TrimSpace(*c.name))
	}
	if err == nil {
		fmt.Fprintln(c.stdout, tok)
	}
	return err
}

// rateFlags are the flags of `limits set`, in Limits' order.
var rateFlags = [3]string{"api-rate", "ingest-rate", "query-rate"}

// checkRates checks `limits set` names an org and at least one valid rate.
func (c *adminCmd) checkRates() (int, bool) {
	if *c.org == "" {
		return c.usage("-org is required")
	}
	given := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	some := false
	for i, name := range rateFlags {
		if !given[name] {
			c.rates[i] = nil
			continue
		}
		if *c.rates[i] < 0 {
			return c.usage("-%s %d: want requests per second, 0 for unlimited", name, *c.rates[i])
		}
		some = true
	}
	if !some {
		return c.usage("give at least one of -api-rate, -ingest-rate, -query-rate")
	}
	return 0, true
}

func (c *adminCmd) limitsSet(a server.Admin) error {
	l, err := a.SetLimits(*c.org, server.Limits{APIRate: c.rates[0], IngestRate: c.rates[1], QueryRate: c.rates[2]})
	if err == nil {
		printLimits(c.stdout, []meta.Org{{ID: *c.org, License: l}})
	}
	return err
}

func (c *adminCmd) limitsList(a server.Admin) error {
	orgs, err := a.Orgs()
	if err != nil {
		return err
	}
	if *c.org != "" {
		orgs = slices.DeleteFunc(orgs, func(o meta.Org) bool { return o.ID != *c.org })
		if len(orgs) == 0 {
			return fmt.Errorf("organization %q not found", *c.org)
		}
	}
	printLimits(c.stdout, orgs)
	return nil
}

// printLimits writes one line per org: ID and its API, ingest and query
// requests per second.
func printLimits(out io.Writer, orgs []meta.Org) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, o := range orgs {
		l := o.License
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\n", o.ID, l.APIRateLimitPerSecond, l.IngestLimitPerSecond, l.QueryLimitPerSecond)
	}
	w.Flush()
}

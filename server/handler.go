package server

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/aplite/aplite/server/console"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// authMode says what a route needs from the caller.
type authMode int

const (
	authNone authMode = iota // /health, /metrics
	authAny                  // a token; personal tokens need no org header
	authOrg                  // a token acting in an org
)

// call is one authenticated request as a handler sees it.
type call struct {
	*fasthttp.RequestCtx
	s *Server
	p *principal
}

// param returns a path parameter.
func (c *call) param(name string) string {
	v, _ := c.UserValue(name).(string)
	return v
}

type handlerFunc func(c *call) error

// wrap is the middleware every route goes through: trace id, JSON content
// type, authentication, the org's API rate limit and the limit headers,
// error rendering and metrics.
func (s *Server) wrap(name string, mode authMode, h handlerFunc) fasthttp.RequestHandler {
	stats := s.metrics.route(name)
	limit := routeLimit(name)
	return func(ctx *fasthttp.RequestCtx) {
		began := time.Now()
		setTraceID(ctx)
		ctx.SetContentType(contentTypeJSON)
		err := s.run(ctx, mode, limit, h)
		if err != nil && !errors.Is(err, errAnswered) {
			writeError(ctx, err)
		}
		s.logRequest(ctx, name, began, err)
		releaseBody(ctx)
		stats.count(ctx.Response.StatusCode())
	}
}

func (s *Server) run(ctx *fasthttp.RequestCtx, mode authMode, limit limitKind, h handlerFunc) error {
	c := &call{RequestCtx: ctx, s: s}
	if mode != authNone {
		p, err := s.authenticate(ctx, mode == authOrg)
		if err != nil {
			return err
		}
		if err := s.checkLimit(p.org, limitAPI); err != nil {
			return err
		}
		c.p = p
		// Set after the handler: a refusal's own headers then win.
		defer s.setLimitHeaders(ctx, p.org, limit)
	}
	return h(c)
}

// routes builds the router with every endpoint of the API.
func (s *Server) routes() *router.Router {
	r := router.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.NotFound = s.elasticRoot(s.wrap("not_found", authNone, func(c *call) error {
		return notFound("no route for %s %s", c.Method(), c.Path())
	}))
	r.MethodNotAllowed = s.wrap("method_not_allowed", authNone, func(c *call) error {
		return errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s", c.Method(), c.Path())
	})
	r.PanicHandler = func(ctx *fasthttp.RequestCtx, v any) {
		setTraceID(ctx)
		s.logger().Error("panic serving a request", "method", string(ctx.Method()), "path", string(ctx.Path()),
			"request_id", requestID(ctx), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		writeError(ctx, errorf(http.StatusInternalServerError, "internal error"))
		releaseBody(ctx)
	}

	r.GET("/health", s.wrap("health", authNone, s.handleHealth))
	r.GET("/metrics", s.handleMetrics)

	// The web console: static assets, no auth (its API calls carry the
	// user's token).
	ui := console.Handler()
	for _, p := range []string{"/", "/console/{filepath:*}"} {
		r.GET(p, ui)
		r.HEAD(p, ui)
	}

	// Ingest and query.
	ingest := s.herokuDoor(s.wrap("ingest", authOrg, s.handleIngest)) // a logplex body is a Heroku drain: server/ingest_heroku.go
	r.POST("/v1/datasets/{id}/ingest", ingest)
	r.POST("/v1/ingest/{id}", ingest)
	s.elasticRoutes(r)
	s.hecRoutes(r) // Splunk HEC: /services/collector/...
	r.POST("/v1/ingest/{id}/firehose", s.firehoseRoute())
	apl := s.wrap("apl", authOrg, s.handleAPL)
	r.POST("/v1/datasets/_apl", apl)
	r.POST("/v1/query/_apl", apl)
	r.POST("/v1/datasets/{id}/query", s.wrap("query_legacy", authOrg, s.handleLegacyQuery))
	r.POST("/v1/traces", s.wrap("otlp_traces", authOrg, s.handleOTLPTraces))
	r.POST("/v1/logs", s.wrap("otlp_logs", authOrg, s.handleOTLPLogs))
	r.POST("/v1/metrics", s.wrap("otlp_metrics", authOrg, s.handleOTLPMetrics))

	// Datasets, v1 and v2.
	for _, v := range []string{"/v1", "/v2"} {
		r.GET(v+"/datasets", s.wrap("datasets_list", authOrg, s.handleListDatasets))
		r.POST(v+"/datasets", s.wrap("datasets_create", authOrg, s.handleCreateDataset))
		r.GET(v+"/datasets/{id}", s.wrap("datasets_get", authOrg, s.handleGetDataset))
		r.PUT(v+"/datasets/{id}", s.wrap("datasets_update", authOrg, s.handleUpdateDataset))
		r.DELETE(v+"/datasets/{id}", s.wrap("datasets_delete", authOrg, s.handleDeleteDataset))
		r.GET(v+"/datasets/{id}/info", s.wrap("datasets_info", authOrg, s.handleDatasetInfo))
		r.GET(v+"/datasets/{id}/fields", s.wrap("datasets_fields", authOrg, s.handleDatasetFields))
	}
	r.GET("/v2/monitors/{id}/history", s.wrap("monitors_history", authOrg, s.handleMonitorHistory))
	r.POST("/internal/v1/fragment", s.wrap("internal_fragment", authNone, s.handleFragment))
	r.POST("/v1/datasets/{id}/trim", s.wrap("datasets_trim", authOrg, s.handleTrimV1))
	r.POST("/v2/datasets/{id}/trim", s.wrap("datasets_trim", authOrg, s.handleTrimV2))
	r.GET("/v2/datasets/{id}/mapfields", s.wrap("mapfields_list", authOrg, s.handleListMapFields))
	r.POST("/v2/datasets/{id}/mapfields", s.wrap("mapfields_create", authOrg, s.handleCreateMapField))
	r.PUT("/v2/datasets/{id}/mapfields", s.wrap("mapfields_update", authOrg, s.handleUpdateMapFields))
	r.DELETE("/v2/datasets/{id}/mapfields/{name}", s.wrap("mapfields_delete", authOrg, s.handleDeleteMapField))

	// Users and orgs.
	r.GET("/v1/user", s.wrap("user_v1", authAny, s.handleCurrentUserV1))
	r.GET("/v2/user", s.wrap("user", authAny, s.handleCurrentUser))
	r.GET("/v2/users", s.wrap("users_list", authOrg, s.handleListUsers))
	r.POST("/v2/users", s.wrap("users_create", authOrg, s.handleCreateUser))
	r.GET("/v2/users/{id}", s.wrap("users_get", authOrg, s.handleGetUser))
	r.PUT("/v2/users/{id}", s.wrap("users_update", authOrg, s.handleUpdateUser))
	r.PUT("/v2/users/{id}/role", s.wrap("users_role", authOrg, s.handleUpdateUserRole))
	r.DELETE("/v2/users/{id}", s.wrap("users_delete", authOrg, s.handleDeleteUser))
	r.GET("/v2/orgs", s.wrap("orgs_list", authAny, s.handleListOrgs))
	r.GET("/v2/orgs/{id}", s.wrap("orgs_get", authAny, s.handleGetOrg))
	r.PUT("/v2/orgs/{id}", s.wrap("orgs_update", authAny, s.handleUpdateOrg))

	// Org resources.
	s.crud(r, "/v2/annotations", "annotations", annotationResource(s))
	s.crud(r, "/v2/rbac/groups", "groups", groupResource(s))
	s.crud(r, "/v2/vfields", "vfields", vfieldResource(s))
	s.crud(r, "/v2/apl-starred-queries", "starred", starredResource(s))
	s.crud(r, "/v2/monitors", "monitors", monitorResource(s))
	s.crud(r, "/v2/notifiers", "notifiers", notifierResource(s))

	r.GET("/v2/tokens", s.wrap("tokens_list", authOrg, s.handleListTokens))
	r.POST("/v2/tokens", s.wrap("tokens_create", authOrg, s.handleCreateToken))
	r.GET("/v2/tokens/{id}", s.wrap("tokens_get", authOrg, s.handleGetToken))
	r.DELETE("/v2/tokens/{id}", s.wrap("tokens_delete", authOrg, s.handleDeleteToken))
	r.POST("/v2/tokens/{id}/regenerate", s.wrap("tokens_regenerate", authOrg, s.handleRegenerateToken))

	r.GET("/v2/dashboards", s.wrap("dashboards_list", authOrg, s.handleListDashboards))
	r.POST("/v2/dashboards", s.wrap("dashboards_create", authOrg, s.handleCreateDashboard))
	for _, p := range []string{"/v2/dashboards/uid/{id}", "/v2/dashboards/{id}"} {
		r.GET(p, s.wrap("dashboards_get", authOrg, s.handleGetDashboard))
		r.PUT(p, s.wrap("dashboards_update", authOrg, s.handleUpdateDashboard))
		r.DELETE(p, s.wrap("dashboards_delete", authOrg, s.handleDeleteDashboard))
	}
	return r
}

func (s *Server) handleHealth(c *call) error {
	return writeJSON(c.RequestCtx, http.StatusOK, map[string]string{"status": "ok"})
}

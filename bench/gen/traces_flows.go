package gen

// The trace shapes below follow the OpenTelemetry demo shop (the services
// of Axiom's otel-demo-traces dataset): a request enters through
// frontendproxy, frontend calls services over gRPC (a client span in the
// caller, a server span in the callee), services call redis, HTTP
// backends and Kafka.

// node is one span of a flow template with the spans it causes.
type node struct {
	svc    int
	name   string
	kind   string
	selfMs float64 // median time spent in the span itself
	method string  // HTTP method of HTTP spans
	route  string  // HTTP route of HTTP server spans
	db     string  // db.system.name of database client spans
	errMsg string  // the status message when this span is the failing one
	repeat int     // 0 or 1: once; n > 1: 1 to n times
	kids   []*node
}

// traceServices are the service.name values, as in the OTel demo.
var traceServices = []string{"frontend", "frontendproxy", "flagd", "productcatalogservice", "loadgenerator",
	"checkoutservice", "cartservice", "recommendationservice", "emailservice", "adservice",
	"shippingservice", "quoteservice", "currencyservice", "paymentservice", "frauddetectionservice"}

const (
	svcFrontend = iota
	svcProxy
	svcFlagd
	svcCatalog
	svcLoadgen
	svcCheckout
	svcCart
	svcRecommendation
	svcEmail
	svcAd
	svcShipping
	svcQuote
	svcCurrency
	svcPayment
	svcFraud
)

// rpc is a gRPC call from svc `from` to method of service `to`: a client
// span with the callee's server span under it.
func rpc(from, to int, method string, selfMs float64, errMsg string, kids ...*node) *node {
	server := &node{svc: to, name: method, kind: "server", selfMs: selfMs, errMsg: errMsg, kids: kids}
	return &node{svc: from, name: method, kind: "client", selfMs: 0.3, kids: []*node{server}}
}

func redis(svc int, cmd string) *node {
	return &node{svc: svc, name: cmd, kind: "client", selfMs: 0.4, db: "redis"}
}

func httpServer(svc int, method, route string, selfMs float64, kids ...*node) *node {
	return &node{svc: svc, name: method + " " + route, kind: "server", selfMs: selfMs, method: method, route: route, kids: kids}
}

// ingress wraps a frontend route in the proxy's server span.
func ingress(method, route string, selfMs float64, kids ...*node) *node {
	return &node{svc: svcProxy, name: "ingress", kind: "server", selfMs: 0.5, method: method, route: route,
		kids: []*node{httpServer(svcFrontend, method, route, selfMs, kids...)}}
}

func times(n int, x *node) *node { x.repeat = n; return x }

func withErr(msg string, x *node) *node { x.errMsg = msg; return x }

// flows are the request types with their share of traces.
var flows = []struct {
	weight float64
	root   *node
}{
	{30, ingress("GET", "/api/products", 2,
		rpc(svcFrontend, svcCatalog, "oteldemo.ProductCatalogService/ListProducts", 1.5, "")),
	},
	{20, ingress("GET", "/api/products/{productId}", 2.5,
		rpc(svcFrontend, svcCatalog, "oteldemo.ProductCatalogService/GetProduct", 1, "Error: Product Catalog Fail Feature Flag Enabled"),
		rpc(svcFrontend, svcRecommendation, "oteldemo.RecommendationService/ListRecommendations", 3, "",
			&node{svc: svcRecommendation, name: "get_product_list", kind: "internal", selfMs: 0.8},
			rpc(svcRecommendation, svcCatalog, "oteldemo.ProductCatalogService/ListProducts", 1.5, "")),
		rpc(svcFrontend, svcAd, "oteldemo.AdService/GetAds", 1.2, "",
			rpc(svcAd, svcFlagd, "flagd.evaluation.v1.Service/ResolveBoolean", 0.3, ""))),
	},
	{15, ingress("GET", "/api/cart", 1.5,
		rpc(svcFrontend, svcCart, "oteldemo.CartService/GetCart", 0.8, "Can't access cart storage.", redis(svcCart, "HGET"))),
	},
	{10, ingress("POST", "/api/cart", 2,
		rpc(svcFrontend, svcCart, "oteldemo.CartService/AddItem", 1, "Can't access cart storage.",
			redis(svcCart, "HMSET"), redis(svcCart, "EXPIRE"))),
	},
	{10, ingress("GET", "/api/currency", 1,
		rpc(svcFrontend, svcCurrency, "oteldemo.CurrencyService/GetSupportedCurrencies", 0.4, "")),
	},
	{5, ingress("POST", "/api/checkout", 4,
		rpc(svcFrontend, svcCheckout, "oteldemo.CheckoutService/PlaceOrder", 5, "",
			&node{svc: svcCheckout, name: "prepareOrderItemsAndShippingQuoteFromCart", kind: "internal", selfMs: 0.5, kids: []*node{
				rpc(svcCheckout, svcCart, "oteldemo.CartService/GetCart", 0.8, "", redis(svcCart, "HGET")),
				times(4, rpc(svcCheckout, svcCatalog, "oteldemo.ProductCatalogService/GetProduct", 1, "Error: Product Catalog Fail Feature Flag Enabled")),
				times(4, rpc(svcCheckout, svcCurrency, "oteldemo.CurrencyService/Convert", 0.3, "")),
				rpc(svcCheckout, svcShipping, "oteldemo.ShippingService/GetQuote", 1, "",
					&node{svc: svcShipping, name: "POST", kind: "client", selfMs: 0.3, method: "POST", kids: []*node{
						withErr("quote service unavailable", httpServer(svcQuote, "POST", "/getquote", 2))}}),
			}},
			rpc(svcCheckout, svcPayment, "oteldemo.PaymentService/Charge", 6, "Payment request failed. Invalid token. app.loyalty.level=gold"),
			rpc(svcCheckout, svcShipping, "oteldemo.ShippingService/ShipOrder", 0.8, ""),
			&node{svc: svcCheckout, name: "POST", kind: "client", selfMs: 0.3, method: "POST", kids: []*node{
				withErr("Failed to send order confirmation", httpServer(svcEmail, "POST", "/send_order_confirmation", 8))}},
			rpc(svcCheckout, svcCart, "oteldemo.CartService/EmptyCart", 0.6, "", redis(svcCart, "DEL")),
			&node{svc: svcCheckout, name: "orders publish", kind: "producer", selfMs: 1.5, kids: []*node{
				{svc: svcFraud, name: "orders process", kind: "consumer", selfMs: 4}}})),
	},
	{10, &node{svc: svcFlagd, name: "flagd.evaluation.v1.Service/EventStream", kind: "server", selfMs: 0.2}},
}

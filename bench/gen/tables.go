package gen

// The value tables below are fixed (they do not depend on the seed), so two
// generators with different seeds draw from the same vocabulary and a
// benchmark's answers differ only by the random draws.

// userAgent is a real UA string with its share of traffic.
type userAgent struct {
	ua     string
	weight float64
}

// userAgents mixes desktop and mobile browsers (most traffic), crawlers and
// API clients, as a public web shop's edge sees them.
var userAgents = []userAgent{
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36", 18},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36", 6},
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36", 8},
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3.1 Safari/605.1.15", 5},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3.1 Mobile/15E148 Safari/604.1", 10},
	{"Mozilla/5.0 (iPad; CPU OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Mobile/15E148 Safari/604.1", 2},
	{"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Mobile Safari/537.36", 9},
	{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.6167.178 Mobile Safari/537.36", 2},
	{"Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.6261.64 Mobile Safari/537.36", 1.5},
	{"Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36", 1.5},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/122.0.6261.89 Mobile/15E148 Safari/604.1", 1.5},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:123.0) Gecko/20100101 Firefox/123.0", 3},
	{"Mozilla/5.0 (X11; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0", 1},
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:123.0) Gecko/20100101 Firefox/123.0", 1},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 Edg/122.0.2365.66", 4},
	{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36", 1.5},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 OPR/107.0.0.0", 0.7},
	{"Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; AS; rv:11.0) like Gecko", 0.3},
	{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", 2.5},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/122.0.6261.94 Safari/537.36", 1.5},
	{"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", 1.5},
	{"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", 0.5},
	{"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", 0.8},
	{"Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)", 0.5},
	{"DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)", 0.3},
	{"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", 0.4},
	{"Twitterbot/1.0", 0.2},
	{"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", 0.2},
	{"curl/8.4.0", 3},
	{"curl/7.88.1", 0.6},
	{"python-requests/2.31.0", 4},
	{"Go-http-client/1.1", 5},
	{"Go-http-client/2.0", 2},
	{"okhttp/4.12.0", 6},
	{"axios/1.6.7", 4},
	{"PostmanRuntime/7.36.3", 0.3},
	{"kube-probe/1.29", 5},
	{"Prometheus/2.50.1", 0.8},
	{"ELB-HealthChecker/2.0", 1},
	{"Apache-HttpClient/4.5.14 (Java/17.0.10)", 0.5},
}

// Regions group countries with the datacenters that serve them.
const (
	regionNA = iota
	regionSA
	regionEU
	regionAsia
	regionOC
	regionAF
)

// datacenters are IATA-like codes; region says which countries each serves
// first (traffic mostly lands in the nearest datacenter).
var datacenters = []struct {
	code   string
	region int
}{
	{"IAD", regionNA}, {"SFO", regionNA}, {"ORD", regionNA}, {"GRU", regionSA},
	{"FRA", regionEU}, {"AMS", regionEU}, {"LHR", regionEU}, {"NRT", regionAsia},
	{"SIN", regionAsia}, {"SYD", regionOC},
}

// country is a country with its cities; countries are listed from the
// most to the least traffic.
type country struct {
	name   string
	region int
	cities []string
}

var countries = []country{
	{"United States", regionNA, []string{"New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Philadelphia", "San Antonio", "San Diego", "Dallas", "San Jose", "Austin", "Seattle", "Denver", "Boston", "Portland", "Atlanta", "Miami", "Minneapolis", "Humboldt", "Ashburn"}},
	{"Germany", regionEU, []string{"Berlin", "Hamburg", "Munich", "Cologne", "Frankfurt am Main", "Stuttgart", "Düsseldorf", "Leipzig", "Dresden", "Nuremberg"}},
	{"United Kingdom", regionEU, []string{"London", "Manchester", "Birmingham", "Leeds", "Glasgow", "Edinburgh", "Bristol", "Liverpool"}},
	{"India", regionAsia, []string{"Mumbai", "Delhi", "Bengaluru", "Hyderabad", "Chennai", "Kolkata", "Pune", "Ahmedabad", "Jaipur"}},
	{"Brazil", regionSA, []string{"São Paulo", "Rio de Janeiro", "Brasília", "Salvador", "Fortaleza", "Belo Horizonte", "Curitiba", "Recife"}},
	{"France", regionEU, []string{"Paris", "Marseille", "Lyon", "Toulouse", "Nice", "Nantes", "Strasbourg", "Bordeaux", "Nevers"}},
	{"Japan", regionAsia, []string{"Tokyo", "Osaka", "Yokohama", "Nagoya", "Sapporo", "Fukuoka", "Kobe", "Kyoto"}},
	{"Canada", regionNA, []string{"Toronto", "Montreal", "Vancouver", "Calgary", "Edmonton", "Ottawa", "Winnipeg"}},
	{"Netherlands", regionEU, []string{"Amsterdam", "Rotterdam", "The Hague", "Utrecht", "Eindhoven", "Groningen"}},
	{"Australia", regionOC, []string{"Sydney", "Melbourne", "Brisbane", "Perth", "Adelaide", "Canberra"}},
	{"Mexico", regionNA, []string{"Mexico City", "Guadalajara", "Monterrey", "Puebla", "Tijuana", "Ojinaga", "Cancún"}},
	{"Spain", regionEU, []string{"Madrid", "Barcelona", "Valencia", "Seville", "Zaragoza", "Málaga", "Bilbao"}},
	{"Italy", regionEU, []string{"Rome", "Milan", "Naples", "Turin", "Palermo", "Genoa", "Bologna", "Florence"}},
	{"China", regionAsia, []string{"Shanghai", "Beijing", "Shenzhen", "Guangzhou", "Chengdu", "Hangzhou", "Wuhan"}},
	{"South Korea", regionAsia, []string{"Seoul", "Busan", "Incheon", "Daegu", "Daejeon"}},
	{"Poland", regionEU, []string{"Warsaw", "Kraków", "Łódź", "Wrocław", "Poznań", "Gdańsk"}},
	{"Sweden", regionEU, []string{"Stockholm", "Gothenburg", "Malmö", "Uppsala"}},
	{"Singapore", regionAsia, []string{"Singapore"}},
	{"Indonesia", regionAsia, []string{"Jakarta", "Surabaya", "Bandung", "Medan", "Semarang"}},
	{"Turkey", regionEU, []string{"Istanbul", "Ankara", "Izmir", "Bursa", "Antalya"}},
	{"Argentina", regionSA, []string{"Buenos Aires", "Córdoba", "Rosario", "Mendoza", "La Plata"}},
	{"Switzerland", regionEU, []string{"Zürich", "Geneva", "Basel", "Bern", "Lausanne"}},
	{"Ireland", regionEU, []string{"Dublin", "Cork", "Galway", "Limerick"}},
	{"Belgium", regionEU, []string{"Brussels", "Antwerp", "Ghent", "Liège"}},
	{"Austria", regionEU, []string{"Vienna", "Graz", "Linz", "Salzburg", "Innsbruck"}},
	{"Nigeria", regionAF, []string{"Lagos", "Abuja", "Kano", "Ibadan", "Port Harcourt"}},
	{"South Africa", regionAF, []string{"Johannesburg", "Cape Town", "Durban", "Pretoria", "Port Elizabeth"}},
	{"Vietnam", regionAsia, []string{"Ho Chi Minh City", "Hanoi", "Da Nang", "Haiphong"}},
	{"Philippines", regionAsia, []string{"Manila", "Quezon City", "Davao City", "Cebu City"}},
	{"Colombia", regionSA, []string{"Bogotá", "Medellín", "Cali", "Barranquilla"}},
	{"Norway", regionEU, []string{"Oslo", "Bergen", "Trondheim", "Stavanger"}},
	{"Denmark", regionEU, []string{"Copenhagen", "Aarhus", "Odense", "Aalborg"}},
	{"Finland", regionEU, []string{"Helsinki", "Espoo", "Tampere", "Oulu"}},
	{"Portugal", regionEU, []string{"Lisbon", "Porto", "Braga", "Coimbra"}},
	{"Czechia", regionEU, []string{"Prague", "Brno", "Ostrava", "Plzeň"}},
	{"Israel", regionEU, []string{"Tel Aviv", "Jerusalem", "Haifa"}},
	{"Chile", regionSA, []string{"Santiago", "Valparaíso", "Concepción"}},
	{"Thailand", regionAsia, []string{"Bangkok", "Chiang Mai", "Phuket", "Pattaya"}},
	{"Malaysia", regionAsia, []string{"Kuala Lumpur", "George Town", "Johor Bahru"}},
	{"New Zealand", regionOC, []string{"Auckland", "Wellington", "Christchurch"}},
	{"Ukraine", regionEU, []string{"Kyiv", "Kharkiv", "Odesa", "Lviv", "Dnipro"}},
	{"Romania", regionEU, []string{"Bucharest", "Cluj-Napoca", "Timișoara", "Iași"}},
	{"Greece", regionEU, []string{"Athens", "Thessaloniki", "Patras"}},
	{"Hungary", regionEU, []string{"Budapest", "Debrecen", "Szeged"}},
	{"Egypt", regionAF, []string{"Cairo", "Alexandria", "Giza"}},
	{"Kenya", regionAF, []string{"Nairobi", "Mombasa", "Kisumu"}},
	{"Peru", regionSA, []string{"Lima", "Arequipa", "Cusco"}},
	{"United Arab Emirates", regionAsia, []string{"Dubai", "Abu Dhabi", "Sharjah"}},
	{"Saudi Arabia", regionAsia, []string{"Riyadh", "Jeddah", "Mecca", "Dammam"}},
	{"Taiwan", regionAsia, []string{"Taipei", "Kaohsiung", "Taichung"}},
	{"Pakistan", regionAsia, []string{"Karachi", "Lahore", "Islamabad", "Faisalabad"}},
	{"Morocco", regionAF, []string{"Casablanca", "Rabat", "Marrakesh", "Fez"}},
}

// methods per kind of URI: pages and assets are fetched, APIs are used.
var (
	methodNames   = []string{"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"}
	methodsAPI    = []float64{55, 25, 8, 5, 2, 5}
	methodsStatic = []float64{93, 0, 0, 0, 7, 0}
)

// statusCodes with their base shares; generator.status adjusts them by
// method and kind of URI (POST creates, static assets revalidate).
var (
	statusCodes   = []int{200, 201, 204, 301, 304, 400, 401, 403, 404, 500, 502, 503}
	statusWeights = []float64{84, 0, 0, 1.5, 2, 1.5, 1, 0.5, 5, 1.5, 0.5, 0.5}
)

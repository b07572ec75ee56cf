package core

import "testing"

// The reference pages' own examples of has_ipv4_prefix, bag_zip and
// dynamic_to_json answer as the pages say (KQL's for the prefix rule and
// non-string keys, Axiom's for dynamic_to_json's type and scalars).
func TestReferenceExamplesIPv4PrefixBagZipToJSON(t *testing.T) {
	const line = "'05:04:54 127.0.0.1 GET /favicon.ico 404'"
	opsExpect(t, "print a = has_ipv4_prefix("+line+", '127.0.'), b = has_ipv4_prefix("+line+", '127.0'),"+
		" c = has_any_ipv4_prefix("+line+", dynamic(['127.0', '192.168'])), d = has_any_ipv4_prefix("+line+", '10.', '127.0.0.1')",
		"a:boolean, b:boolean, c:boolean, d:boolean", `[true,false,false,true]`)
	opsExpect(t, "print z = bag_zip(dynamic(['a', 8, 'b']), dynamic([1, '2', 3.4])), s = bag_zip(dynamic('ab'), dynamic([1]))",
		"z:dynamic, s:dynamic", `[{"a":1,"b":3.4},null]`)
	opsExpect(t, "print j = dynamic_to_json(dynamic({'b': [1, 'x'], 'a': 2})), t = gettype(dynamic_to_json(dynamic([1]))), s = dynamic_to_json('abc'), n = dynamic_to_json(12)",
		"j:string, t:string, s:string, n:string", `["{\"a\":2,\"b\":[1,\"x\"]}","string","abc","12"]`)
}

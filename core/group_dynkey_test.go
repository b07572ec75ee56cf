package core

import "testing"

// A dynamic field that is 200 in some events and "200" in others groups
// as one value; the group shows the number whichever row comes first,
// so one worker, several and two nodes answer alike (it showed the first
// row's, and the difftest saw one node answer 200 and two "200").
func TestDynamicGroupKeyShown(t *testing.T) {
	for _, rows := range []string{`"200", 200, 404, "404", "n/a", 2.0e2`, `200, "200", "404", 404, "n/a", 200.0`} {
		src := "datatable(s:dynamic)[" + rows + "]"
		opsExpect(t, src+" | summarize n = count() by s | sort by n desc, tostring(s) asc",
			"s:dynamic, n:integer", `[200,3]`, `[404,2]`, `["n/a",1]`)
		opsExpect(t, src+" | distinct s | sort by tostring(s) asc", "s:dynamic", `[200]`, `[404]`, `["n/a"]`)
		opsExpect(t, src+" | summarize n = count() by s, k = 1 | sort by n desc, tostring(s) asc",
			"s:dynamic, k:integer, n:integer", `[200,1,3]`, `[404,1,2]`, `["n/a",1,1]`)
	}
}

package gen

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// Docs datasets of GitHub events (the tutorial's github-*-event).

var (
	ghActors = []string{"octocat", "dependabot[bot]", "github-actions[bot]", "renovate-bot", "alice-dev", "bob",
		"k8s-ci-robot", "carol42", "dave-ops", "erin"}
	ghRepos = []string{"kubernetes/kubernetes", "axiomhq/axiom-go", "axiomhq/docs", "golang/go", "grafana/grafana",
		"open-telemetry/opentelemetry-collector", "kubernetes/website", "vercel/next.js"}
	ghLabels = []struct{ name, color string }{{"bug", "d73a4a"}, {"enhancement", "a2eeef"},
		{"documentation", "0075ca"}, {"good first issue", "7057ff"}, {"kind/feature", "c7def8"}}
	ghActions = []string{"opened", "closed", "reopened", "labeled", "assigned"}
)

func ghBase(r *rand.Rand, t time.Time) map[string]any {
	return map[string]any{
		"_time": t.Format(time.RFC3339Nano),
		"id":    strconv.FormatInt(30_000_000_000+r.Int64N(1_000_000_000), 10),
		"actor": ghActors[r.IntN(len(ghActors))],
		"repo":  ghRepos[r.IntN(len(ghRepos))],
	}
}

func ghPush(r *rand.Rand, t time.Time) map[string]any {
	e := ghBase(r, t)
	n := 1 + r.IntN(4)
	commits := make([]any, n)
	for i := range commits {
		commits[i] = map[string]any{"sha": hex(r, 40), "message": "fix: " + httpMessages[r.IntN(4)],
			"author": map[string]any{"name": ghActors[r.IntN(len(ghActors))]}}
	}
	e["commits"] = commits
	e["size"] = int64(n)
	e["distinct_size"] = int64(n)
	e["push_id"] = 15_000_000_000 + r.Int64N(1_000_000_000)
	e["head"] = hex(r, 40)
	e["before"] = hex(r, 40)
	e["ref"] = "refs/heads/" + []string{"main", "master", "develop", "feature/x"}[r.IntN(4)]
	ghPushExampleFields(e)
	return e
}

func ghIssues(r *rand.Rand, t time.Time) map[string]any {
	e := ghBase(r, t)
	var labels []any
	for _, l := range ghLabels {
		if r.IntN(3) == 0 {
			labels = append(labels, map[string]any{"name": l.name, "color": l.color})
		}
	}
	if labels == nil {
		labels = []any{}
	}
	e["labels"] = labels
	e["action"] = ghActions[r.IntN(len(ghActions))]
	e["number"] = int64(1 + r.IntN(120000))
	e["title"] = httpMessages[r.IntN(6)]
	e["state"] = []string{"open", "closed"}[r.IntN(2)]
	e["milestone"] = map[string]any{"number": int64(1 + r.IntN(40)), "title": "v1." + strconv.Itoa(r.IntN(30))}
	e["comments"] = int64(r.IntN(50))
	return e
}

func ghPull(r *rand.Rand, t time.Time) map[string]any {
	e := ghBase(r, t)
	e["action"] = ghActions[r.IntN(2)]
	e["number"] = int64(1 + r.IntN(120000))
	e["commits"] = int64(1 + r.IntN(20))
	e["additions"] = int64(r.IntN(2000))
	e["deletions"] = int64(r.IntN(800))
	e["head"] = "feature/" + hex(r, 6)
	e["base"] = "main"
	e["merged"] = r.IntN(2) == 0
	e["title"] = httpMessages[r.IntN(6)]
	return e
}

func ghComment(r *rand.Rand, t time.Time) map[string]any {
	e := ghBase(r, t)
	e["body"] = []string{"LGTM", "/retest", "Thanks for the report!", "Can you share the logs?",
		"This is fixed in #1234", "Codecov Report: coverage 81.2%"}[r.IntN(6)]
	e["issue_number"] = int64(1 + r.IntN(120000))
	e["action"] = "created"
	return e
}

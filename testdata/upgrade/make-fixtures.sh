#!/bin/bash
# Makes the data directories upgrade_test.go opens: for each revision
# below (where core/store/FORMAT.md's versions changed), build aplite as
# it was, ingest the events of events() into two datasets, and keep the
# directory as REV.tar.gz:
#   - dataset "flushed": 1,500 events ingested, then SIGTERM: blocks of
#     that revision's block format (and its manifest, if it had one);
#   - dataset "walonly": 500 events ingested after a restart, then
#     SIGKILL: records of that revision's WAL format, replayed at start.
# The metadata file (meta.db: org, token, dataset settings) is that
# revision's too. Run from the repository root:
#   testdata/upgrade/make-fixtures.sh [REV...]
set -euo pipefail
REVS=${*:-"ff91d59 8f09b23 bb785a3"}
#   ff91d59: block format 1, WAL version 1, no block manifest
#   8f09b23: block format 3 (term filters per granule), WAL version 1
#   bb785a3: block format 4 (column pages), WAL version 1, no manifest
TOKEN=xapt-upgrade-fixture-token
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# events FROM N: N events, one a second from 2024-01-01T00:00:00Z + FROM s;
# event i has status 200+100*(i%4), msg "m(i%7)", dur i/4.
events() {
	awk -v from="$1" -v n="$2" 'BEGIN { for (i = from; i < from + n; i++) {
		printf "{\"_time\":\"2024-01-01T%02d:%02d:%02dZ\",\"status\":%d,\"msg\":\"m%d\",\"dur\":%.2f}\n",
			int(i / 3600), int(i % 3600 / 60), i % 60, 200 + 100 * (i % 4), i % 7, i / 4 } }'
}

wait_port() { for _ in $(seq 100); do curl -s "http://$1/health" >/dev/null && return; sleep 0.1; done; echo "no server on $1" >&2; exit 1; }

post() { # post ADDR PATH CONTENT-TYPE BODY-FILE
	curl -sf -H "Authorization: Bearer $TOKEN" -H "X-Axiom-Org-Id: default" -H "Content-Type: $3" \
		-X POST "http://$1$2" --data-binary "@$4" >/dev/null
}

for rev in $REVS; do
	src="$WORK/src-$rev"
	git worktree add --detach "$src" "$rev" >/dev/null
	(cd "$src" && go build -o "$WORK/aplite-$rev" .)
	git worktree remove --force "$src"
	data="$WORK/data-$rev"
	addr=127.0.0.1:18$((RANDOM % 900 + 100))
	"$WORK/aplite-$rev" serve -addr "$addr" -data "$data" -token "$TOKEN" 2>"$WORK/log-$rev" &
	pid=$!
	wait_port "$addr"
	echo '{"name":"flushed"}' >"$WORK/ds"
	post "$addr" /v2/datasets application/json "$WORK/ds"
	events 0 1500 >"$WORK/ev"
	post "$addr" /v1/datasets/flushed/ingest application/x-ndjson "$WORK/ev"
	kill -TERM $pid
	wait $pid
	"$WORK/aplite-$rev" serve -addr "$addr" -data "$data" -token "$TOKEN" -flush-interval 1h 2>>"$WORK/log-$rev" &
	pid=$!
	wait_port "$addr"
	echo '{"name":"walonly"}' >"$WORK/ds"
	post "$addr" /v2/datasets application/json "$WORK/ds"
	events 1500 500 >"$WORK/ev"
	post "$addr" /v1/datasets/walonly/ingest application/x-ndjson "$WORK/ev"
	kill -KILL $pid
	wait $pid || true
	rm -rf "$data/.admin" "$data/LOCK"
	tar -C "$data" --sort=name --owner=0 --group=0 --numeric-owner --mtime=2024-01-01 -czf "$OUT/$rev.tar.gz" .
	echo "$rev: $(du -h "$OUT/$rev.tar.gz" | cut -f1) ($(cd "$data" && find . -type f | sort | tr '\n' ' '))"
done

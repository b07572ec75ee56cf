#!/bin/sh
# Queries a file in place (NDJSON or Parquet) with aplite and with DuckDB
# (read_json / read_parquet), query by query, each in a process of its
# own, and prints one line per run: query, engine, wall seconds, peak RSS
# in KB, user and system CPU seconds (GNU time; on a shared machine the
# CPU seconds vary less than the wall time). The queries are bench/README.md's q1..q7, take 10 and
# dc-method (summarize count(), avg(req_duration_ms) by server_datacenter,
# method). Make the file with:
#   go run ./bench/peers/ndjson -n 1000000 -shape real > FILE.ndjson
#   aplite query -in logs=FILE.ndjson -format parquet -o FILE.parquet logs
# Usage, from the repository root: bench/peers/files.sh FILE [APLITE...]
# With no APLITE binary it builds this checkout; give several (a build of
# main and one of a branch) to compare them in the same run. REPEAT=n
# runs everything n times over (default 1); QUERIES picks the ids.
set -eu
file=$(realpath "$1")
shift
if [ $# -eq 0 ]; then
	go build -o /tmp/aplite-files .
	set -- /tmp/aplite-files
fi
(cd bench/peers && { [ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null; })
apl() {
	case $1 in
	q1) echo 'logs | where status == 500 | count' ;;
	q2) echo 'logs | summarize count() by status' ;;
	q3) echo 'logs | summarize avg(req_duration_ms) by method' ;;
	q4) echo 'logs | summarize count() by bin(_time, 1m)' ;;
	q5) echo 'logs | summarize count() by uri | top 10 by count_' ;;
	q6) echo 'logs | summarize percentile(req_duration_ms, 95) by server_datacenter' ;;
	q7) echo 'logs | where uri contains "api" | count' ;;
	take10) echo 'logs | take 10' ;;
	dc-method) echo 'logs | summarize count(), avg(req_duration_ms) by server_datacenter, method' ;;
	esac
}
for run in $(seq "${REPEAT:-1}"); do
	for q in ${QUERIES:-q1 q2 q3 q4 q5 q6 q7 take10 dc-method}; do
		for bin in "$@"; do
			/usr/bin/time -f "$q	$bin	%e	%M	%U	%S" "$bin" query -o /dev/null -in "logs=$file" "$(apl "$q")" || echo "$q	$bin	failed"
		done
		/usr/bin/time -f "$q	duckdb	%e	%M	%U	%S" node bench/peers/files.mjs "$file" "$q" >/dev/null || echo "$q	duckdb	failed"
	done
done

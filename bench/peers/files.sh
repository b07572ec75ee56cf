#!/bin/sh
# Queries an NDJSON file in place with aplite and with DuckDB (read_json),
# the same summarize, and prints each one's wall time and peak RSS (GNU
# time). Make the file with: go run ./bench/peers/ndjson -n 1000000 -shape real > FILE
# Usage, from the repository root: bench/peers/files.sh FILE
set -eu
file=$(realpath "$1")
go build -o /tmp/aplite-files .
(cd bench/peers && { [ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null; })
/usr/bin/time -f "aplite: %e s wall, %M KB peak RSS" /tmp/aplite-files query -in "logs=$file" \
	"logs | summarize count(), avg(req_duration_ms) by server_datacenter, method" >/dev/null
/usr/bin/time -f "duckdb: %e s wall, %M KB peak RSS" node bench/peers/files.mjs "$file"

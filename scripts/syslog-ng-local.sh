#!/bin/sh
# Unpacks Debian's syslog-ng (core, the http module behind
# elasticsearch-http() and the SCL that defines it) into DIR without
# installing it: syslog-ng and rsyslog (which the syslog listener's test
# uses) both claim the system logger, so apt cannot hold both; the
# libraries they link are ordinary packages and are installed.
# server/ingest_elastic_syslogng_test.go runs it from DIR when
# APLITE_SYSLOG_NG_ROOT=DIR is set:
#
#     scripts/syslog-ng-local.sh /tmp/syslog-ng
#     APLITE_SYSLOG_NG_ROOT=/tmp/syslog-ng go test -count=1 -run SyslogNG ./server/
set -eu
dir=${1:?usage: $0 DIR}
mkdir -p "$dir/debs"
dir=$(cd "$dir" && pwd)
cd "$dir/debs"
chmod 777 . 2>/dev/null || true # apt-get download drops to the _apt user when it can write here
get() { apt-get download syslog-ng-core syslog-ng-mod-http syslog-ng-scl >/dev/null 2>&1; }
get || { apt-get update -qq && get; } # a fresh machine has no package lists yet
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	libivykis0 libnet1 libpcre3 libwrap0 libjson-c5 libcurl4 libglib2.0-0 libcap2 >/dev/null
for f in *.deb; do dpkg -x "$f" "$dir"; done
LD_LIBRARY_PATH="$dir/usr/lib/syslog-ng" "$dir/usr/sbin/syslog-ng" --version | head -1
echo "syslog-ng unpacked in $dir"

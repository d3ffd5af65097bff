#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# netfuzz.sh UTARGETD TOOLS_DIR: network fuzzing (tests/tools/netfuzz.c) for
# NETFUZZ_SECONDS (default 20), or for NETFUZZ_PDUS PDUs when that is set
# (the long run: NETFUZZ_PDUS=1000000), with seed NETFUZZ_SEED (default: time), fuzzing
# LUN 1 while a well-behaved session verifies I/O on LUN 0. Fails if utargetd
# dies, the good session fails, RSS grows more than NETFUZZ_RSS_MIB (default
# 64) in all or more than NETFUZZ_RSS_LATE_MIB (default 8) over the second
# half, or the daemon does not stop cleanly / reports a sanitizer error.
# The good session comes from 127.0.0.2, another address than the fuzzer's:
# the truncation sweep floods 127.0.0.1 with logins, and at the per-address
# cap the target evicts that address's longest-silent login, which may be
# the good session's own while it logs in (seen once on a fast machine);
# a flood must leave other addresses alone, and that is what is checked.
. "$(dirname "$0")/lib.sh"
hd_init "$@"
hd_config '"login_timeout": 5, "header_digest": true, "data_digest": true'
hd_start
seed=${NETFUZZ_SEED:-$(date +%s)}
echo "utargetd pid $HD_PID on 127.0.0.1:$HD_PORT; netfuzz seed $seed"
"$HD_TOOLS/netfuzz" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" --fuzz-lun 1 \
	--good-lun 0 --good-source 127.0.0.2 ${NETFUZZ_PDUS:+--pdus "$NETFUZZ_PDUS"} \
	${NETFUZZ_PDUS:---seconds "${NETFUZZ_SECONDS:-20}"} --seed "$seed" --pid "$HD_PID" \
	--rss-max-growth "${NETFUZZ_RSS_MIB:-64}" --rss-max-late-growth "${NETFUZZ_RSS_LATE_MIB:-8}"
rc=$?
hd_alive || hd_fail "utargetd died during fuzzing (seed $seed)"
hd_stop
[ "$rc" = 0 ] || hd_fail "netfuzz reported a failure (seed $seed)"
echo "netfuzz: passed (seed $seed)"

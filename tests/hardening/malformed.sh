#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# malformed.sh UTARGETD TOOLS_DIR: the malformed-input suite (tests/tools/malformed.c,
# its cases and the RFC 7143 clauses they come from: `malformed --list`) against
# utargetd with a short login timeout and digests allowed. Fails on any case
# whose outcome is not one RFC 7143 allows, if the daemon stops serving, dies,
# does not stop cleanly on SIGTERM, or printed a sanitizer report.
. "$(dirname "$0")/lib.sh"
hd_init "$@"
# the CHAP cases log in to a second target that requires CHAP and offers
# mutual CHAP (its secrets: 12..16 bytes, one per direction)
CHAP_TARGET=$HD_TARGET-chap
HD_EXTRA_TARGETS='{ "name": "'$CHAP_TARGET'",
      "portal_groups": [ { "tag": 2, "portals": ["127.0.0.1:3600"] } ],
      "luns": [ { "lun": 0, "backstore": "fuzz" } ],
      "demo_mode": { "enabled": true },
      "auth": { "chap": [ { "user": "hd-user", "secret": "hd-user-secret" } ],
                "mutual": { "user": "hd-target", "secret": "hd-target-secret" } } }'
hd_config '"login_timeout": 3, "header_digest": true, "data_digest": true, "max_sessions": 32'
chmod 600 "$HD_CFG"
hd_start
echo "utargetd pid $HD_PID on 127.0.0.1:$HD_PORT"
"$HD_TOOLS/malformed" --addr "127.0.0.1:$HD_PORT" --target "$HD_TARGET" --lun 1 \
	--pid "$HD_PID" --chap-target "$CHAP_TARGET" --chap-user hd-user \
	--chap-secret hd-user-secret --mutual-user hd-target --mutual-secret hd-target-secret \
	${MALFORMED_ARGS:-}
rc=$?
hd_alive || hd_fail "utargetd died during the suite"
hd_stop
[ "$rc" = 0 ] || hd_fail "malformed-input cases failed (see above)"
echo "malformed: every case matched; utargetd served throughout and stopped cleanly"

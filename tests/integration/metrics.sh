#!/bin/bash
# metrics.sh UTARGETD CDBPROBE: the Prometheus endpoint (issue 13,
# daemon/metrics_http.c, rpc/metrics.c) counts exactly what an initiator sent
# and is a valid exposition:
#
#   cdbprobe (one I_T nexus) --- utargetd :PORT ------- LUN 0: r0 (ram 8M)
#   curl ----------------------- http 127.0.0.1:PORT2   LUN 1: r1 (ram 8M, idle)
#   utrpc.py ------------------- rpc.sock
#
# Each cdbprobe run is a new session of one I_T nexus (a fixed ISID): its
# first command meets I_T NEXUS LOSS OCCURRED (an error) and is sent again
# (CDBPROBE_UA=1). So 3 READ(10) of 8 blocks, 2 WRITE(10) of 4 blocks and a
# TEST UNIT READY make r0 count 12 commands more, 6 errors, 12288 bytes read
# and 4096 written, per class read 6, write 4, other 2 (the histogram's
# _count and +Inf bucket); buckets are cumulative and non-decreasing, _sum
# grows; r1 counts nothing. The whole text parses with prometheus_client's
# parser (python3-prometheus-client), with HELP and TYPE for each family,
# and `promtool check metrics` when promtool is found (UT_PROMTOOL or PATH).
# Another path is 404, another method 405; a fifth connection from one
# address is closed unanswered (4 per address); changing the address live
# (settings.set, config.apply) is refused, it needs a restart; a config
# without "metrics" listens on nothing.
. "$(dirname "$0")/lib.sh"
ut_init "$1"
USAGE="usage: metrics.sh UTARGETD CDBPROBE"
PROBE=${2:?$USAGE}
ut_pick_port2
MURL=http://127.0.0.1:$UT_PORT2/metrics
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import prometheus_client.parser' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || ut_fail "no python3 with prometheus_client (apt-get install python3-prometheus-client)"

ut_write_config metrics.json <<'JSON'
{
  "version": 1,
  "state_dir": "@TMP@",
  "rpc_socket": "@TMP@/rpc.sock",
  "metrics": { "listen": "127.0.0.1:@PORT2@" },
  "backstores": [ { "name": "r0", "type": "ram", "size": "8M" },
                  { "name": "r1", "type": "ram", "size": "8M" } ],
  "targets": [
    { "name": "iqn.2026-12.org.utarget:metrics",
      "portal_groups": [ { "tag": 1, "portals": ["127.0.0.1:@PORT@"] } ],
      "luns": [ { "lun": 0, "backstore": "r0" }, { "lun": 1, "backstore": "r1" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
ut_start "$UT_TMP/metrics.json"
export CDBPROBE_ISID_QUALIFIER=6 CDBPROBE_UA=1
url=iscsi://127.0.0.1:$UT_PORT/iqn.2026-12.org.utarget:metrics/0
probe() { "$PROBE" "$url" "$@" >/dev/null || ut_fail "cdbprobe $*"; }
scrape() {
	curl -sS --max-time 10 -D "$UT_TMP/$1.hdr" -o "$UT_TMP/$1.txt" "$MURL" || ut_fail "curl $MURL failed"
	grep -q "^HTTP/1.1 200" "$UT_TMP/$1.hdr" || { cat "$UT_TMP/$1.hdr"; ut_fail "GET /metrics: not 200"; }
}

probe 000000000000
scrape a
grep -qi "^Content-Type: text/plain; version=0.0.4" "$UT_TMP/a.hdr" || ut_fail "not the 0.0.4 content type"
for i in 1 2 3; do probe 28000000001000000800 in 4096; done
for i in 1 2; do probe 2a000000002000000400 out "$(head -c 2048 /dev/zero | od -An -tx1 -v | tr -d ' \n')"; done
probe 000000000000
scrape b

"$PY" - "$UT_TMP/a.txt" "$UT_TMP/b.txt" <<'PY' || ut_fail "the exposition is wrong"
import math, re, sys
from prometheus_client.parser import text_string_to_metric_families

def load(path):
    text = open(path).read()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    # every family: HELP then TYPE, then its samples, each family once
    typed, cur = [], None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# TYPE "):
            cur = line.split()[2]
            assert lines[i - 1].startswith("# HELP %s " % cur), f"no HELP before TYPE {cur}"
            assert cur not in typed, f"{cur} twice"
            typed.append(cur)
        elif line and not line.startswith("#"):
            name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0)
            assert cur and name in (cur, cur + "_bucket", cur + "_sum", cur + "_count"), f"{name} outside its family"
    samples = {}
    for f in fams.values():
        for s in f.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            assert key not in samples, f"duplicate sample {key}"
            samples[key] = s.value
    return fams, samples

fa, a = load(sys.argv[1])
fb, b = load(sys.argv[2])
for fam, typ in (("utarget_build_info", "gauge"), ("utarget_lu_commands", "counter"),
                 ("utarget_lu_errors", "counter"), ("utarget_lu_aborted", "counter"),
                 ("utarget_lu_busy", "counter"), ("utarget_lu_read_bytes", "counter"),
                 ("utarget_lu_written_bytes", "counter"),
                 ("utarget_lu_command_duration_seconds", "histogram"),
                 ("utarget_iscsi_sessions", "gauge"), ("utarget_iscsi_session_commands", "counter"),
                 ("utarget_stats_lost_updates", "counter")):
    assert fam in fb and fb[fam].type == typ, f"{fam}: missing or not a {typ}"

def v(s, name, **labels):
    return s[(name, tuple(sorted(labels.items())))]

want = {"commands": 12, "errors": 6, "aborted": 0, "busy": 0, "read_bytes": 12288, "written_bytes": 4096}
got = {k: v(b, f"utarget_lu_{k}_total", backstore="r0") - v(a, f"utarget_lu_{k}_total", backstore="r0") for k in want}
assert got == want, f"r0: {got}, want {want}"
H = "utarget_lu_command_duration_seconds"
for bs in ("r0", "r1"):
    total = 0
    for cls in ("read", "write", "other"):
        bk = sorted(((float(dict(k[1])["le"]), val) for k, val in b.items()
                     if k[0] == H + "_bucket" and dict(k[1])["backstore"] == bs and dict(k[1])["class"] == cls))
        assert len(bk) == 28 and bk[-1][0] == math.inf, f"{bs} {cls}: {len(bk)} buckets"
        assert bk[0][0] == 1024e-9 and abs(bk[-2][0] - 2**36 * 1e-9) < 1e-9, f"{bs} {cls}: bounds {bk[0][0]} {bk[-2][0]}"
        counts = [c for _, c in bk]
        assert counts == sorted(counts), f"{bs} {cls}: buckets not cumulative"
        cnt = v(b, H + "_count", backstore=bs, **{"class": cls})
        assert counts[-1] == cnt, f"{bs} {cls}: +Inf {counts[-1]} != _count {cnt}"
        total += cnt
    assert total == v(b, "utarget_lu_commands_total", backstore=bs), f"{bs}: classes {total} != commands"
for cls, n in (("read", 6), ("write", 4), ("other", 2)):
    d = v(b, H + "_count", backstore="r0", **{"class": cls}) - v(a, H + "_count", backstore="r0", **{"class": cls})
    assert d == n, f"r0 {cls}: {d} commands, want {n}"
    assert v(b, H + "_sum", backstore="r0", **{"class": cls}) > 0, f"r0 {cls}: _sum"
    assert v(b, H + "_sum", backstore="r0", **{"class": cls}) > v(a, H + "_sum", backstore="r0", **{"class": cls}), f"r0 {cls}: _sum did not grow"
r1 = {k: val for k, val in b.items() if dict(k[1]).get("backstore") == "r1"}
assert r1 == {k: val for k, val in a.items() if dict(k[1]).get("backstore") == "r1"}, "r1 changed"
assert v(b, "utarget_iscsi_sessions", target="iqn.2026-12.org.utarget:metrics") == 0, "sessions after the probes"
print("ok: r0 +12 commands (read 6, write 4, other 2), 6 errors, 12288 bytes read, 4096 written; "
      "28 cumulative buckets per class, +Inf == _count, classes sum to commands; r1 unchanged; parses")
PY

# promtool's linter too, when there is one (Debian's prometheus package; not
# in deps.sh: it is a server with a service of its own)
PROMTOOL=${UT_PROMTOOL:-$(command -v promtool || true)}
if [ -n "$PROMTOOL" ]; then
	for f in a b; do
		"$PROMTOOL" check metrics <"$UT_TMP/$f.txt" || ut_fail "promtool check metrics: $f.txt"
	done
	echo "ok: promtool check metrics accepts both scrapes"
else
	echo "note: no promtool (UT_PROMTOOL or PATH): its lint skipped"
fi

code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$UT_PORT2/other")
[ "$code" = 404 ] || ut_fail "GET /other: $code, want 404"
code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -X POST --data x "$MURL")
[ "$code" = 405 ] || ut_fail "POST /metrics: $code, want 405"
curl -s --max-time 10 -D - -o /dev/null -X DELETE "$MURL" | grep -qi "^Allow: GET" || ut_fail "405 without Allow: GET"
echo "ok: /other is 404, POST and DELETE /metrics are 405 (Allow: GET)"

# a live change of the address is refused (it needs a restart) and the
# endpoint keeps serving where it was
RPC="$UT_ROOT/tests/tools/utrpc.py"
"$RPC" "$UT_TMP/rpc.sock" settings.set '{"metrics": {"listen": "127.0.0.1:1"}}' >"$UT_TMP/set.out" 2>&1 &&
	ut_fail "settings.set changed metrics: $(cat "$UT_TMP/set.out")"
grep -q "metrics" "$UT_TMP/set.out" || { cat "$UT_TMP/set.out"; ut_fail "settings.set metrics: not the reason"; }
sed 's/"listen": "127.0.0.1:[0-9]*"/"listen": "127.0.0.1:1"/' "$UT_TMP/metrics.json" >"$UT_TMP/moved.json"
"$RPC" "$UT_TMP/rpc.sock" config.apply "{\"config\": $(cat "$UT_TMP/moved.json")}" >"$UT_TMP/apply.out" 2>&1 &&
	ut_fail "config.apply moved metrics: $(cat "$UT_TMP/apply.out")"
grep -q "metrics.listen.*restart" "$UT_TMP/apply.out" || { cat "$UT_TMP/apply.out"; ut_fail "config.apply metrics: not the reason"; }
curl -sf --max-time 10 -o /dev/null "$MURL" || ut_fail "/metrics gone after a refused change"
echo "ok: settings.set and config.apply changing metrics are refused (restart), /metrics still served"

# the per-address cap: 4 idle connections from 127.0.0.1 hold it, a fifth
# is closed unanswered; once they are gone, a scrape is answered again
"$PY" - "$UT_PORT2" <<'PY' || ut_fail "the per-address connection cap"
import socket, sys, time
port = int(sys.argv[1])
held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(4)]
time.sleep(0.3)
s = socket.create_connection(("127.0.0.1", port), timeout=5)
try:
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    got = s.recv(100)
except (ConnectionResetError, BrokenPipeError):
    got = b""
assert got == b"", f"a fifth connection was answered: {got[:40]!r}"
for h in held:
    h.close()
time.sleep(0.3)
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
assert s.recv(100).startswith(b"HTTP/1.1 200"), "not answered after the idle ones closed"
print("ok: 4 connections per address; a fifth is closed unanswered")
PY
ut_stop

# without "metrics": nothing listens on the port
grep -v '"metrics"' "$UT_TMP/metrics.json" >"$UT_TMP/plain.json"
ut_start "$UT_TMP/plain.json"
curl -s --max-time 5 -o /dev/null "$MURL" && ut_fail "something answers on $MURL without \"metrics\""
[ -z "$(ss -Hltn "sport = :$UT_PORT2")" ] || ut_fail "port $UT_PORT2 is listened on without \"metrics\""
echo "ok: without \"metrics\" nothing listens on $UT_PORT2"
ut_stop
echo "metrics: all checks passed"

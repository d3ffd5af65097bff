#!/bin/bash
# demo.sh BUILD_DIR: `make run`'s demo (scripts/run-demo.sh) in a scratch copy
# of the tree (.gitignore, scripts/, etc/ as a git repository of their own,
# so that the real tree's state/ is never touched):
#   1. with the demo's port taken (127.0.0.1:3260 itself when it is free, held
#      for a few seconds by a python listener; else a port of the test range
#      through UT_DEMO_LISTEN), run-demo.sh exits non-zero, names the holder
#      (python3 and its pid) and starts nothing (no state/);
#   2. the demo on a free port (UT_DEMO_LISTEN): first start copies
#      etc/utarget-demo.json to state/utarget-demo.json; iscsi-inq reads the
#      LU's INQUIRY; control API changes (a file back-store with a relative
#      path, enough ram back-stores to compact the file) write the journal,
#      the file, its backups and the new back-store's file into state/ only;
#      SIGTERM stops it with status 0 and no sanitizer report;
#   3. a second start keeps state/utarget-demo.json (the changes are there,
#      no "first start") and stops cleanly;
#   4. git status --porcelain --ignored in the copy: nothing but state/
#      appeared, etc/ is unchanged, and every demo file is in state/.
. "$(dirname "$0")/lib.sh"
build=${1:?usage: demo.sh BUILD_DIR}
case $build in
/*) ;;
*) build=$PWD/$build ;;
esac
ut_init "$build/src/daemon/utargetd"
tree=$UT_TMP/tree
HOLDER_PID=
RUN_PID=

demo_cleanup() {
	[ -n "$HOLDER_PID" ] && kill "$HOLDER_PID" 2>/dev/null && wait "$HOLDER_PID" 2>/dev/null
	[ -n "$RUN_PID" ] && kill -KILL "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null
	ut_cleanup
}
trap demo_cleanup EXIT

git_t() { git -C "$tree" -c user.name=utarget-test -c user.email=test@utarget.invalid "$@"; }

mkdir -p "$tree"
cp "$UT_ROOT/.gitignore" "$tree/"
cp -r "$UT_ROOT/scripts" "$UT_ROOT/etc" "$tree/"
# the copy's demo config gets a control socket of its own (the real one uses
# the default socket of the machine) and no /metrics endpoint (the real one's
# port, 9470, is outside the tests' range; metrics.sh tests the endpoint);
# the rest is the real demo config
sock=$UT_TMP/demo.sock
python3 - "$tree/etc/utarget-demo.json" "$sock" <<'PY' || ut_fail "cannot edit the copied config"
import json, sys
with open(sys.argv[1]) as f:
    c = json.load(f)
c["rpc_socket"] = sys.argv[2]
c.pop("metrics", None)
with open(sys.argv[1], "w") as f:
    json.dump(c, f, indent=2)
    f.write("\n")
PY
git_t init -q && git_t add -A && git_t commit -q -m "demo tree" || ut_fail "git init of the copy failed"
RPC="$UT_ROOT/tests/tools/utrpc.py"

# ---- 1. the demo's port is taken ----
if ut_port_free 3260; then
	hold_port=3260
	hold_env=()
else
	ut_pick_port
	hold_port=$UT_PORT
	hold_env=(UT_DEMO_LISTEN="127.0.0.1:$hold_port")
	UT_PORT=
	echo "note: 3260 is in use on this machine; the taken port is $hold_port (UT_DEMO_LISTEN)"
fi
python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
print("listening", flush=True)
time.sleep(60)
' "$hold_port" >"$UT_TMP/holder.out" 2>&1 &
HOLDER_PID=$!
for ((i = 0; i < 50; i++)); do
	grep -q listening "$UT_TMP/holder.out" && break
	kill -0 "$HOLDER_PID" 2>/dev/null || ut_fail "the listener on $hold_port did not start: $(cat "$UT_TMP/holder.out")"
	sleep 0.1
done
out=$(env "${hold_env[@]}" timeout 20 "$tree/scripts/run-demo.sh" "$build" 2>&1)
rc=$?
kill "$HOLDER_PID" 2>/dev/null
wait "$HOLDER_PID" 2>/dev/null
HOLDER_PID_WAS=$HOLDER_PID
HOLDER_PID=
echo "$out" | sed 's/^/  | /'
[ "$rc" != 0 ] || ut_fail "run-demo.sh exited 0 with port $hold_port taken"
[ "$rc" != 124 ] || ut_fail "run-demo.sh did not exit (it started the daemon?)"
echo "$out" | grep -q "port $hold_port is already in use by python3 (pid $HOLDER_PID_WAS)" ||
	ut_fail "the message does not name python3 (pid $HOLDER_PID_WAS) as the holder of $hold_port"
[ ! -e "$tree/state" ] || ut_fail "run-demo.sh created state/ although it could not start"
echo "ok: port $hold_port taken: run-demo.sh exits $rc, names python3 (pid $HOLDER_PID_WAS), starts nothing"

# ---- 2. first start on a free port ----
ut_pick_port
listen=127.0.0.1:$UT_PORT
UT_LOG=$UT_TMP/demo1.log
start_demo() {
	UT_DEMO_LISTEN=$listen "$tree/scripts/run-demo.sh" "$build" >"$UT_LOG" 2>&1 &
	RUN_PID=$!
	UT_PID=$RUN_PID # run-demo.sh execs utargetd: the same process
	for ((i = 0; i < UT_START_WAIT * 10; i++)); do
		kill -0 "$RUN_PID" 2>/dev/null || { wait "$RUN_PID"; ut_fail "the demo exited with status $? during start-up"; }
		grep -q "utargetd ready" "$UT_LOG" && ut_can_connect "$UT_PORT" && return 0
		sleep 0.1
	done
	ut_fail "the demo was not ready after ${UT_START_WAIT}s"
}
stop_demo() {
	ut_stop
	RUN_PID=
}
start_demo
grep -q "first start: state/utarget-demo.json copied from etc/utarget-demo.json" "$UT_LOG" ||
	ut_fail "no 'first start' message"
cmp -s "$tree/etc/utarget-demo.json" "$tree/state/utarget-demo.json" ||
	ut_fail "state/utarget-demo.json is not a copy of etc/utarget-demo.json"
echo "ok: first start: the config copied to state/utarget-demo.json, ready on $listen"
inq=$(timeout 30 iscsi-inq "iscsi://$listen/iqn.2026-12.org.utarget:default/0" 2>&1) ||
	ut_fail "iscsi-inq failed: $inq"
echo "$inq" | grep -q '^Peripheral Device Type:DIRECT_ACCESS$' && echo "$inq" | grep -q '^Vendor:UTARGET' ||
	ut_fail "iscsi-inq did not report utarget's direct-access LU: $inq"
echo "ok: iscsi-inq reads the demo LU: $(echo "$inq" | grep -E '^(Vendor|Product):' | tr -s ' \n' ' ')"
[ -f "$tree/state/disk0.img" ] || ut_fail "state/disk0.img was not created"
echo "ok: the LU's file is state/disk0.img"

r() {
	local out
	out=$(python3 "$RPC" "$sock" "$@" 2>&1) || ut_fail "$1 ${2:-} failed: $out"
}
r backstore.create '{"name": "f1", "type": "file", "path": "f1.img", "size": "4M", "create": true, "thin": true}'
[ -f "$tree/state/f1.img" ] || ut_fail "a back-store with the relative path f1.img is not state/f1.img"
[ -s "$tree/state/utarget-demo.json.journal" ] || ut_fail "no journal state/utarget-demo.json.journal"
echo "ok: a change through the control API: journal state/utarget-demo.json.journal, file state/f1.img"
for ((i = 0; i < 40; i++)); do
	r backstore.create "{\"name\": \"r$i\", \"type\": \"ram\", \"size\": \"1M\"}"
done
[ -f "$tree/state/utarget-demo.json.1" ] ||
	ut_fail "40 more changes did not compact the file (no state/utarget-demo.json.1)"
grep -q '"r39"' "$tree/state/utarget-demo.json" "$tree/state/utarget-demo.json.journal" ||
	ut_fail "the last change is in neither the file nor the journal"
echo "ok: 40 more changes: compacted into state/utarget-demo.json, backup state/utarget-demo.json.1"
stop_demo
echo "ok: the demo stopped cleanly"

# ---- 3. a second start keeps the administrator's changes ----
UT_LOG=$UT_TMP/demo2.log
start_demo
! grep -q "first start" "$UT_LOG" || ut_fail "the second start copied the config again"
out=$(python3 "$RPC" "$sock" backstore.get '{"name": "r39"}' 2>&1) ||
	ut_fail "the second start lost the changes: backstore.get r39: $out"
cmp -s "$tree/etc/utarget-demo.json" "$tree/state/utarget-demo.json" &&
	ut_fail "state/utarget-demo.json was overwritten with etc/utarget-demo.json"
echo "ok: second start: state/utarget-demo.json kept, with the changes (r39 is there)"
stop_demo

# ---- 4. nothing outside state/ ----
status=$(git -C "$tree" status --porcelain --ignored --untracked-files=all)
etc_status=$(git -C "$tree" status --porcelain --ignored etc/)
echo "git status --porcelain --ignored in the copy:"
echo "$status" | sed 's/^/  | /'
[ -z "$etc_status" ] || ut_fail "the demo wrote into etc/: $etc_status"
outside=$(echo "$status" | grep -v '^!! state/' | grep -v '^$')
[ -z "$outside" ] || ut_fail "the demo wrote outside state/: $outside"
echo "$status" | grep -q '^!! state/utarget-demo.json$' || ut_fail "state/utarget-demo.json not listed"
echo "ok: etc/ unchanged, every file the demo wrote is under state/"
echo "PASS demo"

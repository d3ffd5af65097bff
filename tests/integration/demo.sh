#!/bin/bash
# demo.sh BUILD_DIR: `make run`'s demo (scripts/run-demo.sh) in a scratch copy
# of the tree (.gitignore, scripts/, etc/ as a git repository of their own,
# so that the real tree's state/ is never touched): with the demo's port
# taken (127.0.0.1:3260 itself when it is free, held for a few seconds by a
# python listener; else a port of the test range through UT_DEMO_LISTEN),
# run-demo.sh exits non-zero, names the holder (python3 and its pid) and
# starts nothing (no state/).
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
# the default socket of the machine); the rest is the real demo config
sock=$UT_TMP/demo.sock
python3 - "$tree/etc/utarget-demo.json" "$sock" <<'PY' || ut_fail "cannot edit the copied config"
import json, sys
with open(sys.argv[1]) as f:
    c = json.load(f)
c["rpc_socket"] = sys.argv[2]
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

echo "PASS demo"

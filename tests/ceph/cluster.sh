#!/bin/bash
# cluster.sh: a throw-away one-node Ceph cluster for the rbd back-store's
# tests, from Debian's packages (ceph-mon, ceph-osd, ceph-common), on
# 127.0.0.1 only, with everything it writes inside one directory.
#
#   cluster.sh up DIR [IMAGE SIZE]...  start mon.a and osd.0 in DIR (empty or
#                                      missing), create pool "rbd" and the
#                                      images; prints DIR/ceph.conf
#   cluster.sh down DIR                stop exactly what `up` started in DIR
#   cluster.sh freeze DIR | thaw DIR   SIGSTOP / SIGCONT the OSD: the cluster
#                                      stops answering I/O and comes back
#
# Design (what the tests need, no more): authentication off (loopback, data
# thrown away), one replica, bluestore on a sparse file (its memory stays
# bounded, unlike memstore's), no mgr (librbd needs none). Ports: the first
# free pair from 3300 for the mon (v2, v1); the OSD binds 127.0.0.1 ports
# 6800 and up, so two clusters can run side by side. Every wait is bounded
# (CEPH_TEST_WAIT_S, default 90 s) and checks that the daemons still live.
# osd_client_watch_timeout is 10 s instead of 30: a test that kills a client
# holding the exclusive lock waits that long for it. Each PID is recorded
# with its start time (DIR/pids), and `down` signals a PID only while that
# time still matches, so a recycled PID is never hit; the OSD is stopped
# before the mon (an OSD stopped after its mon waits for it).
set -euo pipefail

WAIT_S=${CEPH_TEST_WAIT_S:-90}
cmd=${1:-}
DIR=${2:-}
[ -n "$cmd" ] && [ -n "$DIR" ] || {
	echo "usage: cluster.sh up|down|freeze|thaw DIR [IMAGE SIZE]..." >&2
	exit 2
}
CONF=$DIR/ceph.conf

say() { echo "cluster.sh: $*" >&2; }

# "PID STARTTIME" of a live process (field 22 of /proc/PID/stat, after the
# command name, which may hold spaces), else nothing
starttime() { sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null | awk '{print $20}'; }

# alive PID START: the same process, and not a zombie whose threads are gone
alive() {
	local st state
	st=$(starttime "$1") || return 1
	[ -n "$st" ] && [ "$st" = "$2" ] || return 1
	state=$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null | awk '{print $1}')
	[ "$state" != Z ] || [ "$(awk '/^Threads:/ {print $2}' "/proc/$1/status")" -gt 1 ]
}

# signal_daemon NAME SIG: only the process `up` started as NAME
signal_daemon() {
	local pid name st
	while read -r pid name st; do
		[ "$name" = "$1" ] || continue
		alive "$pid" "$st" && kill -"$2" "$pid" 2>/dev/null || true
	done <"$DIR/pids"
}

stop_daemon() {
	local pid name st i
	while read -r pid name st; do
		[ "$name" = "$1" ] || continue
		alive "$pid" "$st" || continue
		kill -CONT "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 100); do
			alive "$pid" "$st" || break
			sleep 0.2
		done
		if alive "$pid" "$st"; then
			say "$name (pid $pid) ignored SIGTERM for 20 s: SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
			for i in $(seq 1 50); do
				alive "$pid" "$st" || break
				sleep 0.2
			done
		fi
	done <"$DIR/pids"
}

down() {
	[ -f "$DIR/pids" ] || return 0
	stop_daemon osd.0
	stop_daemon mon.a
	rm -rf "$DIR/mon.a" "$DIR/osd.0" "$DIR/osd.0.block" "$DIR/run"
}

fail() {
	local f
	say "$*"
	for f in "$DIR"/log/mon.a.log "$DIR"/log/osd.0.log "$DIR"/log/*.out; do
		[ -s "$f" ] && { echo "---- $f (tail)" >&2; tail -n 20 "$f" >&2; }
	done
	down
	exit 1
}

# wait_until WHAT CMD...: bounded, and fails at once when a daemon died
wait_until() {
	local what=$1 end=$((SECONDS + WAIT_S)) pid name st
	shift
	until "$@" >/dev/null 2>&1; do
		((SECONDS < end)) || fail "no $what within $WAIT_S s"
		while read -r pid name st; do
			alive "$pid" "$st" || fail "$name (pid $pid) died"
		done <"$DIR/pids"
		sleep 0.3
	done
}

ceph_q() { timeout 20 ceph -c "$CONF" --connect-timeout 15 "$@"; }

port_free() { ! ss -Hltn "sport = :$1" | grep -q .; }

start() {
	local name=$1 pid
	shift
	"$@" -f >"$DIR/log/$name.out" 2>&1 </dev/null &
	pid=$!
	echo "$pid $name $(starttime "$pid")" >>"$DIR/pids"
}

up() {
	local port fsid uuid id
	for b in ceph ceph-mon ceph-osd monmaptool rbd uuidgen ss; do
		command -v "$b" >/dev/null || fail "$b is missing (scripts/deps.sh test)"
	done
	mkdir -p "$DIR"
	[ ! -e "$DIR/pids" ] || fail "$DIR already holds a cluster"
	mkdir -p "$DIR/log" "$DIR/run" "$DIR/crash" "$DIR/mon.a" "$DIR/osd.0"
	: >"$DIR/pids"
	port=3300
	until port_free "$port" && port_free $((port + 1)); do
		port=$((port + 2))
		((port < 3400)) || fail "no free port pair for the mon in 3300-3399"
	done
	fsid=$(uuidgen)
	cat >"$CONF" <<EOF
# written by tests/ceph/cluster.sh: a throw-away test cluster
[global]
fsid = $fsid
mon_host = [v2:127.0.0.1:$port,v1:127.0.0.1:$((port + 1))]
mon_initial_members = a
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_ipv6 = false
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 1
mon_data_avail_crit = 0
mon_warn_on_insecure_global_id_reclaim = false
mon_warn_on_insecure_global_id_reclaim_allowed = false
run_dir = $DIR/run
crash_dir = $DIR/crash
mon_cluster_log_file = default=$DIR/log/cluster.\$channel.log cluster=$DIR/log/cluster.log
log_file = $DIR/log/\$name.log

[mon]
mon_data = $DIR/\$name
# map changes every 0.1 s (not 1 s): the OSD's boot takes several epochs
paxos_propose_interval = 0.1
paxos_min_wait = 0.01

[osd]
osd_data = $DIR/\$name
osd_objectstore = bluestore
bluestore_block_path = $DIR/\$name.block
bluestore_block_create = true
bluestore_block_size = 4294967296
bluestore_cache_autotune = false
bluestore_cache_size = 134217728
osd_crush_initial_weight = 1
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
osd_client_watch_timeout = 10

[client]
log_file = $DIR/log/client.\$pid.log
EOF
	unset CEPH_ARGS
	monmaptool --create --fsid "$fsid" --addv a \
		"[v2:127.0.0.1:$port,v1:127.0.0.1:$((port + 1))]" "$DIR/monmap" >/dev/null
	timeout "$WAIT_S" ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" \
		>"$DIR/log/mon.mkfs.out" 2>&1 || fail "ceph-mon --mkfs failed"
	start mon.a ceph-mon -c "$CONF" -i a
	wait_until "mon quorum" ceph_q quorum_status
	uuid=$(uuidgen)
	id=$(ceph_q osd new "$uuid") || fail "ceph osd new failed"
	[ "$id" = 0 ] || fail "the OSD got id $id, not 0"
	timeout "$WAIT_S" ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$uuid" \
		>"$DIR/log/osd.mkfs.out" 2>&1 || fail "ceph-osd --mkfs failed"
	start osd.0 ceph-osd -c "$CONF" -i 0
	osd_in() { ceph_q osd stat -f json | grep -q '"num_up_osds":1,.*"num_in_osds":1,'; }
	wait_until "OSD up and in" osd_in
	ceph_q osd pool create rbd 8 8 replicated >/dev/null 2>&1 || fail "pool create failed"
	# pool init writes to the pool: it returns once the placement groups are active
	timeout "$WAIT_S" rbd -c "$CONF" pool init rbd || fail "rbd pool init failed"
	shift 2
	while [ $# -ge 2 ]; do
		timeout "$WAIT_S" rbd -c "$CONF" create --size "$2" "rbd/$1" ||
			fail "rbd create rbd/$1 failed"
		shift 2
	done
	echo "$CONF"
}

case $cmd in
up) up "$@" ;;
down) down ;;
freeze) signal_daemon osd.0 STOP ;;
thaw) signal_daemon osd.0 CONT ;;
*)
	echo "cluster.sh: unknown command $cmd" >&2
	exit 2
	;;
esac

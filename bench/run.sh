#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/run.sh [BUILD_DIR]: utargetd and tgtd side by side on loopback (see bench/README.md).
#
# Starts both targets on 127.0.0.1 with equal file LUNs, runs the same client against each in
# turn (A B A B ...) for every case, samples each target's CPU time (utime+stime from
# /proc/PID/stat) around every run, and prints a markdown table (also saved to
# bench/results/<date>.md, with the raw runs in <date>.tsv). Both daemons and the temporary
# files are removed on exit, whatever the exit path.
#
# Environment (defaults in brackets):
#   BENCH_SECONDS [10]       measured seconds per run (integer)
#   BENCH_WARMUP [2]         warm-up seconds per target and case (integer, not measured)
#   BENCH_ROUNDS [2]         rounds per target and case; the summary shows the median
#   BENCH_TARGETS ["utargetd tgtd"]  which targets, in run order (one alone: no ratios)
#   BENCH_CASES [all]        comma-separated case ids (see `BENCH_CASES=list`)
#   BENCH_LUN_MB [1024]      LUN size in MiB
#   BENCH_PREFILL [random]   random: pre-write pseudo-random data; zero: pre-write zeros;
#                            random4k: random, written in 4 KiB writes, so that the page
#                            cache holds the files in 4 KiB folios, as an initiator's 4K
#                            writes leave it (docs/performance.md, section 15: a 4K write
#                            into a larger folio costs ext4 more);
#                            sparse: leave the files sparse (reads of holes)
#   BENCH_BLOCK_SIZE [512]   logical block size of both LUNs (tgtd's default is 512)
#   BENCH_TMPDIR [/var/tmp]  where the LUN files and logs live during the run
#   BENCH_RESULTS [bench/results]
#   BENCH_UT_PORT [3500] BENCH_TGT_PORT [3501] BENCH_TGT_CONTROL_PORT [3519]
#   BENCH_UT_BACKSTORE [file] utargetd's LUN: file (the image file), file-loop (type file over
#                            a loop device of the image: the block device's page cache),
#                            block (type block, O_DIRECT, over that loop device) or plugin
#                            (type plugin: the example handler examples/backstore/exfile.c,
#                            BUILD/tests/integration/exfile.so, over the image file) or rbd
#                            (type rbd: an image of a throw-away one-node Ceph cluster,
#                            tests/ceph/cluster.sh, written in full by `rbd bench`; the
#                            report then adds `rbd bench` itself, librbd without iSCSI)
#                            or dedup (type dedup: a volume of a store in the work
#                            directory, filled with the prefilled image by qemu-img
#                            convert; the report then adds a 256 MiB image of which half
#                            the 4 KiB blocks repeat the other half written into a second
#                            store: its MB/s and the dedup ratio the store reports)
#                            or ram (type ram, filled from the image by qemu-img convert; tgtd
#                            keeps its file LUN in the page cache)
#   BENCH_TGT_BSTYPE [rdwr]  tgtd back-store type (rdwr or aio)
#   BENCH_TGT_THREADS []     tgtd -t (I/O threads); empty: tgtd's default
#   BENCH_KEEP [0]           1: keep the temporary directory (logs, config) for inspection
#   BENCH_FLOOR [1]          0: skip the kernel floor (bench/kernel_floor) after the cases
#   BENCH_PAGELOCK [1]       1: keep the LUN files in the page cache for the whole run
#                            (bench/pagelock: this VM's DAMON pageout drops page-cache pages
#                            left idle for about a minute); 0: leave them to the kernel. The
#                            report gives the share of each file cached at the end
#   UTARGETD, UT_LOAD        binaries (default BUILD_DIR/src/daemon/utargetd, .../bench/ut-load)
#   RAW_LOAD                 the raw initiator's load generator (BUILD_DIR/tests/tools/raw_load)
set -euo pipefail
export LC_ALL=C

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # ROOT, BUILD, log, die, need, stop_pid, port_in_use, cpu_ticks
BENCH_TAG=bench
bench_build_dir "${1:-}"

SECS=${BENCH_SECONDS:-10}
WARMUP=${BENCH_WARMUP:-2}
ROUNDS=${BENCH_ROUNDS:-2}
TARGETS=${BENCH_TARGETS:-"utargetd tgtd"}
CASES=${BENCH_CASES:-all}
LUN_MB=${BENCH_LUN_MB:-1024}
PREFILL=${BENCH_PREFILL:-random}
BLOCK_SIZE=${BENCH_BLOCK_SIZE:-512}
TMP_PARENT=${BENCH_TMPDIR:-/var/tmp}
RESULTS_DIR=${BENCH_RESULTS:-$ROOT/bench/results}
UT_PORT=${BENCH_UT_PORT:-3500}
TGT_PORT=${BENCH_TGT_PORT:-3501}
TGT_CTL=${BENCH_TGT_CONTROL_PORT:-3519}
PAGELOCK=${BENCH_PAGELOCK:-1}
PAGELOCK_PID=""
TGT_BSTYPE=${BENCH_TGT_BSTYPE:-rdwr}
UT_BACKSTORE=${BENCH_UT_BACKSTORE:-file}
UT_LOOP=""
case $UT_BACKSTORE in file | file-loop | block | plugin | rbd | dedup | ram) ;; *) echo "BENCH_UT_BACKSTORE: file, file-loop, block, plugin, rbd, dedup or ram" >&2; exit 2 ;; esac
UT_CEPH=""      # rbd: the cluster's directory
RBD_DIRECT=""   # rbd: what `rbd bench` measured
DEDUP_REPORT="" # dedup: the 50 % duplicate workload's figures
TGT_THREADS=${BENCH_TGT_THREADS:-}
KEEP=${BENCH_KEEP:-0}
UTARGETD=${UTARGETD:-$BUILD/src/daemon/utargetd}
UT_LOAD=${UT_LOAD:-$BUILD/bench/ut-load}
RAW_LOAD=${RAW_LOAD:-$BUILD/tests/tools/raw_load}

UT_IQN=iqn.2026-12.org.utarget:bench
TGT_IQN=iqn.2026-12.org.utarget:bench-tgt
INITIATOR=iqn.2026-12.org.utarget:bench-client
UT_LUN=0
TGT_LUN=1 # tgtd reserves LUN 0 for its controller device
NULL_LUN=2 # both: a null back-store (reads return zeroes, writes go nowhere)

# The cases: id | client | label | mode | pattern | size (bytes) | queue depth.
# Each case runs with one client, the same binary for both targets.
CASE_TABLE=(
	"randread-4k-qd32|ut-load|4K QD32 random read|read|rand|4096|32"
	"randread-4k-qd32|iscsi-perf|4K QD32 random read|read|rand|4096|32"
	"randwrite-4k-qd32|ut-load|4K QD32 random write|write|rand|4096|32"
	"seqread-4k-qd32|qemu-img|4K QD32 sequential read|read|seq|4096|32"
	"seqwrite-4k-qd32|qemu-img|4K QD32 sequential write|write|seq|4096|32"
	"randread-4k-qd32-hdigest|ut-load-hdigest|4K QD32 random read, HeaderDigest CRC32C|read|rand|4096|32"
	"randread-4k-qd32-raw|raw-load|4K QD32 random read, raw initiator|read|rand|4096|32"
	"randread-4k-qd32-digests|raw-load-digests|4K QD32 random read, raw initiator, HeaderDigest+DataDigest CRC32C|read|rand|4096|32"
	"randread-4k-2x16|ut-load-2s|4K random read, two sessions of QD16|read|rand|4096|16"
	"read-4k-qd1|ut-load|4K QD1 random read (latency)|read|rand|4096|1"
	"read-4k-qd1-null|ut-load-null|4K QD1 random read of a null LUN (floor)|read|rand|4096|1"
	"seqread-1m-qd8|qemu-img|1 MiB QD8 sequential read|read|seq|1048576|8"
	"seqwrite-1m-qd8|qemu-img|1 MiB QD8 sequential write|write|seq|1048576|8"
)

# ---------------------------------------------------------------- arguments

if [ "$CASES" = list ]; then
	for row in "${CASE_TABLE[@]}"; do
		IFS='|' read -r id client label _ <<<"$row"
		printf '%-20s %-11s %s\n' "$id" "$client" "$label"
	done
	exit 0
fi

for v in SECS WARMUP ROUNDS LUN_MB BLOCK_SIZE UT_PORT TGT_PORT TGT_CTL; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v=${!v}: not a non-negative integer"
done
[ "$SECS" -ge 1 ] || die "BENCH_SECONDS must be >= 1"
[ "$ROUNDS" -ge 1 ] || die "BENCH_ROUNDS must be >= 1"
[ "$LUN_MB" -ge 64 ] || die "BENCH_LUN_MB must be >= 64"
[ -z "$TGT_THREADS" ] || [[ $TGT_THREADS =~ ^[0-9]+$ ]] || die "BENCH_TGT_THREADS: not an integer"
case $BLOCK_SIZE in 512 | 4096) ;; *) die "BENCH_BLOCK_SIZE must be 512 or 4096" ;; esac
case $PREFILL in random | random4k | zero | sparse) ;; *) die "BENCH_PREFILL must be random, random4k, zero or sparse" ;; esac
case $TGT_BSTYPE in rdwr | aio) ;; *) die "BENCH_TGT_BSTYPE must be rdwr or aio" ;; esac
for t in $TARGETS; do
	case $t in utargetd | tgtd) ;; *) die "BENCH_TARGETS: unknown target '$t'" ;; esac
done

SELECTED=()
for row in "${CASE_TABLE[@]}"; do
	IFS='|' read -r id _ <<<"$row"
	if [ "$CASES" = all ] || [[ ",$CASES," == *",$id,"* ]]; then
		SELECTED+=("$row")
	fi
done
[ ${#SELECTED[@]} -gt 0 ] || die "BENCH_CASES=$CASES selects no case (BENCH_CASES=list shows them)"

need ss "apt-get install iproute2"
need iscsi-readcapacity16 "apt-get install libiscsi-bin"
for row in "${SELECTED[@]}"; do
	IFS='|' read -r _ client _ <<<"$row"
	case $client in
	ut-load | ut-load-hdigest | ut-load-null | ut-load-2s)
		[ -x "$UT_LOAD" ] || die "ut-load not built at $UT_LOAD (ninja -C $BUILD)"
		;;
	iscsi-perf) need iscsi-perf "apt-get install libiscsi-bin" ;;
	qemu-img) need qemu-img "apt-get install qemu-utils" ;;
	raw-load | raw-load-digests)
		[ -x "$RAW_LOAD" ] || die "raw_load not built at $RAW_LOAD (ninja -C $BUILD)"
		;;
	esac
done
[ "$PAGELOCK" != 1 ] || bench_need_bins "$BUILD/bench/pagelock"
need fincore "apt-get install util-linux"
for t in $TARGETS; do
	case $t in
	utargetd) [ -x "$UTARGETD" ] ||
		die "utargetd not built at $UTARGETD (make build), or run BENCH_TARGETS=tgtd" ;;
	tgtd)
		need tgtd "apt-get install tgt"
		need tgtadm "apt-get install tgt"
		;;
	esac
done

# Fail before writing any file when a port is taken.
for t in $TARGETS; do
	case $t in
	utargetd) port=$UT_PORT ;;
	tgtd) port=$TGT_PORT ;;
	esac
	! port_in_use "$port" ||
		die "TCP port $port for $t is in use (BENCH_UT_PORT / BENCH_TGT_PORT)"
	if [ "$t" = tgtd ] && tgtadm -C "$TGT_CTL" --op show --mode sys >/dev/null 2>&1; then
		die "a tgtd already answers on control port $TGT_CTL; stop it or set BENCH_TGT_CONTROL_PORT"
	fi
done

# ---------------------------------------------------------------- cleanup

WORK=""
UT_PID=""
TGT_PID=""

stop_tgtd() {
	local i
	[ -n "$TGT_PID" ] || return 0
	if kill -0 "$TGT_PID" 2>/dev/null; then
		# The orderly way first (as tgt's own service file does: the system cannot be
		# deleted while a target exists), then signals.
		tgtadm -C "$TGT_CTL" --lld iscsi --op delete --mode target --tid 1 --force \
			>/dev/null 2>&1 || true
		tgtadm -C "$TGT_CTL" --op delete --mode system >/dev/null 2>&1 || true
		for i in $(seq 30); do
			kill -0 "$TGT_PID" 2>/dev/null || break
			sleep 0.1
		done
		stop_pid "$TGT_PID" tgtd
	fi
	wait "$TGT_PID" 2>/dev/null || true
	TGT_PID=""
	# tgtd leaves its control socket and lock file behind; the control port is ours (no
	# tgtd answered on it at start).
	rm -f "/var/run/tgtd/socket.$TGT_CTL" "/var/run/tgtd/socket.$TGT_CTL.lock"
}

stop_utargetd() {
	[ -n "$UT_PID" ] || return 0
	stop_pid "$UT_PID" utargetd
	UT_PID=""
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	stop_utargetd
	stop_tgtd
	[ -z "$PAGELOCK_PID" ] || stop_pid "$PAGELOCK_PID" pagelock
	[ -z "$UT_LOOP" ] || losetup -d "$UT_LOOP" || true
	[ -z "$UT_CEPH" ] || "$ROOT/tests/ceph/cluster.sh" down "$UT_CEPH" || true
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		if [ "$KEEP" = 1 ]; then
			log "kept $WORK (LUN files removed)"
			rm -f "$WORK"/*.img
		else
			rm -rf "$WORK"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM HUP

# ---------------------------------------------------------------- helpers

# wait_listen pid name port log: until the port listens; die if the process exits or 15 s pass.
wait_listen() {
	local pid=$1 name=$2 port=$3 logf=$4 i
	for i in $(seq 150); do
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -n 20 "$logf" >&2 || true
			die "$name exited during start-up (log above, $logf)"
		fi
		port_in_use "$port" && return 0
		sleep 0.1
	done
	tail -n 20 "$logf" >&2 || true
	die "$name did not listen on 127.0.0.1:$port within 15 s (log above)"
}

alive() { # name pid log
	if ! kill -0 "$2" 2>/dev/null; then
		tail -n 20 "$3" >&2 || true
		die "$1 (pid $2) is gone (log above, $3)"
	fi
}

# "busy total" CPU ticks of the whole machine (all cores) from /proc/stat. busy counts
# user, nice, system and steal (time a hypervisor gave to someone else), not irq/softirq:
# the loopback network's softirq work of the run itself lands there, charged to no process.
host_ticks() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $9; print b, b + $5 + $6 + $7 + $8; exit }' /proc/stat
}

# CPU seconds (user+sys) used so far by this script's waited-for children (the clients),
# from the file `times` wrote. `times` itself must run in this shell, not in a subshell
# (a subshell has no children of its own yet): call `times >"$WORK/times"` first.
children_cpu() {
	awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
		print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$WORK/times"
}

kv() { # key line: the value of key=value in a client result line
	local k=$1 w words
	read -ra words <<<"$2"
	for w in "${words[@]}"; do
		case $w in "$k"=*) printf '%s' "${w#*=}" && return 0 ;; esac
	done
	return 1
}

url_of() { # target (URL_NULL=1: its null LUN)
	case $1 in
	utargetd) printf 'iscsi://127.0.0.1:%s/%s/%s' "$UT_PORT" "$UT_IQN" \
		"$([ -n "${URL_NULL:-}" ] && echo "$NULL_LUN" || echo "$UT_LUN")" ;;
	tgtd) printf 'iscsi://127.0.0.1:%s/%s/%s' "$TGT_PORT" "$TGT_IQN" \
		"$([ -n "${URL_NULL:-}" ] && echo "$NULL_LUN" || echo "$TGT_LUN")" ;;
	esac
}
pid_of() {
	case $1 in
	utargetd) printf '%s' "$UT_PID" ;;
	tgtd) printf '%s' "$TGT_PID" ;;
	esac
}
log_of() { printf '%s/%s.log' "$WORK" "$1"; }

# ---------------------------------------------------------------- LUN files

WORK=$(mktemp -d "$TMP_PARENT/utarget-bench.XXXXXX")
CLIENT_LOG=$WORK/clients.log
: >"$CLIENT_LOG"

prefill() { # file
	local f=$1 i
	case $PREFILL in
	sparse)
		truncate -s "${LUN_MB}M" "$f"
		;;
	zero)
		dd if=/dev/zero of="$f" bs=1M count="$LUN_MB" conv=fsync status=none
		;;
	random)
		# A 16 MiB block from /dev/urandom repeated: real, incompressible data written
		# in full (no holes) in a second rather than the ~8 s of a 1 GiB urandom read.
		[ -f "$WORK/random.blk" ] || head -c 16M /dev/urandom >"$WORK/random.blk"
		: >"$f"
		for ((i = 0; i < LUN_MB / 16; i++)); do
			cat "$WORK/random.blk"
		done >>"$f"
		if [ $((LUN_MB % 16)) -ne 0 ]; then
			head -c "$((LUN_MB % 16))M" "$WORK/random.blk" >>"$f"
		fi
		;;
	random4k)
		# the same bytes as random, each 4 KiB page written on its own: a buffered
		# write of 4 KiB makes a 4 KiB folio (cat's 128 KiB writes make larger ones)
		[ -f "$WORK/random.blk" ] || head -c 16M /dev/urandom >"$WORK/random.blk"
		for ((i = 0; i < LUN_MB / 16; i++)); do
			cat "$WORK/random.blk"
		done | dd of="$f" bs=4k iflag=fullblock status=none
		if [ $((LUN_MB % 16)) -ne 0 ]; then
			head -c "$((LUN_MB % 16))M" "$WORK/random.blk" |
				dd of="$f" bs=4k iflag=fullblock oflag=append conv=notrunc status=none
		fi
		;;
	esac
}

log "work directory $WORK; LUNs of $LUN_MB MiB, prefill=$PREFILL"
for t in $TARGETS; do
	prefill "$WORK/$t.img"
done
rm -f "$WORK/random.blk"
sync "$WORK"/*.img
# Both files were just written: their pages are in the page cache for both targets alike
# (24 GiB RAM on the reference machine). There they stay only while they are used: this
# VM's DAMON pageout drops pages idle for about a minute, so an idle LUN (while the other
# target runs) or one read at random at QD1 would meet the disk (bench/pagelock.c).
if [ "$PAGELOCK" = 1 ]; then
	bench_pagelock "$WORK/pagelock.log" "$WORK"/*.img
	log "$(cat "$WORK/pagelock.log") (bench/pagelock)"
else
	cat "$WORK"/*.img >/dev/null
fi

# ---------------------------------------------------------------- targets

start_tgtd() {
	local i
	port_in_use "$TGT_PORT" && die "TCP port $TGT_PORT is in use (set BENCH_TGT_PORT)"
	if tgtadm -C "$TGT_CTL" --op show --mode sys >/dev/null 2>&1; then
		die "a tgtd already answers on control port $TGT_CTL; stop it or set BENCH_TGT_CONTROL_PORT"
	fi
	# -f: foreground, so this script owns the process (and its pid) and can stop it.
	tgtd -f -C "$TGT_CTL" ${TGT_THREADS:+-t "$TGT_THREADS"} \
		--iscsi "portal=127.0.0.1:$TGT_PORT" >"$(log_of tgtd)" 2>&1 &
	TGT_PID=$!
	wait_listen "$TGT_PID" tgtd "$TGT_PORT" "$(log_of tgtd)"
	for i in $(seq 50); do
		tgtadm -C "$TGT_CTL" --op show --mode sys >/dev/null 2>&1 && break
		sleep 0.1
	done
	local A=(tgtadm -C "$TGT_CTL" --lld iscsi)
	"${A[@]}" --op new --mode target --tid 1 -T "$TGT_IQN" ||
		die "tgtadm: cannot create the target"
	"${A[@]}" --op new --mode logicalunit --tid 1 --lun "$TGT_LUN" -b "$WORK/tgtd.img" \
		-E "$TGT_BSTYPE" --blocksize "$BLOCK_SIZE" || die "tgtadm: cannot create the LUN"
	"${A[@]}" --op new --mode logicalunit --tid 1 --lun "$NULL_LUN" -b /dev/null -E null \
		--blocksize "$BLOCK_SIZE" || die "tgtadm: cannot create the null LUN"
	"${A[@]}" --op bind --mode target --tid 1 -I 127.0.0.1 ||
		die "tgtadm: cannot bind the target to 127.0.0.1"
	# tgtd's targets answer DataDigest=None unless told otherwise (HeaderDigest it grants):
	# the digest cases must get what they ask for from both targets; None stays allowed
	local k
	for k in HeaderDigest DataDigest; do
		"${A[@]}" --op update --mode target --tid 1 --name "$k" --value CRC32C,None ||
			die "tgtadm: cannot allow $k=CRC32C"
	done
	log "tgtd pid $TGT_PID on 127.0.0.1:$TGT_PORT (control port $TGT_CTL, bstype $TGT_BSTYPE)"
}

write_utargetd_config() { # file
	local type=file path=$WORK/utargetd.img medium
	if [ "$UT_BACKSTORE" = plugin ]; then
		[ -f "$BUILD/tests/integration/exfile.so" ] ||
			die "no $BUILD/tests/integration/exfile.so (a build with -Dtests=true)"
		type=plugin
	elif [ "$UT_BACKSTORE" = rbd ]; then
		UT_CEPH=$WORK/ceph
		UT_CEPH_CONF=$("$ROOT/tests/ceph/cluster.sh" up "$UT_CEPH" bench "${LUN_MB}M") ||
			die "the Ceph cluster did not start"
		# every object written, so that reads reach the OSD (librbd answers holes itself)
		rbd -c "$UT_CEPH_CONF" bench --io-type write --io-pattern seq --io-size 4M \
			--io-total "${LUN_MB}M" rbd/bench >"$(log_of rbd-fill)" 2>&1 ||
			die "rbd bench could not fill the image"
		type=rbd
		log "utargetd LUN: rbd/bench (${LUN_MB} MiB) on a one-node cluster ($UT_CEPH_CONF)"
	elif [ "$UT_BACKSTORE" = dedup ]; then
		type=dedup
		log "utargetd LUN: dedup volume in $WORK/dedup-store"
	elif [ "$UT_BACKSTORE" = ram ]; then
		type=ram
		log "utargetd LUN: ram, ${LUN_MB} MiB"
	elif [ "$UT_BACKSTORE" != file ]; then
		UT_LOOP=$(losetup -f --show --sector-size "$BLOCK_SIZE" "$path") ||
			die "losetup of $path failed"
		path=$UT_LOOP
		[ "$UT_BACKSTORE" = block ] && type=block
		log "utargetd LUN: $type over $UT_LOOP"
	fi
	medium="\"path\": \"$path\","
	[ "$type" = plugin ] &&
		medium="\"handler\": \"exfile\", \"options\": { \"path\": \"$path\", \"block\": \"$BLOCK_SIZE\" },"
	[ "$type" = rbd ] && medium="\"path\": \"rbd/bench\", \"options\": { \"conf\": \"$UT_CEPH_CONF\" },"
	[ "$type" = dedup ] && medium="\"path\": \"$WORK/dedup-store\", \"size\": \"${LUN_MB}M\","
	[ "$type" = ram ] && medium="\"size\": \"${LUN_MB}M\","
	local extra_bs="" extra_lun=""
	if [ "$type" = dedup ]; then
		# LUN 1: the 50 % duplicate workload's own store (after the cases)
		extra_bs=',
    { "name": "dedup50", "type": "dedup", "path": "'"$WORK"'/dedup50-store", "size": "256M",
      "block_size": '"$BLOCK_SIZE"', "write_cache": true }'
		extra_lun=', { "lun": 1, "backstore": "dedup50" }'
	fi
	cat >"$1" <<EOF
{
  "version": 1,
  "state_dir": "$WORK/utargetd-state",
  "log_level": "notice",
  "rpc_socket": "$WORK/utargetd.sock",
  "plugin_dir": "$BUILD/tests/integration",
  "backstores": [
    {
      "name": "bench0",
      "type": "$type",
      $medium
      "block_size": $BLOCK_SIZE,
      "thin": false,
      "write_cache": true
    }$extra_bs,
    { "name": "null0", "type": "null", "size": "${LUN_MB}M", "block_size": $BLOCK_SIZE }
  ],
  "targets": [
    {
      "name": "$UT_IQN",
      "portal_groups": [ { "tag": 1, "portals": [ "127.0.0.1:$UT_PORT" ] } ],
      "luns": [ { "lun": $UT_LUN, "backstore": "bench0" }$extra_lun,
                { "lun": $NULL_LUN, "backstore": "null0" } ],
      "demo_mode": { "enabled": true, "read_only": false }
    }
  ]
}
EOF
}

start_utargetd() {
	port_in_use "$UT_PORT" && die "TCP port $UT_PORT is in use (set BENCH_UT_PORT)"
	mkdir -p "$WORK/utargetd-state"
	write_utargetd_config "$WORK/utargetd.json"
	"$UTARGETD" -f -c "$WORK/utargetd.json" --listen "127.0.0.1:$UT_PORT" \
		>"$(log_of utargetd)" 2>&1 &
	UT_PID=$!
	wait_listen "$UT_PID" utargetd "$UT_PORT" "$(log_of utargetd)"
	log "utargetd pid $UT_PID on 127.0.0.1:$UT_PORT"
	if { [ "$UT_BACKSTORE" = dedup ] || [ "$UT_BACKSTORE" = ram ]; } && [ "$PREFILL" != sparse ] &&
		[ -z "${DEDUP_FILLED:-}" ]; then
		DEDUP_FILLED=1
		# the volume holds what the image file holds, as the file LUN would
		qemu-img convert -n -f raw -O raw "$WORK/utargetd.img" "$(url_of utargetd)" ||
			die "qemu-img could not fill the $UT_BACKSTORE LUN"
		log "$UT_BACKSTORE LUN filled from the $PREFILL image"
	fi
}

declare -A LUN_BLOCK LUN_BYTES
probe_lun() { # target
	local t=$1 out
	if ! out=$(iscsi-readcapacity16 -i "$INITIATOR" "$(url_of "$t")" 2>&1); then
		printf '%s\n' "$out" >&2
		tail -n 20 "$(log_of "$t")" >&2 || true
		die "$t does not serve its LUN at $(url_of "$t") (READ CAPACITY(16) failed)"
	fi
	LUN_BLOCK[$t]=$(printf '%s\n' "$out" | sed -n 's/^LOGICAL BLOCK LENGTH IN BYTES:\([0-9]*\)/\1/p')
	LUN_BYTES[$t]=$(printf '%s\n' "$out" | sed -n 's/^Total size:\([0-9]*\)/\1/p')
	if [ -z "${LUN_BLOCK[$t]}" ] || [ -z "${LUN_BYTES[$t]}" ]; then
		die "$t: cannot read block size and capacity from iscsi-readcapacity16"
	fi
	log "$t LUN: ${LUN_BYTES[$t]} bytes, block size ${LUN_BLOCK[$t]}"
}

for t in $TARGETS; do
	"start_$t"
done
for t in $TARGETS; do
	probe_lun "$t"
done
for t in $TARGETS; do
	[ "${LUN_BYTES[$t]}" = $((LUN_MB * 1048576)) ] ||
		die "$t LUN is ${LUN_BYTES[$t]} bytes, expected $((LUN_MB * 1048576))"
	[ "${LUN_BLOCK[$t]}" = "$BLOCK_SIZE" ] ||
		die "$t LUN block size is ${LUN_BLOCK[$t]}, expected $BLOCK_SIZE"
done

# ---------------------------------------------------------------- clients

# Each run_<client> prints one line "ios=N seconds=S [lat_mean_us=.. lat_p50_us=..
# lat_p99_us=..]" or returns non-zero with the reason in $CLIENT_LOG.
# Arguments: target mode pattern size qd seconds.

run_ut-load() {
	local out
	printf '\n== ut-load %s %s\n' "${UT_LOAD_OPTS[*]}" "$*" >>"$CLIENT_LOG"
	out=$("$UT_LOAD" "${UT_LOAD_OPTS[@]}" -m "$2" -p "$3" -s "$4" -q "$5" -t "$6" \
		-i "$INITIATOR" "$(url_of "$1")" 2>>"$CLIENT_LOG") || return 1
	printf '%s\n' "$out" >>"$CLIENT_LOG"
	printf '%s\n' "$out"
}
UT_LOAD_OPTS=()

# two ut-load sessions at once (two initiator names), QD each: their IOs summed over the
# longer of the two durations; no latency (two distributions)
run_ut-load-2s() {
	local k out ios=0 secs=0 pids=()
	printf '\n== ut-load x2 %s\n' "$*" >>"$CLIENT_LOG"
	for k in 1 2; do
		"$UT_LOAD" -m "$2" -p "$3" -s "$4" -q "$5" -t "$6" -i "$INITIATOR-s$k" \
			"$(url_of "$1")" >"$WORK/2s.$k" 2>>"$CLIENT_LOG" &
		pids+=($!)
	done
	for k in 0 1; do wait "${pids[$k]}" || return 1; done
	for k in 1 2; do
		out=$(cat "$WORK/2s.$k")
		printf '%s\n' "$out" >>"$CLIENT_LOG"
		ios=$((ios + $(kv ios "$out")))
		secs=$(awk -v a="$secs" -v b="$(kv seconds "$out")" 'BEGIN { print (b > a) ? b : a }')
	done
	printf 'ios=%s seconds=%s\n' "$ios" "$secs"
}

# the same against the target's null LUN: the client's and the target's own floor
run_ut-load-null() {
	local URL_NULL=1
	run_ut-load "$@"
}

# the same with HeaderDigest=CRC32C (libiscsi has no data digest)
run_ut-load-hdigest() {
	local UT_LOAD_OPTS=(-H)
	run_ut-load "$@"
}

# raw_load (tests/tools/raw_load.c): the project's raw initiator, for what libiscsi lacks, a
# data digest; random LBAs aligned to the size, one send() per PDU, digests checked.
run_raw-load() {
	local out port iqn lun
	[ "$3" = rand ] || return 1
	case $1 in
	utargetd) port=$UT_PORT iqn=$UT_IQN lun=$UT_LUN ;;
	tgtd) port=$TGT_PORT iqn=$TGT_IQN lun=$TGT_LUN ;;
	esac
	printf '\n== raw_load %s %s\n' "${RAW_LOAD_OPTS[*]}" "$*" >>"$CLIENT_LOG"
	out=$("$RAW_LOAD" "127.0.0.1:$port" "$iqn" "$INITIATOR" "${RAW_LOAD_OPTS[@]}" -m "$2" \
		-s "$4" -q "$5" -t "$6" -l "$lun" 2>>"$CLIENT_LOG") || return 1
	printf '%s\n' "$out" >>"$CLIENT_LOG"
	printf '%s\n' "$out"
}
RAW_LOAD_OPTS=()

# the same with HeaderDigest and DataDigest CRC32C, both required
run_raw-load-digests() {
	local RAW_LOAD_OPTS=(-H -D)
	run_raw-load "$@"
}

# iscsi-perf reads only; -t is whole seconds; it prints the average IOPS at the end.
# Its random LBAs are any block (not aligned to the transfer size).
run_iscsi-perf() {
	local out iops blocks=$(($4 / LUN_BLOCK[$1])) opt=()
	[ "$2" = read ] || return 1
	[ "$3" = rand ] && opt=(-r)
	printf '\n== iscsi-perf %s\n' "$*" >>"$CLIENT_LOG"
	out=$(iscsi-perf -i "$INITIATOR" -m "$5" -b "$blocks" "${opt[@]}" -t "$6" \
		"$(url_of "$1")" 2>&1 | tr '\r' '\n') || {
		printf '%s\n' "$out" >>"$CLIENT_LOG"
		return 1
	}
	printf '%s\n' "$out" | tail -n 4 >>"$CLIENT_LOG"
	iops=$(printf '%s\n' "$out" | sed -n 's/^iops average \([0-9][0-9]*\).*/\1/p' | tail -n 1)
	[ -n "$iops" ] || return 1
	printf 'ios=%s seconds=%s\n' "$((iops * $6))" "$6"
}

# qemu-img bench issues a fixed count of requests, sequentially (step = size) from offset 0,
# wrapping at the end; the count is derived from the rate of the warm-up (QEMU_RATE).
declare -A QEMU_RATE
qemu_once() { # target mode size qd count -> seconds
	local out secs opt=()
	[ "$2" = write ] && opt=(-w --pattern=165)
	printf '\n== qemu-img bench %s\n' "$*" >>"$CLIENT_LOG"
	out=$(qemu-img bench -f raw -t writeback -c "$5" -d "$4" -s "$3" -S "$3" "${opt[@]}" \
		"$(url_of "$1")" 2>&1) || {
		printf '%s\n' "$out" >>"$CLIENT_LOG"
		return 1
	}
	printf '%s\n' "$out" >>"$CLIENT_LOG"
	secs=$(printf '%s\n' "$out" | sed -n 's/^Run completed in \([0-9.]*\) seconds\./\1/p')
	[ -n "$secs" ] || return 1
	printf '%s' "$secs"
}

# count for a run of $2 seconds at the calibrated rate (at least 100 requests)
qemu_count() { awk -v r="${QEMU_RATE[$1]}" -v s="$2" 'BEGIN { c = int(r * s); print (c < 100) ? 100 : c }'; }

run_qemu-img() {
	local count secs
	count=$(qemu_count "$1/$2/$4/$5" "$6")
	secs=$(qemu_once "$1" "$2" "$4" "$5" "$count") || return 1
	printf 'ios=%s seconds=%s\n' "$count" "$secs"
}

# warm-up (and, for qemu-img, calibration of the request count): results are not kept
warmup() { # client target mode pattern size qd
	local client=$1 t=$2 key="$2/$3/$5/$6" probe secs
	shift
	if [ "$client" != qemu-img ]; then
		[ "$WARMUP" -eq 0 ] || "run_$client" "$@" "$WARMUP" >/dev/null
		return
	fi
	probe=$(($4 >= 1048576 ? 100 : 5000))
	secs=$(qemu_once "$t" "$2" "$4" "$5" "$probe") || return 1
	QEMU_RATE[$key]=$(awk -v c="$probe" -v s="$secs" 'BEGIN { print c / (s > 0.001 ? s : 0.001) }')
	if [ "$WARMUP" -gt 0 ]; then
		secs=$(qemu_once "$t" "$2" "$4" "$5" "$(qemu_count "$key" "$WARMUP")") || return 1
		QEMU_RATE[$key]=$(awk -v c="$(qemu_count "$key" "$WARMUP")" -v s="$secs" \
			'BEGIN { print c / (s > 0.001 ? s : 0.001) }')
	fi
}

# The command line of a case, for the report (URL: the target's LUN).
cmd_of() { # client mode pattern size qd
	case $1 in
	ut-load) printf 'ut-load -m %s -p %s -s %s -q %s -t %s URL' "$2" "$3" "$4" "$5" "$SECS" ;;
	ut-load-hdigest)
		printf 'ut-load -H -m %s -p %s -s %s -q %s -t %s URL' "$2" "$3" "$4" "$5" "$SECS"
		;;
	ut-load-null)
		printf 'ut-load -m %s -p %s -s %s -q %s -t %s NULL-LUN-URL' "$2" "$3" "$4" "$5" "$SECS"
		;;
	ut-load-2s)
		printf '2 x ut-load -m %s -p %s -s %s -q %s -t %s -i INITIATOR-sK URL (at once)' "$2" \
			"$3" "$4" "$5" "$SECS"
		;;
	raw-load | raw-load-digests)
		printf 'raw_load HOST:PORT TARGET INITIATOR%s -m %s -s %s -q %s -t %s -l LUN' \
			"$([ "$1" = raw-load-digests ] && echo ' -H -D')" "$2" "$4" "$5" "$SECS"
		;;
	iscsi-perf)
		printf 'iscsi-perf -m %s -b %s%s -t %s URL' "$5" "$(($4 / BLOCK_SIZE))" \
			"$([ "$3" = rand ] && echo ' -r')" "$SECS"
		;;
	qemu-img)
		printf 'qemu-img bench -f raw -t writeback -c COUNT -d %s -s %s -S %s%s URL' "$5" "$4" \
			"$4" "$([ "$2" = write ] && echo ' -w --pattern=165')"
		;;
	esac
}

# ---------------------------------------------------------------- runs

# The kernel's floor under a 4K QD32 random case: bench/kernel_floor, a minimal epoll server
# with no iSCSI answering a client that sends one PDU per system call as libiscsi does, with a
# pread/pwrite of 4 KiB on the same image file (bench/README.md), right after the case's runs
# (the file as the targets left it). Its server CPU per request is what the kernel alone
# charges a target for such a command on this machine.
FLOOR_REPORT="" FLOOR_read="" FLOOR_write=""
KFLOOR=$BUILD/bench/kernel_floor
kernel_floor_rounds() { # read|write
	local m=$1 img="" f r out med fcpu fiops fccpu
	local -a vals=() opt=()
	for f in "$WORK/utargetd.img" "$WORK/tgtd.img"; do
		if [ -f "$f" ]; then
			img=$f
			break
		fi
	done
	[ "${BENCH_FLOOR:-1}" = 1 ] && [ -x "$KFLOOR" ] && [ -n "$img" ] || return 0
	[ "$m" = write ] && opt=(--write)
	for ((r = 1; r <= ROUNDS; r++)); do
		sync "$WORK"/*.img
		out=$("$KFLOOR" -q 32 -s 4096 -t "$SECS" "${opt[@]}" -f "$img") ||
			die "bench/kernel_floor ($m) failed"
		log "  round $r kernel floor: $out"
		vals+=("$(kv server_cpu_us "$out") $(kv iops "$out") $(kv client_cpu_us "$out")")
	done
	# the median round by server CPU per request
	med=$(printf '%s\n' "${vals[@]}" | sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }')
	read -r fcpu fiops fccpu <<<"$med"
	printf -v "FLOOR_$m" '%s' "$fcpu"
	FLOOR_REPORT="$FLOOR_REPORT- kernel floor, 4K QD32 random $m (bench/kernel_floor on ${img##*/} right after the case, median of $ROUNDS runs of ${SECS} s): server CPU/IO $fcpu us at ${fiops%.*} IOPS, its client $fccpu us
"
}

STAMP=$(date +%Y%m%d-%H%M%S)
LOADAVG_START=$(cut -d ' ' -f 1-3 /proc/loadavg)
RUNS=$WORK/runs.tsv
printf 'case\tclient\ttarget\tround\tios\tseconds\tiops\tmbps\tlat_mean_us\tlat_p50_us\tlat_p99_us\tcpu_us_per_io\tothers_pct\tstatus\tclient_cpu_us_per_io\n' >"$RUNS"
FAILED=0
ntargets=$(wc -w <<<"$TARGETS")
est=$((${#SELECTED[@]} * ntargets * (ROUNDS * (SECS + 1) + WARMUP + 2)))
log "${#SELECTED[@]} cases x $ntargets targets x $ROUNDS rounds of ${SECS}s (+${WARMUP}s warm-up): about $((est / 60)) min $((est % 60)) s"

for row in "${SELECTED[@]}"; do
	IFS='|' read -r id client label mode pattern size qd <<<"$row"
	log "case $id ($label) with $client"
	for t in $TARGETS; do
		alive "$t" "$(pid_of "$t")" "$(log_of "$t")"
		warmup "$client" "$t" "$mode" "$pattern" "$size" "$qd" ||
			log "  warm-up of $t failed (see the run below and $CLIENT_LOG)"
	done
	for ((r = 1; r <= ROUNDS; r++)); do
		for t in $TARGETS; do
			pid=$(pid_of "$t")
			alive "$t" "$pid" "$(log_of "$t")"
			# No write-back debt from one target's run may slow the other's.
			sync "$WORK"/*.img
			c0=$(cpu_ticks "$pid")
			times >"$WORK/times"
			k0=$(children_cpu)
			read -r h0 t0 <<<"$(host_ticks)"
			if res=$("run_$client" "$t" "$mode" "$pattern" "$size" "$qd" "$SECS"); then
				status=ok
			else
				status=FAIL
				FAILED=$((FAILED + 1))
			fi
			alive "$t" "$pid" "$(log_of "$t")"
			c1=$(cpu_ticks "$pid")
			read -r h1 t1 <<<"$(host_ticks)"
			times >"$WORK/times"
			k1=$(children_cpu)
			# CPU used by anything but this target and the client, in % of all cores: a
			# busy neighbour on a shared machine shows here.
			others=$(awk -v hb=$((h1 - h0)) -v ht=$((t1 - t0)) -v tg=$((c1 - c0)) \
				-v k0="$k0" -v k1="$k1" -v hz="$CLK_TCK" 'BEGIN {
					o = hb - tg - (k1 - k0) * hz
					printf "%.0f", (ht > 0 && o > 0) ? o * 100 / ht : 0 }')
			if [ $status = ok ]; then
				ios=$(kv ios "$res")
				secs=$(kv seconds "$res")
				mean=$(kv lat_mean_us "$res" || echo -)
				p50=$(kv lat_p50_us "$res" || echo -)
				p99=$(kv lat_p99_us "$res" || echo -)
				# the client's CPU (the shell's children, `times`, in seconds) per IO
				line=$(awk -v n="$ios" -v s="$secs" -v sz="$size" -v dc=$((c1 - c0)) \
					-v hz="$CLK_TCK" -v k0="$k0" -v k1="$k1" 'BEGIN {
						iops = s > 0 ? n / s : 0
						cpu = n > 0 ? dc * 1e6 / hz / n : 0
						ccpu = n > 0 ? (k1 - k0) * 1e6 / n : 0
						printf "%.1f\t%.1f\t%.2f\t%.2f", iops, iops * sz / 1e6, cpu, ccpu }')
			else
				ios=0 secs=0 mean=- p50=- p99=- line=$(printf -- '-\t-\t-\t-')
			fi
			IFS=$'\t' read -r iops mbps cpu ccpu <<<"$line"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" \
				"$client" "$t" "$r" "$ios" "$secs" "$iops" "$mbps" "$mean" "$p50" "$p99" \
				"$cpu" "$others" "$status" "$ccpu" >>"$RUNS"
			log "  round $r $t: $status IOPS $iops MB/s $mbps lat mean/p99 $mean/$p99 us CPU/IO $cpu us, client $ccpu us (others ${others}%)"
		done
	done
	if [ "$client" = ut-load ] && [ "$qd" = 32 ] && [ "$pattern" = rand ] && [ "$size" = 4096 ]; then
		log "case $id: the kernel's floor (bench/kernel_floor)"
		kernel_floor_rounds "$mode"
	fi
done

# ---------------------------------------------------------------- report

stop_utargetd
stop_tgtd

# rbd: librbd by itself, the same 4K QD32 random reads and writes from
# `rbd bench` (one process: CPU/IO is the client's, librbd included)
if [ -n "$UT_CEPH" ]; then
	for t in read write; do
		ops=$((SECS * 10000))
		out=$( { /usr/bin/time -f 'cpu %U %S' rbd -c "$UT_CEPH_CONF" bench --io-type "$t" \
			--io-size 4K --io-threads 32 --io-pattern rand --io-total "$((ops * 4))K" \
			rbd/bench; } 2>&1) || die "rbd bench $t failed: $out"
		iops=$(echo "$out" | sed -n 's/.*ops\/sec: *\([0-9.]*\).*/\1/p' | tail -n 1)
		cpu=$(echo "$out" | awk '/^cpu / { printf "%.1f", ($2 + $3) * 1e6 / '"$ops"' }')
		RBD_DIRECT="$RBD_DIRECT- rbd bench (librbd directly) 4K QD32 random $t: ${iops%.*} IOPS, client CPU/IO $cpu us
"
		log "rbd bench 4K QD32 random $t: ${iops%.*} IOPS, client CPU/IO $cpu us"
	done
fi

# dedup: 256 MiB of which every odd 4 KiB block repeats the even one before
# it (50 % duplicates), written by qemu-img convert into LUN 1 (its own store)
if [ "$UT_BACKSTORE" = dedup ]; then
	start_utargetd
	python3 - "$WORK/dup50.img" <<'PY'
import os, sys
with open(sys.argv[1], "wb") as f:
    for _ in range(32768):
        b = os.urandom(4096)
        f.write(b + b)
PY
	t0=$(date +%s.%N)
	qemu-img convert -n -f raw -O raw -t writeback "$WORK/dup50.img" \
		"iscsi://127.0.0.1:$UT_PORT/$UT_IQN/1" || die "qemu-img convert of the 50 % image failed"
	t1=$(date +%s.%N)
	facts=$("$BUILD/src/cli/utarget" -s "$WORK/utargetd.sock" --json backstore show dedup50) ||
		die "utarget backstore show dedup50 failed"
	DEDUP_REPORT=$(python3 - "$facts" "$t0" "$t1" <<'PY'
import json, sys
m = json.loads(sys.argv[1])["medium"]
s = float(sys.argv[3]) - float(sys.argv[2])
print("- dedup, 256 MiB with 50 %% duplicate 4 KiB blocks (qemu-img convert into a fresh store): "
      "%.2f s, %.0f MB/s; store_unique_bytes %s of store_logical_bytes %s, dedup_ratio %s, "
      "chunks_deduplicated %s" % (s, 268435456 / s / 1e6, m["store_unique_bytes"],
                                  m["store_logical_bytes"], m["dedup_ratio"], m["chunks_deduplicated"]))
PY
)
	log "$DEDUP_REPORT"
	DEDUP_REPORT="$DEDUP_REPORT
"
	stop_utargetd
fi

# what is left of each LUN file in the page cache, for the report
HELD="left to the kernel (BENCH_PAGELOCK=0)"
[ "$PAGELOCK" != 1 ] || HELD="locked there for the run (bench/pagelock)"
CACHED=""
for f in "$WORK"/*.img; do
	[ -f "$f" ] || continue
	CACHED="$CACHED${CACHED:+, }${f##*/} $(bench_cached_pct "$f" || echo '?') %"
done

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/$STAMP.md
cp "$RUNS" "$RESULTS_DIR/$STAMP.tsv"

commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=""
if git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | grep -q .; then
	dirty=", working tree modified"
fi
buildtype=$(grep -o '"name": "buildtype", "value": "[a-z]*"' "$BUILD/meson-info/intro-buildoptions.json" 2>/dev/null | sed 's/.*"value": "//; s/"$//' || true)
ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }

{
	printf '# utarget bench: utargetd vs tgtd, %s\n\n' "$(date '+%Y-%m-%d %H:%M:%S %Z')"
	printf -- '- host: Linux %s, nproc %s, %s, %s MiB RAM; nothing pinned; load average %s at start\n' \
		"$(uname -r)" "$(nproc)" "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)" \
		"$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)" "$LOADAVG_START"
	printf -- '- utargetd: commit %s%s, build %s (%s), 127.0.0.1:%s LUN %s, %s back-store\n' \
		"$commit" "$dirty" "${BUILD#"$ROOT"/}" "${buildtype:-?}" "$UT_PORT" "$UT_LUN" \
		"$UT_BACKSTORE"
	printf -- '- tgtd: tgt %s, bstype %s, I/O threads %s, 127.0.0.1:%s LUN %s (control port %s)\n' \
		"$(ver tgt)" "$TGT_BSTYPE" "${TGT_THREADS:-default}" "$TGT_PORT" "$TGT_LUN" "$TGT_CTL"
	printf -- '- LUNs: %s MiB files in %s, block size %s, prefill %s' "$LUN_MB" "$TMP_PARENT" \
		"$BLOCK_SIZE" "$PREFILL"
	case $PREFILL in
	random) printf ' (every byte written with pseudo-random data, fsynced, in the page cache)\n' ;;
	random4k) printf ' (pseudo-random data written 4 KiB a write: 4 KiB folios in the page cache; fsynced)\n' ;;
	zero) printf ' (every byte written with zeros, fsynced, in the page cache)\n' ;;
	sparse) printf ' (holes: reads return zeros without touching data pages)\n' ;;
	esac
	printf -- '- page cache: the LUN files %s; cached at the end: %s\n' "$HELD" "$CACHED"
	printf -- '- clients: ut-load (bench/ut-load.c, libiscsi %s), iscsi-perf (libiscsi-bin %s), qemu-img %s\n' \
		"$(ver libiscsi7)" "$(ver libiscsi-bin)" "$(ver qemu-utils)"
	printf -- '- runs: %s s measured per run after %s s warm-up per target and case; %s rounds, order %s\n' \
		"$SECS" "$WARMUP" "$ROUNDS" \
		"$(for ((r = 1; r <= ROUNDS; r++)); do printf '%s ' "$TARGETS"; done | sed 's/ $//')"
	printf -- '- figures: median over rounds; MB/s = 10^6 B/s; latency from the client (ut-load;\n'
	printf '  raw_load: the mean only);\n'
	printf '  CPU/IO = target utime+stime delta over the run (/proc/PID/stat, %s Hz) / IOs, in us;\n' "$CLK_TCK"
	printf '  client CPU/IO = the same for the client processes (the shell'"'"'s `times`)\n'
	[ -z "$FLOOR_REPORT" ] || printf '%s' "$FLOOR_REPORT"
	[ -z "$RBD_DIRECT" ] || printf '%s' "$RBD_DIRECT"
	[ -z "$DEDUP_REPORT" ] || printf '%s' "$DEDUP_REPORT"
	printf '\n## Summary\n\n'
	printf '| case | client | metric | utargetd | tgtd | utargetd/tgtd | goal | verdict |\n'
	printf '|---|---|---|---:|---:|---:|---|---|\n'
	for row in "${SELECTED[@]}"; do
		IFS='|' read -r id client label mode pattern size qd <<<"$row"
		# issue 15's goals: IOPS x tgtd, target CPU/IO (us), MB/s (empty: none)
		gx="" gcpu="" gmb=""
		case $id in
		randread-4k-qd32) gx=5 gcpu=3 ;;
		randwrite-4k-qd32) gx=4 gcpu=4 ;;
		seqread-4k-qd32) gx=4 gcpu=3 ;;
		seqwrite-4k-qd32) gx=4 gcpu=4 ;;
		randread-4k-qd32-hdigest | randread-4k-2x16) gcpu=3 ;;
		seqread-1m-qd8) gmb=3000 ;;
		seqwrite-1m-qd8) gmb=2000 ;;
		esac
		awk -F '\t' -v id="$id" -v client="$client" -v label="$label" -v size="$size" \
			-v qd="$qd" -v gx="$gx" -v gcpu="$gcpu" -v gmb="$gmb" '
		function median(key,   n, i, j, t, a) {
			n = cnt[key]
			if (n == 0) return ""
			for (i = 1; i <= n; i++) a[i] = val[key, i]
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		function fmt(v, m) {
			if (v == "") return "-"
			if (m == "iops") return sprintf("%.0f", v)
			return v >= 100 ? sprintf("%.0f", v) : sprintf("%.2f", v)
		}
		function row(m, name, goal, verdict,   u, g, ratio) {
			u = median("utargetd" SUBSEP m); g = median("tgtd" SUBSEP m)
			ratio = (u != "" && g != "" && g > 0) ? sprintf("%.2fx", u / g) : "-"
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", first ? label : "", first ? client : "", name, fmt(u, m), fmt(g, m), ratio, goal, verdict
			first = 0
		}
		NR > 1 && $1 == id && $2 == client && $14 == "ok" {
			t = $3
			v["iops"] = $7; v["mbps"] = $8; v["mean"] = $9; v["p99"] = $11; v["cpu"] = $12
			v["ccpu"] = $15
			for (m in v)
				if (v[m] != "-") { cnt[t, m]++; val[t, m, cnt[t, m]] = v[m] }
			any = 1
		}
		NR > 1 && $1 == id && $2 == client && $14 != "ok" { failed[$3]++ }
		END {
			first = 1
			ui = median("utargetd" SUBSEP "iops"); gi = median("tgtd" SUBSEP "iops")
			uc = median("utargetd" SUBSEP "cpu"); um = median("utargetd" SUBSEP "mbps")
			ul = median("utargetd" SUBSEP "mean")
			goal = gx != "" ? ">= " gx "x tgtd" : ""
			verdict = gx == "" ? "" : (ui == "" || gi == "" || gi == 0) ? "n/a" : (ui >= gx * gi ? "met" : "missed")
			row("iops", "IOPS", goal, verdict)
			row("mbps", "MB/s", gmb != "" ? ">= " gmb : "", gmb == "" ? "" : um == "" ? "n/a" : (um >= gmb + 0 ? "met" : "missed"))
			if (cnt["utargetd" SUBSEP "mean"] || cnt["tgtd" SUBSEP "mean"]) {
				row("mean", "latency mean (us)", "", "")
				row("p99", "latency p99 (us)", "", "")
			}
			row("cpu", "target CPU/IO (us)", gcpu != "" ? "<= " gcpu : "", gcpu == "" ? "" : uc == "" ? "n/a" : (uc <= gcpu + 0 ? "met" : "missed"))
			row("ccpu", "client CPU/IO (us)", "", "")
			for (t in failed)
				printf "| | | %s: %d failed run(s) | | | | | FAIL |\n", t, failed[t]
		}' "$RUNS"
	done
	printf '\nutargetd/tgtd: above 1 is better for IOPS and MB/s, below 1 is better for latency and CPU/IO.\n'
	# issue 15's goals that compare two cases of utargetd's, and the kernel's floor
	awk -F '\t' -v fr="$FLOOR_read" -v fw="$FLOOR_write" '
	function median(key,   n, i, j, t, a) {
		n = cnt[key]
		if (n == 0) return ""
		for (i = 1; i <= n; i++) a[i] = val[key, i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	NR > 1 && $3 == "utargetd" && $14 == "ok" {
		k = $1 "/" $2
		cnt[k, "iops"]++; val[k, "iops", cnt[k, "iops"]] = $7
		if ($9 != "-") { cnt[k, "mean"]++; val[k, "mean", cnt[k, "mean"]] = $9 }
		cnt[k, "cpu"]++; val[k, "cpu", cnt[k, "cpu"]] = $12
	}
	END {
		a = median("randread-4k-qd32/ut-load" SUBSEP "iops"); b = median("randread-4k-qd32-hdigest/ut-load-hdigest" SUBSEP "iops")
		if (a != "" && b != "")
			printf "\nHeaderDigest CRC32C: %.1f %% fewer IOPS than without (goal <= 10 %%): %s\n", 100 * (a - b) / a, (a - b) <= 0.1 * a ? "met" : "missed"
		c = median("randread-4k-qd32-raw/raw-load" SUBSEP "iops"); d = median("randread-4k-qd32-digests/raw-load-digests" SUBSEP "iops")
		if (c != "" && d != "")
			printf "HeaderDigest+DataDigest CRC32C (raw_load): %.1f %% fewer IOPS than without (goal <= 10 %%): %s\n", 100 * (c - d) / c, (c - d) <= 0.1 * c ? "met" : "missed"
		f = median("read-4k-qd1/ut-load" SUBSEP "mean"); z = median("read-4k-qd1-null/ut-load-null" SUBSEP "mean")
		if (f != "" && z != "")
			printf "QD1 4K read: %.1f us mean, %.1f us on the null LUN (goal: within 10 us): %s\n", f, z, f - z <= 10 ? "met" : "missed"
		t = median("randread-4k-2x16/ut-load-2s" SUBSEP "iops")
		if (a != "" && t != "")
			printf "Two sessions of QD16: %.2fx the IOPS of one session of QD32\n", t / a
		r = median("randread-4k-qd32/ut-load" SUBSEP "cpu"); w = median("randwrite-4k-qd32/ut-load" SUBSEP "cpu")
		if (r != "" && fr != "")
			printf "Kernel floor, 4K QD32 random read: %.2f us target CPU/IO, utargetd %.2f (%+.2f us above it)\n", fr, r, r - fr
		if (w != "" && fw != "")
			printf "Kernel floor, 4K QD32 random write: %.2f us target CPU/IO, utargetd %.2f (%+.2f us above it)\n", fw, w, w - fw
	}' "$RUNS"
	printf '\n## Cases\n\n'
	printf 'URL: iscsi://127.0.0.1:%s/%s/%s (utargetd), iscsi://127.0.0.1:%s/%s/%s (tgtd).\n' \
		"$UT_PORT" "$UT_IQN" "$UT_LUN" "$TGT_PORT" "$TGT_IQN" "$TGT_LUN"
	printf 'COUNT (qemu-img): the rate of the warm-up against that target x %s s.\n\n' "$SECS"
	for row in "${SELECTED[@]}"; do
		IFS='|' read -r id client label mode pattern size qd <<<"$row"
		printf -- "- \`%s\` (%s): \`%s\`\n" "$id" "$label" \
			"$(cmd_of "$client" "$mode" "$pattern" "$size" "$qd")"
	done
	printf '\n## Runs\n\n'
	printf '| case | client | target | round | IOs | s | IOPS | MB/s | lat mean | p50 | p99 | CPU/IO | others %% | status | client CPU/IO |\n'
	printf '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n'
	awk -F '\t' 'NR > 1 { printf "| %s |", $1; for (i = 2; i <= 15; i++) printf " %s |", $i; printf "\n" }' "$RUNS"
	printf '\nLatency and CPU/IO in us (client CPU/IO: the client processes'"'"' CPU time per IO).\n'
	printf 'others %%: user+system+steal CPU time of the machine during\n'
	printf 'the run not charged to the target or the client, in %% of all %s cores: a high value\n' "$(nproc)"
	printf 'marks a run disturbed by another process (or VM) competing for the cores.\n'

	if [ "$FAILED" -gt 0 ]; then
		printf '\n%s run(s) failed; client output: see the clients log (BENCH_KEEP=1 keeps it).\n' "$FAILED"
	fi
} >"$REPORT"

cat "$REPORT"
log "report saved to $REPORT (raw runs: $RESULTS_DIR/$STAMP.tsv)"
if [ "$FAILED" -gt 0 ]; then
	tail -n 40 "$CLIENT_LOG" >&2 || true
	die "$FAILED run(s) failed"
fi

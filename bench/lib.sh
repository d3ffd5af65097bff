# shellcheck shell=bash disable=SC2034 # ROOT, BENCH_TAG, CLK_TCK: for the scripts
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/lib.sh: the set-up the bench scripts share (sourced, bash; the script sets
# `set -euo pipefail` itself). Sourcing defines functions only, and sets:
#   ROOT       the repository (the directory above bench/)
#   BENCH_TAG  the script's name without .sh, the prefix of its messages (a script may
#              set another after sourcing)
#   CLK_TCK    clock ticks per second, the unit of cpu_ticks
#
#   bench_build_dir [DIR]     BUILD: DIR (default build), under ROOT unless absolute
#   bench_need_bins FILE...   exit 2 with "TAG: build first: FILE" unless each is executable
#   need CMD HINT             die "CMD not found (HINT)" unless CMD is on the PATH
#   log MSG / die MSG         "[TAG hh:mm:ss] MSG" on stderr; die adds ERROR: and exits 1
#   bench_workdir NAME [PARENT]
#                             WORK: a new directory PARENT/NAME.XXXXXX (PARENT:
#                             BENCH_TMPDIR, default /var/tmp); PID="" and BENCH_PIDS=();
#                             an EXIT trap (bench_cleanup) that stops PID and every pid of
#                             BENCH_PIDS, then removes WORK (kept, and said so on stdout, when
#                             BENCH_KEEP_WORK=1)
#   stop_pid PID NAME         SIGTERM, up to 5 s, then SIGKILL (logged); reaps it
#   bench_start_utargetd CONFIG [ARGS...]
#                             UTARGETD -f -c CONFIG ARGS in the background, stdout and stderr
#                             to WORK/utargetd.log; sets PID; returns once the log says
#                             "utargetd ready" (listeners bound, control socket up: the
#                             config's log level must show notices), the daemon exited, or
#                             10 s passed (the script's next step then fails)
#   bench_ram_config FILE TARGET PORT ISCSI
#                             a utargetd config into FILE: state and control socket in WORK
#                             (WORK/state, WORK/utargetd.sock), the "iscsi" settings object
#                             ISCSI, a 64 MiB ram LUN 0 of TARGET on 127.0.0.1:PORT, demo mode
#   bench_file_null_config FILE TARGET PORT IMAGE ISCSI
#                             the same with LUN 0 the file back-store IMAGE (write cache
#                             on) and LUN 1 a 256 MiB null LUN, log level notice
#   bench_held_run OUT TENTHS CMD...
#                             CMD -H WORK/release in the background (a tests/tools initiator
#                             that holds its session after its run), output in OUT; once it
#                             printed ready or FAIL (at most TENTHS x 0.1 s),
#                             WORK/sessions.json from `UTARGET --json session list`, so the
#                             counters are read from the live session; then releases it and
#                             returns its exit status
#   bench_wait_line FILE ERE TENTHS
#                             until a line of FILE matches ERE, at most TENTHS x 0.1 s
#                             (returns 0 either way)
#   port_in_use PORT          true when something listens on TCP PORT
#   cpu_ticks PID             utime+stime of PID, all its threads live and
#                             exited, in clock ticks
#   bench_stamp               "YYYY-MM-DD hh:mm:ss TZ, commit HASH" for a report's header
#   bench_pagelock OUT FILE...
#                             BUILD/bench/pagelock FILE... in the background, its output in
#                             OUT, its pid PAGELOCK_PID, also added to BENCH_PIDS (stopped
#                             by bench_cleanup; run.sh stops it itself): the files'
#                             pages are read into the page cache and kept there, which this
#                             VM's DAMON pageout would otherwise drop from an idle LUN
#                             (bench/pagelock.c); dies unless it said "locked" within 60 s
#   bench_cached_pct FILE     the share of FILE's pages in the page cache, in percent
#   bench_median_row FILE LABEL CASE
#                             of the lines "CASE LABEL iops mean p99 cpu" of FILE, the
#                             markdown row "| LABEL | CASE | iops | mean | p99 | cpu |" of
#                             their medians (nothing when there are none)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_TAG=$(basename "$0" .sh)
CLK_TCK=$(getconf CLK_TCK)

bench_build_dir() {
	BUILD=${1:-build}
	case $BUILD in
	/*) ;;
	*) BUILD=$ROOT/$BUILD ;;
	esac
}

bench_need_bins() {
	local b
	for b in "$@"; do
		[ -x "$b" ] || { echo "$BENCH_TAG: build first: $b" >&2; exit 2; }
	done
}

log() { printf '[%s %s] %s\n' "$BENCH_TAG" "$(date +%T)" "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 1
}
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found ($2)"; }

bench_workdir() {
	WORK=$(mktemp -d "${2:-${BENCH_TMPDIR:-/var/tmp}}/$1.XXXXXX")
	PID=""
	BENCH_PIDS=()
	trap bench_cleanup EXIT
}

bench_cleanup() {
	local p
	for p in ${PID:+"$PID"} "${BENCH_PIDS[@]}"; do
		stop_pid "$p" "pid $p"
	done
	if [ "${BENCH_KEEP_WORK:-0}" = 1 ]; then
		echo "kept $WORK"
	else
		rm -rf "$WORK"
	fi
}

stop_pid() { # pid name
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "$2 (pid $pid) ignored SIGTERM; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
}

bench_start_utargetd() {
	local cfg=$1 _
	shift
	"$UTARGETD" -f -c "$cfg" "$@" >"$WORK/utargetd.log" 2>&1 &
	PID=$!
	for _ in $(seq 100); do
		grep -q "utargetd ready" "$WORK/utargetd.log" && return 0
		kill -0 "$PID" 2>/dev/null || return 0
		sleep 0.1
	done
}

bench_ram_config() {
	mkdir -p "$WORK/state"
	cat >"$1" <<JSON
{
  "version": 1,
  "state_dir": "$WORK/state",
  "rpc_socket": "$WORK/utargetd.sock",
  "iscsi": $4,
  "backstores": [ { "name": "d", "type": "ram", "size": "64M" } ],
  "targets": [
    { "name": "$2",
      "portal_groups": [ { "tag": 1, "portals": [ "127.0.0.1:$3" ] } ],
      "luns": [ { "lun": 0, "backstore": "d" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
}

bench_file_null_config() {
	mkdir -p "$WORK/state"
	cat >"$1" <<JSON
{
  "version": 1,
  "state_dir": "$WORK/state",
  "log_level": "notice",
  "rpc_socket": "$WORK/utargetd.sock",
  "iscsi": $5,
  "backstores": [
    { "name": "f0", "type": "file", "path": "$4", "write_cache": true },
    { "name": "n0", "type": "null", "size": "256M" }
  ],
  "targets": [
    { "name": "$2",
      "portal_groups": [ { "tag": 1, "portals": [ "127.0.0.1:$3" ] } ],
      "luns": [ { "lun": 0, "backstore": "f0" }, { "lun": 1, "backstore": "n0" } ],
      "demo_mode": { "enabled": true, "read_only": false } }
  ]
}
JSON
}

bench_held_run() {
	local out=$1 tenths=$2 pid rc=0
	shift 2
	"$@" -H "$WORK/release" >"$out" 2>&1 &
	pid=$!
	bench_wait_line "$out" '^(ready|FAIL)' "$tenths"
	"$UTARGET" -s "$WORK/utargetd.sock" --json session list >"$WORK/sessions.json"
	touch "$WORK/release"
	wait "$pid" || rc=$?
	return "$rc"
}

bench_wait_line() {
	local _
	for _ in $(seq "$3"); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 0
}

port_in_use() { [ -n "$(ss -Hltn "( sport = :$1 )" 2>/dev/null)" ]; }

# Fields 14 and 15 of /proc/PID/stat, counted after the ")" that ends the command name.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

bench_stamp() {
	echo "$(date '+%Y-%m-%d %H:%M:%S %Z'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
}

bench_median_row() {
	awk -v b="$2" -v c="$3" '$1 == c && $2 == b' "$1" |
		awk -v b="$2" -v c="$3" '
		{ n++; iops[n] = $3; mean[n] = $4; p99[n] = $5; cpu[n] = $6 }
		function med(a,   i, j, t, m) { m = n
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
		END { if (n) printf "| %s | %s | %d | %.1f | %.1f | %.2f |\n", b, c, med(iops),
			med(mean), med(p99), med(cpu) }'
}

bench_pagelock() {
	local out=$1 _
	shift
	bench_need_bins "$BUILD/bench/pagelock"
	"$BUILD/bench/pagelock" "$@" >"$out" 2>&1 &
	PAGELOCK_PID=$!
	BENCH_PIDS+=("$PAGELOCK_PID")
	for _ in $(seq 600); do
		grep -q '^locked' "$out" && return 0
		kill -0 "$PAGELOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	die "bench/pagelock could not lock $*: $(cat "$out")"
}

bench_cached_pct() {
	local res size
	res=$(fincore --bytes --noheadings --output RES "$1") || return 1
	size=$(stat -c %s "$1")
	awk -v r="$res" -v s="$size" 'BEGIN { printf "%.1f", s ? 100 * r / s : 100 }'
}

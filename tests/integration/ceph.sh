# ceph.sh: sourced by integration tests (after lib.sh's ut_init) that need
# a Ceph cluster: tests/ceph/cluster.sh in $UT_TMP/ceph, stopped before
# ut_cleanup removes $UT_TMP.
#   ut_ceph_start [IMAGE SIZE]...  the cluster, pool rbd and the images;
#                                  sets UT_CEPH_CONF
#   ut_ceph_freeze / ut_ceph_thaw  SIGSTOP / SIGCONT its OSD
#   ut_rbd ARG...                  the rbd CLI against it
UT_CEPH_SH=$(cd "$(dirname "${BASH_SOURCE[0]}")/../ceph" && pwd)/cluster.sh

ut_ceph_stop() {
	[ -n "${UT_CEPH_CONF:-}" ] && "$UT_CEPH_SH" down "$UT_TMP/ceph"
	UT_CEPH_CONF=
}

ut_ceph_start() {
	local t0=$SECONDS
	trap 'ut_ceph_stop; ut_cleanup' EXIT
	UT_CEPH_CONF=$("$UT_CEPH_SH" up "$UT_TMP/ceph" "$@") || ut_fail "the Ceph cluster did not start"
	echo "ceph: one mon, one OSD up in $((SECONDS - t0)) s ($UT_CEPH_CONF)"
}

ut_ceph_freeze() { "$UT_CEPH_SH" freeze "$UT_TMP/ceph"; }
ut_ceph_thaw() { "$UT_CEPH_SH" thaw "$UT_TMP/ceph"; }
ut_rbd() { timeout 60 rbd -c "$UT_CEPH_CONF" "$@"; }

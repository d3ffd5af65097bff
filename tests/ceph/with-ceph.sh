#!/bin/bash
# with-ceph.sh CMD [ARG...]: run CMD with CEPH_CONF set to a throw-away
# one-node Ceph cluster (cluster.sh) holding pool "rbd", started in a
# temporary directory and stopped (and removed) when CMD exits, whatever
# way it exits. CMD's exit status is the script's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/ut-ceph.XXXXXX") || exit 1
cleanup() {
	"$here/cluster.sh" down "$dir/c" || true
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t0=$SECONDS
CEPH_CONF=$("$here/cluster.sh" up "$dir/c") || exit 1
export CEPH_CONF
echo "with-ceph.sh: cluster up in $((SECONDS - t0)) s ($CEPH_CONF)" >&2
"$@"

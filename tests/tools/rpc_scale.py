#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rpc_scale.py SOCKET TARGET N [WINDOW]: create N LUNs through the control
API (tests/integration/rpc_scale.sh; issue 4: lookups O(1)/O(log n), flat
cost per LUN). Each LUN is one request, config.transaction {backstore.create
(null, 1 GiB) + lun.add}, acknowledged only once durable; WINDOW requests
are kept in flight on the connection (1: strictly one at a time; more lets
the daemon's group commit share one journal fsync). Prints
  luns=N total_s=T first100_s=A last100_s=B per_lun_us=U
and exits 1 on any error answer."""
import json
import socket
import sys
import time

path, target, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
window = int(sys.argv[4]) if len(sys.argv) > 4 else 1
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
f = s.makefile("rwb")


def req(i):
    name = "s%05d" % i
    return (json.dumps({"jsonrpc": "2.0", "id": i, "method": "config.transaction", "params": {
        "requests": [
            {"method": "backstore.create",
             "params": {"name": name, "type": "null", "size": "1G"}},
            {"method": "lun.add",
             "params": {"target": target, "lun": i, "backstore": name}}]}}) + "\n").encode()


done = [0.0] * n
t0 = time.monotonic()
sent = got = 0
while got < n:
    while sent < n and sent - got < window:
        f.write(req(sent))
        sent += 1
    f.flush()
    line = f.readline()
    if not line:
        print("connection closed after %d answers" % got)
        sys.exit(1)
    r = json.loads(line)
    if "error" in r:
        print("request %s failed: %s" % (r.get("id"), json.dumps(r["error"])))
        sys.exit(1)
    done[r["id"]] = time.monotonic()
    got += 1
total = done[n - 1] - t0
first = done[min(99, n - 1)] - t0
last = done[n - 1] - done[n - 101] if n > 100 else total
# time of each tenth (flat cost per LUN: the tenths take the same time)
tenths = []
for k in range(10):
    a = done[k * n // 10 - 1] if k else t0
    tenths.append("%.2f" % (done[(k + 1) * n // 10 - 1] - a))
print("luns=%d total_s=%.3f first100_s=%.3f last100_s=%.3f per_lun_us=%.0f window=%d "
      "tenths_s=%s" % (n, total, first, last, total / n * 1e6, window, ",".join(tenths)))

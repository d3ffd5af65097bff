#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rpc_crash.py: the client side of tests/integration/rpc_crash.sh.

Change k (k = 1, 2, ...) is one config.transaction on TARGET:
  LUN slot s = k % 64: the LUN there before (change k - 64) is unmapped and
  its back-store b<k-64> deleted; back-store b<k> (null) is created and
  mapped at s; the target's alias becomes "gen-<k>".
So the configuration after change K is fully determined by K.

  rpc_crash.py SOCKET TARGET burst K   changes K+1, K+2, ... one at a time,
                                       printing "acked <k>" (flushed) after
                                       each answer, until the daemon goes
  rpc_crash.py SOCKET TARGET check A   the running configuration must be
                                       the state after change A or A+1 (one
                                       may have been in flight, durable but
                                       not yet answered); prints its K
"""
import json
import socket
import sys

SLOTS = 64


def rpc(f, method, params):
    f.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) +
             "\n").encode())
    f.flush()
    line = f.readline()
    if not line:
        raise ConnectionError("closed")
    return json.loads(line)


def change(target, k):
    reqs = []
    if k > SLOTS:
        reqs.append({"method": "lun.delete", "params": {"target": target, "lun": k % SLOTS}})
        reqs.append({"method": "backstore.delete", "params": {"name": "b%d" % (k - SLOTS)}})
    reqs.append({"method": "backstore.create",
                 "params": {"name": "b%d" % k, "type": "null", "size": "1M"}})
    reqs.append({"method": "lun.add",
                 "params": {"target": target, "lun": k % SLOTS, "backstore": "b%d" % k}})
    reqs.append({"method": "target.set", "params": {"name": target, "alias": "gen-%d" % k}})
    return {"requests": reqs}


def expected(k):
    """(alias, {lun: backstore}, set of b* back-stores) after change k"""
    luns = {}
    for j in range(max(1, k - SLOTS + 1), k + 1):
        luns[j % SLOTS] = "b%d" % j
    return ("gen-%d" % k if k else None), luns, set(luns.values())


def main():
    path, target, mode, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    f = s.makefile("rwb")
    if mode == "burst":
        try:
            while True:
                k += 1
                r = rpc(f, "config.transaction", change(target, k))
                if "error" in r:
                    print("error at %d: %s" % (k, json.dumps(r["error"])), flush=True)
                    sys.exit(1)
                print("acked %d" % k, flush=True)
        except (ConnectionError, BrokenPipeError, ConnectionResetError):
            print("stopped while %d was in flight" % k, flush=True)
        return
    cfg = rpc(f, "config.get", {})["result"]
    t = [x for x in cfg["targets"] if x["name"] == target][0]
    alias = t.get("alias")
    got_k = int(alias.split("-")[1]) if alias else 0
    if got_k not in (k, k + 1):
        print("FAIL: the state is change %d; acknowledged: %d" % (got_k, k))
        sys.exit(1)
    want_alias, want_luns, want_bs = expected(got_k)
    luns = {l["lun"]: l["backstore"] for l in t.get("luns", [])}
    bs = {b["name"] for b in cfg["backstores"] if b["name"][0] == "b" and b["name"][1:].isdigit()}
    if alias != want_alias or luns != want_luns or bs != want_bs:
        print("FAIL: the state named change %d is not its state: alias %s luns %s bs %s" %
              (got_k, alias, sorted(luns.items())[:5], sorted(bs)[:5]))
        sys.exit(1)
    print(got_k)


if __name__ == "__main__":
    main()

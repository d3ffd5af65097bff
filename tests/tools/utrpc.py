#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""utrpc.py: a minimal JSON-RPC 2.0 client of utargetd's control socket for
the integration tests (docs/rpc.md: one JSON text per line each way).

  utrpc.py SOCKET METHOD [PARAMS-JSON]   one call: prints the result (JSON,
                                         sorted keys) and exits 0, or prints
                                         the error object and exits 3
  utrpc.py SOCKET --raw                  stdin sent as is, then every answer
                                         line printed until the daemon closes
Connection failures exit 2."""
import json
import socket
import sys


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError as e:
        print("cannot connect to %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    return s, s.makefile("rwb")


def call(f, method, params=None, id_=1):
    req = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}
    try:
        f.write((json.dumps(req) + "\n").encode())
        f.flush()
    except BrokenPipeError:
        pass  # refused: the daemon's one answer may still be there to read
    line = f.readline()
    if not line:
        print("connection closed", file=sys.stderr)
        sys.exit(2)
    return json.loads(line)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(1)
    s, f = connect(sys.argv[1])
    if sys.argv[2] == "--raw":
        # everything at once, then a half-close: the daemon answers what was
        # asked (notifications get nothing) and closes
        try:
            f.write(sys.stdin.buffer.read())
            f.flush()
            s.shutdown(socket.SHUT_WR)
        except BrokenPipeError:
            pass
        for ans in f:
            sys.stdout.write(ans.decode())
        return
    params = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    r = call(f, sys.argv[2], params)
    if "error" in r:
        print(json.dumps(r["error"], sort_keys=True))
        sys.exit(3)
    print(json.dumps(r.get("result"), sort_keys=True))


if __name__ == "__main__":
    main()

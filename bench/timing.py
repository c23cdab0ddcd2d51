#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Side-by-side timing for bench/run: commands alternate, so background
load on a shared machine hits every compared command alike.

  timing.py alt OUT.json RUNS WARMUP CMD...
      run the CMDs (shell words, no shell) round-robin RUNS times after
      WARMUP rounds; each round starts with the next command, so no
      command always runs first.  Wall time of each run, in seconds.
  timing.py burst OUT.json ROUNDS N MAPFILE-A MAPFILE-B -- SSH-PREFIX...
      ROUNDS times (order A B B A ...): N logins at once, the i-th as the
      user on line i % len of MAPFILE ("user expected-hostname"), running
      `hostname`; wall time of each burst, failed and misrouted counts.
  timing.py serve PORT SIZE
      on 127.0.0.1:PORT, for ever: a client that sends "l" gets one byte,
      one that sends "t" gets SIZE bytes; then the connection is closed.
  timing.py fwd OUT.json ROUNDS N SIZE PORT-A PORT-B
      through two local forwards to such servers, ROUNDS rounds, each
      starting with the other port: SIZE bytes read (throughput, MB/s),
      and N connections that each wait for their one byte (latency, ms).
  timing.py fwdstat JSON          medians: throughput A B, latency A B,
      and the paired ratios A/B of both
  timing.py stat JSON INDEX       median, p25, p75, stddev (ms), n, failed
  timing.py pairs JSON I J        median of the run-by-run ratios I/J
      (runs of the same round ran next to each other, under the same load)
"""
import json
import os
import shlex
import socket
import socketserver
import statistics
import subprocess
import sys
import time


def run_once(argv):
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, p.returncode


def alt(out, runs, warmup, cmds):
    argvs = [shlex.split(c) for c in cmds]
    k = len(argvs)
    times = [[] for _ in argvs]
    fails = [0] * k
    for r in range(warmup + runs):
        for j in range(k):
            i = (r + j) % k
            t, rc = run_once(argvs[i])
            if r >= warmup:
                times[i].append(t)
                fails[i] += rc != 0
    json.dump({"results": [{"command": c, "times": t, "failed": f}
                           for c, t, f in zip(cmds, times, fails)]},
              open(out, "w"))


def burst_once(prefix, users, n):
    procs = []
    t0 = time.perf_counter()
    for i in range(n):
        user, want = users[i % len(users)]
        p = subprocess.Popen(prefix + [user + "@127.0.0.1", "hostname"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        procs.append((p, want))
    failed = misrouted = 0
    for p, want in procs:
        got = p.stdout.read().decode(errors="replace").strip()
        rc = p.wait()
        if rc != 0:
            failed += 1
        elif got != want:
            misrouted += 1
    return time.perf_counter() - t0, failed, misrouted


def burst(out, rounds, n, fa, fb, prefix):
    maps = [[l.split() for l in open(f) if l.strip()] for f in (fa, fb)]
    res = [{"times": [], "failed": 0, "misrouted": 0} for _ in maps]
    for r in range(rounds):
        which = [0, 1, 1, 0][r % 4]
        t, f, m = burst_once(prefix, maps[which], n)
        res[which]["times"].append(t)
        res[which]["failed"] += f
        res[which]["misrouted"] += m
    json.dump({"n": n, "results": res}, open(out, "w"))


def stat(path, index):
    r = json.load(open(path))["results"][index]
    t = sorted(x * 1000 for x in r["times"])
    q = statistics.quantiles(t, n=4) if len(t) > 1 else [t[0]] * 3
    sd = statistics.pstdev(t) if len(t) > 1 else 0.0
    print("%.3f %.3f %.3f %.3f %d %d" % (statistics.median(t), q[0], q[2],
                                         sd, len(t), r.get("failed", 0)))


def pairs(path, i, j):
    r = json.load(open(path))["results"]
    print("%.3f" % statistics.median(a / b for a, b in zip(r[i]["times"],
                                                          r[j]["times"])))


class Serve(socketserver.BaseRequestHandler):
    size = 0

    def handle(self):
        what = self.request.recv(1)
        if what == b"l":
            self.request.sendall(b"x")
        elif what == b"t":
            chunk = b"\0" * 65536
            left = self.size
            while left > 0:
                n = min(left, len(chunk))
                self.request.sendall(chunk[:n])
                left -= n


def serve(port, size):
    Serve.size = size
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer(("127.0.0.1", port), Serve) as s:
        s.serve_forever()


def ask(port, what, size):
    """One connection through a forward: seconds until SIZE bytes came."""
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as c:
        c.sendall(what)
        got = 0
        while got < size:
            b = c.recv(1 << 20)
            if not b:
                break
            got += len(b)
    if got < size:
        raise OSError("short read: %d of %d bytes" % (got, size))
    return time.perf_counter() - t0


def fwd(out, rounds, n, size, ports):
    thr = [[], []]
    lat = [[], []]
    for r in range(rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for j in order:
            thr[j].append(size / ask(ports[j], b"t", size) / 1e6)
        for _ in range(n):
            for j in order:
                lat[j].append(ask(ports[j], b"l", 1) * 1000)
    json.dump({"throughput": thr, "latency": lat}, open(out, "w"))


def fwdstat(path):
    d = json.load(open(path))
    t, l = d["throughput"], d["latency"]
    med = statistics.median
    print("%.1f %.1f %.3f %.3f %.3f %.3f" % (
        med(t[0]), med(t[1]), med(l[0]), med(l[1]),
        med(a / b for a, b in zip(t[0], t[1])),
        med(a / b for a, b in zip(l[0], l[1]))))


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "alt":
        alt(a[2], int(a[3]), int(a[4]), a[5:])
    elif a[1] == "burst":
        i = a.index("--")
        burst(a[2], int(a[3]), int(a[4]), a[5], a[6], a[i + 1:])
    elif a[1] == "stat":
        stat(a[2], int(a[3]))
    elif a[1] == "serve":
        serve(int(a[2]), int(a[3]))
    elif a[1] == "fwd":
        fwd(a[2], int(a[3]), int(a[4]), int(a[5]), (int(a[6]), int(a[7])))
    elif a[1] == "fwdstat":
        fwdstat(a[2])
    elif a[1] == "pairs":
        pairs(a[2], int(a[3]), int(a[4]))
    else:
        sys.exit(__doc__)

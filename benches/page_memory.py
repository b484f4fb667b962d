#!/usr/bin/env python3
"""The page cache under distinct query strings (issue 52): how far one client moves the
server's resident memory.

    cargo build --release
    python3 benches/page_memory.py [target/release/spades-im] [--requests N] [-- SERVER FLAGS]

Generates a season (64 teams, 2,000 matches, 30,000 hands) with `spades-im generate` in a
temporary folder, serves it (default `--page-cache-mb 64`, or the flags after `--`), asks
each public page once, then sends 10,000 GETs on one keep-alive connection, one at a time,
no two with the same query string: most add a parameter no page reads (`?x=N`, the attack
of issue 52, on the matches list among others), some ask real pages no one asked before (a
match page, a week of the schedule, a page of matches `?limit=L&after=ID`: a copy each).
Prints the server's VmRSS and VmHWM (/proc/PID/status) before and at checkpoints.
`--requests 40` stops early (a build without the bound grows by the whole matches list, 20 MB,
at each of them). Figures only: nothing here fails.
"""

import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time

CHECKPOINTS = {10, 20, 40, 100, 1000, 2500, 5000, 10_000}


def target(i):
    """The i-th path asked: a public page, a query string not sent before."""
    m = 1 + i % 2000
    kind = i % 20
    if kind <= 5:
        return f"/api/v1/leagues/bench/matches?x={i}"
    return {
        6: f"/leagues/bench/standings?x={i}",
        7: f"/api/v1/leagues/bench/standings?x={i}",
        8: f"/leagues/bench/schedule?week=all&x={i}",
        9: f"/scoreboard?x={i}",
        10: f"/matches/{m}?x={i}",
        11: f"/matches/{m}?x={i}",
        12: f"/leagues/bench/teams/{1 + i % 64}?x={i}",
        13: f"/api/v1/leagues?x={i}",
        14: f"/leagues/bench?x={i}",
        # Real pages, each a copy of its own.
        15: f"/api/v1/leagues/bench/matches?limit={100 + i % 400}&after={m}&x={i}",
        16: f"/leagues/bench/schedule?week=2026-{1 + i % 12:02}-{1 + i % 28:02}&x={i}",
    }.get(kind, f"/api/v1/matches/{m}?y={i}")


def memory(pid):
    """VmRSS and VmHWM of process pid, in MiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, rest = line.partition(":")
            fields[name] = rest.split()[0] if rest.split() else "0"
    return int(fields["VmRSS"]) / 1024, int(fields["VmHWM"]) / 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    args = sys.argv[1:]
    flags = args[args.index("--") + 1 :] if "--" in args else []
    args = args[: args.index("--")] if "--" in args else args
    requests = 10_000
    if "--requests" in args:
        requests = int(args[args.index("--requests") + 1])
        del args[args.index("--requests") : args.index("--requests") + 2]
    binary = args[0] if args else "target/release/spades-im"
    folder = tempfile.mkdtemp()
    db = os.path.join(folder, "memory.sqlite3")
    env = dict(os.environ, SPADES_LOG="warn")
    made = subprocess.run([binary, "--db", db, "generate"], env=env, check=True,
                          capture_output=True, text=True)
    print("season:", made.stdout.strip().splitlines()[-1])
    port = free_port()
    server = subprocess.Popen([binary, "--db", db, "--bind", f"127.0.0.1:{port}", *flags,
                               "serve"], env=env, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        run(server.pid, port, requests)
    finally:
        server.kill()


def run(pid, port, requests):
    conn = http.client.HTTPConnection("127.0.0.1", port)

    def get(path):
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, len(answer.read())

    for path in ["/api/v1/leagues/bench/matches", "/leagues/bench/schedule?week=all"]:
        status, size = get(path)
        print(f"{path}: {status}, {size / 1e6:.1f} MB")
    for i in range(20):
        get(target(i).split("?")[0])
    rss, hwm = memory(pid)
    print("\n| requests | seconds | VmRSS MiB | VmHWM MiB | non-200 |\n|---|---|---|---|---|")
    print(f"| 0 (each page once) | 0 | {rss:.0f} | {hwm:.0f} | 0 |")
    started, refused = time.monotonic(), 0
    for i in range(requests):
        if get(target(i))[0] != 200:
            refused += 1
        if i + 1 in CHECKPOINTS or i + 1 == requests:
            rss, hwm = memory(pid)
            took = time.monotonic() - started
            print(f"| {i + 1} | {took:.0f} | {rss:.0f} | {hwm:.0f} | {refused} |", flush=True)


if __name__ == "__main__":
    main()

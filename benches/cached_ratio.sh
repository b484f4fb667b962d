#!/bin/bash
# Cached public reads against /healthz at 64 connections (issue 52), on a generated season:
#   spades-im --db s.sqlite3 generate; benches/cached_ratio.sh target/release/spades-im s.sqlite3 7411 3
# Needs wrk. Prints req/s of /healthz, then of each page (asked once first, so the copy answers)
# and its ratio to /healthz.
BIN=$1; DB=$2; PORT=$3; SECS=${4:-5}
SPADES_LOG=warn $BIN --db $DB --bind 127.0.0.1:$PORT serve >/dev/null 2>&1 &
PID=$!
sleep 2
base=http://127.0.0.1:$PORT
for p in /healthz /matches/10 /leagues/bench/standings /scoreboard /leagues/bench/bracket /api/v1/leagues/bench/standings /leagues/bench /leagues/bench/schedule /api/v1/leagues/bench/matches?limit=20 /api/v1/matches/10; do curl -s -o /dev/null $base$p; done
h=$(wrk -t2 -c64 -d${SECS}s $base/healthz | awk '/Requests\/sec/ {print $2}')
echo "healthz $h"
for p in /matches/10 /leagues/bench/standings /scoreboard /leagues/bench/bracket /api/v1/leagues/bench/standings /leagues/bench /leagues/bench/schedule "/api/v1/leagues/bench/matches?limit=20" /api/v1/matches/10; do
  r=$(wrk -t2 -c64 -d${SECS}s "$base$p" | awk '/Requests\/sec/ {print $2}')
  echo "$p $r $(python3 -c "print(round(100*$r/$h))")%"
done
kill $PID

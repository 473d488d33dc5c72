#!/bin/bash
# The cost of ACL key checks in search replies (BENCHMARKS.md, "ACL"): FT.SEARCH ... LIMIT 0 10
# over 10,000 hashes (a:0, b:1, a:2, ...) as the default user, a `~*` user and a `~a:* ~i` user,
# server time per call from INFO commandstats (redis-benchmark, 1000 calls, 2 clients, 5 rounds
# interleaved). Run it once with a build to measure and once with a build without the check (an
# older commit) to get the ratio.
#
# usage: benches/search_acl.sh <libfolio.so> [port] [label]
set -eu
SO=${1:?libfolio.so}
P=${2:-7390}
L=${3:-folio}
redis-server --port "$P" --bind 127.0.0.1 --save '' --daemonize yes \
  --pidfile "/tmp/folio-acl-bench-$P.pid" --logfile "/tmp/folio-acl-bench-$P.log" --loadmodule "$SO"
trap 'redis-cli -p "$P" shutdown nosave >/dev/null 2>&1 || true' EXIT
sleep 1
C="redis-cli -p $P"
$C FT.CREATE i PREFIX 2 a: b: SCHEMA t TEXT n NUMERIC SORTABLE >/dev/null
python3 - <<'PY' | $C --pipe >/dev/null
import sys
out = []
for i in range(10000):
    k = ("a:%d" if i % 2 == 0 else "b:%d") % i
    t = "hello word%d filler text for the document number %d" % (i % 100, i)
    args = ["HSET", k, "t", t, "n", str(i)]
    out.append("*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a.encode()), a) for a in args))
sys.stdout.write("".join(out))
PY
$C ACL SETUSER all on '>pw' '~*' '+@all' >/dev/null
$C ACL SETUSER some on '>pw' '~a:*' '~i' '+@all' >/dev/null
# hello: 10,000 hits (5,000 readable by `some`); word8: 100 hits, all a: keys.
for q in hello word8; do
  for round in 1 2 3 4 5; do
    for who in default all some; do
      if [ "$who" = default ]; then A=""; else A="--user $who -a pw"; fi
      $C CONFIG RESETSTAT >/dev/null
      # shellcheck disable=SC2086
      redis-benchmark -p "$P" $A -n 1000 -c 2 -q FT.SEARCH i "$q" LIMIT 0 10 >/dev/null 2>&1
      u=$($C INFO commandstats | grep -i 'cmdstat_ft.search:' | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')
      echo "$L $q $who $round $u"
    done
  done
done

#!/usr/bin/env bash
# FT.SEARCH / FT.AGGREGATE latency on a local 3-master cluster of folio vs one folio server
# holding the same 10,000 documents: p50 of `redis-benchmark -c 1` (one client, sequential),
# per query shape, and the ratio. Usage: benches/cluster_latency.sh [PORT] [REQUESTS]
# (ports PORT..PORT+5 for the cluster, PORT+10 for the single server).
set -euo pipefail
PORT=${1:-7700}
N=${2:-3000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODULE=$ROOT/target/release/libfolio.so
SINGLE=$((PORT + 10))
make -C "$ROOT" --no-print-directory cluster PORT="$PORT" >/dev/null
redis-server --port "$SINGLE" --save '' --daemonize yes --loadmodule "$MODULE" --logfile "$ROOT/target/cluster/single-$SINGLE.log"
trap 'make -C "$ROOT" --no-print-directory cluster-stop PORT=$PORT; redis-cli -p $SINGLE shutdown nosave >/dev/null 2>&1 || true' EXIT
until redis-cli -p "$SINGLE" ping >/dev/null 2>&1; do sleep 0.1; done
DOCS=$(mktemp)
python3 - > "$DOCS" <<'PY'
import random
random.seed(7)
words = [a + b + c for a in "bdfgklmnprst" for b in "aeiou" for c in "bdfgklmnprst"][:600]
for i in range(10000):
    t = " ".join(random.choice(words[:80]) for _ in range(random.randint(3, 8)))
    b = " ".join(random.choice(words) for _ in range(random.randint(10, 30)))
    print(f'HSET doc:{i} title "{t}" body "{b}" tag t{random.randint(0, 19)} n {random.randint(0, 999)}')
PY
SCHEMA="FT.CREATE idx ON HASH PREFIX 1 doc: SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG n NUMERIC SORTABLE"
redis-cli -p "$SINGLE" $SCHEMA >/dev/null
redis-cli -p "$PORT" $SCHEMA >/dev/null
redis-cli -p "$SINGLE" < "$DOCS" >/dev/null
redis-cli -c -p "$PORT" < "$DOCS" >/dev/null
rm -f "$DOCS"
p50() { redis-benchmark -p "$1" -n "$N" -c 1 "${@:2}" 2>/dev/null | grep -A2 "latency summary" | tail -1 | awk '{print $3}'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-58s %10s %10s %7s\n' shape "single ms" "cluster ms" ratio
while IFS='|' read -r name rest; do
  IFS=$'\t' read -ra args <<< "$rest"
  s=$(p50 "$SINGLE" "${args[@]}")
  c=$(p50 $((PORT + 1)) "${args[@]}")
  printf '%-58s %10s %10s %7.1f\n' "$name" "$s" "$c" "$(echo "$c / $s" | bc -l)"
done <<'SHAPES'
text, scored, 10 results with content|FT.SEARCH	idx	ban	LIMIT	0	10
tag + numeric, SORTBY n, 10 results|FT.SEARCH	idx	@tag:{t3} @n:[100 400]	SORTBY	n	LIMIT	0	10
numeric range, count only (LIMIT 0 0)|FT.SEARCH	idx	@n:[0 250]	LIMIT	0	0
FT.AGGREGATE tag filter, GROUPBY @n, COUNT|FT.AGGREGATE	idx	@tag:{t3}	GROUPBY	1	@n	REDUCE	COUNT	0	AS	c
FT.AGGREGATE *, GROUPBY @tag, COUNT, AVG, QUANTILE|FT.AGGREGATE	idx	*	GROUPBY	1	@tag	REDUCE	COUNT	0	AS	c	REDUCE	AVG	1	@n	AS	a	REDUCE	QUANTILE	2	@n	0.5	AS	q
SHAPES

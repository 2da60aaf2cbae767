#!/usr/bin/env bash
# Debian's PostgreSQL in a folder of its own, on a port of its own, for the store's and the cluster's checks:
#   Interop/postgres.sh start DIR PORT   initdb (once) and start; prints the address of database apnsim for user apnsim
#   Interop/postgres.sh stop DIR         stop it (fast: connections are closed)
#   Interop/postgres.sh query DIR PORT SQL   run SQL in database apnsim; prints the rows, columns split by |
# PostgreSQL refuses to run as root, so as root it runs as the postgres user (runuser). The apnsim role has a password
# (scram-sha-256 on loopback), so the address carries it: give it in APNSIM_STORE, never on a command line.
set -euo pipefail
action=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case $action in
start)
  port=$3
  if [[ ! -f $dir/data/PG_VERSION ]]; then
    mkdir -p "$dir"
    if [[ $(id -u) == 0 ]]; then
      chown postgres "$dir"
      runuser -u postgres -- test -x "$dir" \
        || { echo "postgres.sh: the postgres user cannot reach $dir (a folder above it is private); give a folder under /tmp" >&2; exit 1; }
    fi
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log"; exit 1; }
    fresh=1
  fi
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=on" start >/dev/null \
    || { cat "$dir/server.log"; exit 1; }
  if [[ ${fresh:-0} == 1 ]]; then
    as_postgres "$bin/psql" -h "$dir" -p "$port" -U postgres -qAt -v ON_ERROR_STOP=1 \
      -c "CREATE ROLE apnsim LOGIN CREATEDB PASSWORD 'apnsim-test'" -c "CREATE DATABASE apnsim OWNER apnsim" >/dev/null
  fi
  echo "postgres://apnsim:apnsim-test@127.0.0.1:$port/apnsim?sslmode=disable"
  ;;
stop)
  as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  ;;
query)
  as_postgres "$bin/psql" -h "$dir" -p "$3" -U postgres -d apnsim -qAt -v ON_ERROR_STOP=1 -c "$4"
  ;;
*)
  echo "usage: $0 start DIR PORT | stop DIR | query DIR PORT SQL" >&2
  exit 2
  ;;
esac

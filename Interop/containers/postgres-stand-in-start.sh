#!/bin/sh
# The postgres stand-in's start (postgres-stand-in.Containerfile): on an empty data folder, the cluster is made with
# POSTGRES_USER as its superuser, password POSTGRES_PASSWORD (read from a file, never a command line), and the
# database POSTGRES_DB; then the server runs in the foreground, stopped by SIGTERM as the official image's is.
set -eu
user=${POSTGRES_USER:-postgres}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:?the stand-in, as the official image, needs POSTGRES_PASSWORD}" > "$password"
  initdb -D "$PGDATA" -U "$user" --pwfile="$password" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    postgres --single -D "$PGDATA" postgres <<SQL >/dev/null
CREATE DATABASE "$POSTGRES_DB" OWNER "$user";
SQL
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'

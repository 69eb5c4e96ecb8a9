#!/usr/bin/env bash
# Make sure the PostgreSQL the team-store tests use is up, and that its database exists.
# The machine may hand CI a stopped service: start it. Nothing is skipped when this fails:
# the PostgreSQL tests then fail loudly with the reason.
set -uo pipefail
host=127.0.0.1
if ! pg_isready -q -h "$host"; then
  if [ -d /etc/postgresql ]; then
    for version in $(ls /etc/postgresql); do
      pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    done
  fi
  for _ in $(seq 1 30); do pg_isready -q -h "$host" && break; sleep 1; done
fi
if ! pg_isready -h "$host"; then
  echo "postgres: not reachable on $host:5432; the PostgreSQL team tests will fail" >&2
  exit 0
fi
user=postgres
psql -h "$host" -U "$user" -d postgres -tAc 'select 1' >/dev/null 2>&1 || user=root
exists=$(psql -h "$host" -U "$user" -d postgres -tAc "select 1 from pg_database where datname = 'test'" 2>/dev/null || true)
if [ "$exists" != "1" ]; then
  psql -h "$host" -U "$user" -d postgres -c 'create database test' || true
fi
echo "postgres: up on $host:5432 (database test, user $user)"

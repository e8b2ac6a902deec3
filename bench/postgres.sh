# Sourced by the hub benchmarks (bench/hub.sh, bench/network.sh): a work folder removed at
# exit, and PostgreSQL (Debian's) in a throwaway cluster there (durable: fsync on), as the
# postgres user when run as root, stopped by its pid. Sets WORK, PGPORT, PIDS (killed at
# exit) and the functions free_port and psql_.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-bench.XXXXXX")
PIDS=(); PG_PID=
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if [ -n "$PG_PID" ]; then  # fast shutdown by pid, SIGKILL after 10 s
    kill -INT "$PG_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$PG_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$PG_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# PostgreSQL: initdb + postgres in $WORK/pg.
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_pg() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=postgres --regid=postgres --init-groups "$@"; else "$@"; fi; }
chmod 711 "$WORK"  # the postgres user must reach $WORK/pg
mkdir -p "$WORK/pg"; [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$WORK/pg"
as_pg "$PGBIN/initdb" -D "$WORK/pg/data" -U postgres --auth=trust -E UTF8 >/dev/null
PGPORT=$(free_port)
# Started directly (not through a function, which would fork a subshell): $! is the server's pid (setpriv execs).
if [ "$(id -u)" -eq 0 ]; then PGCMD=(setpriv --reuid=postgres --regid=postgres --init-groups "$PGBIN/postgres"); else PGCMD=("$PGBIN/postgres"); fi
"${PGCMD[@]}" -D "$WORK/pg/data" -p "$PGPORT" -c listen_addresses=127.0.0.1 -c unix_socket_directories="$WORK/pg" \
  -c max_connections=200 >"$WORK/pg.log" 2>&1 &
PG_PID=$!
for _ in $(seq 100); do "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT" && break; sleep 0.1; done
psql_() { "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -At -v ON_ERROR_STOP=1 "$@"; }


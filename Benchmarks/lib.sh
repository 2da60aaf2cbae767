# Shared by the scripts in Benchmarks/: source it after `cd` to the package root.
# Gives: need TOOL... (installs Debian packages), h2load_once (one request to each URL of a file), h2load_spread (N requests
# over every URL of a file), release_apnsim (path of the release binary, or $APNSIM_BIN), release_reference (the bare SwiftNIO
# server's, or $APNSIM_REFERENCE_BIN), callgrind_valgrind (a valgrind that reads Swift 6's binaries),
# scratch (a work folder and processes cleaned up on exit), start_postgres PORT, start_gateway, start_nginx, world_token, provider_jwt (a token by
# Apple's openssl recipe), wait_for WHAT CMD..., rss_mib PID, cpu_seconds PID, postgres_cpu DIR, stamp.

# Gateways started here take channel-management ports the kernel picks (their defaults are Apple's 2195 and 2196), so
# that a run beside `apnsim up` or another check neither fails to bind them nor takes them from it.
export APNSIM_DEVELOPMENT_MANAGEMENT_PORT=${APNSIM_DEVELOPMENT_MANAGEMENT_PORT:-0} APNSIM_PRODUCTION_MANAGEMENT_PORT=${APNSIM_PRODUCTION_MANAGEMENT_PORT:-0}

scratch() { # sets $work (a temporary folder) and $pids (processes to stop); both go when the script exits, as does the
  # PostgreSQL of start_postgres
  work=$(mktemp -d)
  pids=()
  pg=""
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true
        [[ -z "$pg" ]] || { bash Interop/postgres.sh stop "$pg" 2>/dev/null || true; rm -rf "$pg"; }; rm -rf "$work"' EXIT
}

start_postgres() { # start_postgres PORT — Debian's PostgreSQL (Interop/postgres.sh; installed if missing) on PORT, in a
  # folder of its own, stopped when the script exits; sets $pg (its folder) and $address (the store's URL)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need postgresql:pg_ctlcluster
  pg=$(mktemp -d /tmp/apnsim-bench-postgres.XXXXXX)  # not in $work: PostgreSQL runs as its own user, and $work is private
  address=$(bash Interop/postgres.sh start "$pg" "$1")
}

start_gateway() { # start_gateway PORT CONTROL_PORT DEVICE_PORT [FLAG…] — "$apnsim" gateway in the background, logging
  # to $work/gateway.log; sets $gateway once its control API answers
  local port=$1 control=$2 device=$3; shift 3
  "$apnsim" gateway --development-port "$port" --production-port 0 --control-port "$control" --device-port "$device" \
    "$@" >"$work/gateway.log" 2>&1 &
  gateway=$!
  pids+=("$gateway")
  wait_for "the gateway" 10 curl -sf "http://127.0.0.1:$control/v1/health"
}

world_token() { # world_token CONTROL_PORT — the world's first active development token (no device behind it)
  curl -sf "http://127.0.0.1:$1/v1/tokens" | python3 -c "import json,sys; print(next(t['token'] for t in json.load(sys.stdin) if t['environment']=='development' and t['state']=='active'))"
}

need() { # need PACKAGE:COMMAND… — installs the Debian packages whose command is missing
  local missing=()
  for pair in "$@"; do command -v "${pair#*:}" >/dev/null || missing+=("${pair%%:*}"); done
  if (( ${#missing[@]} > 0 )); then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; fi
}

release_apnsim() { # prints the path of the apnsim to measure: $APNSIM_BIN, or this tree's release build
  if [[ -n "${APNSIM_BIN:-}" ]]; then echo "$APNSIM_BIN"; return; fi
  echo "building apnsim (release)…" >&2
  swift build -c release --product apnsim 2>&1 | tail -1 >&2
  echo "$(swift build -c release --show-bin-path)/apnsim"
}

release_reference() { # prints the path of the bare SwiftNIO reference server (Benchmarks/NIOReferenceServer), built release
  if [[ -n "${APNSIM_REFERENCE_BIN:-}" ]]; then echo "$APNSIM_REFERENCE_BIN"; return; fi
  echo "building nio-reference-server (release)…" >&2
  swift build -c release --product nio-reference-server 2>&1 | tail -1 >&2
  echo "$(swift build -c release --show-bin-path)/nio-reference-server"
}

callgrind_valgrind() { # prints the command (one word per line) that runs valgrind 3.20 or newer: Swift 6 writes DWARF 5, which
  # 3.19 (Debian 12's) cannot read. On Debian 12, Debian 13's valgrind package is unpacked into a cache folder and run
  # from there (its tools are static; its launcher needs only glibc 2.34); callgrind_control keeps Debian 12's vgdb.
  local version; version=$(valgrind --version 2>/dev/null | sed 's/valgrind-//')
  if [[ -n "$version" ]] && printf '3.20\n%s\n' "$version" | sort -V -C; then echo valgrind; return; fi
  local cache=${XDG_CACHE_HOME:-$HOME/.cache}/apnsim-valgrind
  if [[ ! -x "$cache/usr/bin/valgrind.bin" ]]; then
    echo "valgrind $version cannot read Swift 6's DWARF 5: fetching Debian 13's valgrind into $cache…" >&2
    local index=https://deb.debian.org/debian/dists/trixie/main/binary-amd64/Packages.xz file
    file=$(curl -sf "$index" | xz -dc | awk '/^Package: valgrind$/ {found = 1} found && !done && /^Filename:/ {print $2; done = 1}')
    [[ -n "$file" ]] || { echo "no valgrind package in $index" >&2; return 1; }
    mkdir -p "$cache"
    curl -sf -o "$cache/valgrind.deb" "https://deb.debian.org/debian/$file"
    dpkg-deb -x "$cache/valgrind.deb" "$cache"
  fi
  printf 'env\nVALGRIND_LIB=%s\n%s\n' "$cache/usr/libexec/valgrind" "$cache/usr/bin/valgrind.bin"
}

provider_jwt() { # a provider token for SIMKEY0001, signed now with Certs/AuthKey_SIMKEY0001.p8 (DER signature)
  local header claims signature
  b64url() { openssl base64 -e -A | tr -- '+/' '-_' | tr -d =; }
  header=$(printf '{"alg":"ES256","kid":"SIMKEY0001"}' | b64url)
  claims=$(printf '{"iss":"SIMTEAM001","iat":%d}' "$(date +%s)" | b64url)
  signature=$(printf '%s.%s' "$header" "$claims" | openssl dgst -binary -sha256 -sign Certs/AuthKey_SIMKEY0001.p8 | b64url)
  echo "$header.$claims.$signature"
}

wait_for() { # wait_for WHAT SECONDS COMMAND… — polls every 0.1 s until the command succeeds, or fails the run
  local what=$1 seconds=$2; shift 2
  for _ in $(seq $((seconds * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "$what did not happen within $seconds s" >&2; exit 1
}

h2load_spread() { # h2load_spread URLS REQUESTS OUT [H2LOAD OPTION…] — REQUESTS spread over every URL of the file: one
  # h2load of one connection (100 streams) per tenth of the URLs, side by side, each going round its tenth. OUT gets
  # "status codes: N 2xx" (all ten) and "rate: R" (the sum of their requests per second), then their outputs.
  local urls=$1 requests=$2 out=$3 part; shift 3
  local running=()
  rm -f "$urls".part.*
  split -n r/10 -d "$urls" "$urls.part."
  for part in "$urls".part.[0-9][0-9]; do
    h2load -i "$part" -n "$(( requests / 10 ))" -c 1 -m 100 "$@" > "$part.out" &
    running+=($!)
  done
  wait "${running[@]}"
  awk '/^status codes:/ {ok += $3} /^finished in/ {gsub(",", "", $4); rate += $4}
       END {print "status codes: " ok " 2xx"; print "rate: " rate}' "$urls".part.[0-9][0-9].out > "$out"
  cat "$urls".part.[0-9][0-9].out >> "$out"
}

h2load_once() { # h2load_once URLS OUT [H2LOAD OPTION…] — one request to each URL of the file, over 10 connections of 100
  # streams each, h2load's output in OUT under a first line "status codes: N 2xx" for all of them. h2load gives each of
  # its clients the whole file from the top, so `-i URLS -n N -c 10` sent ten requests to each of the first tenth of the
  # URLs and none to the rest; here each connection is an h2load of its own with every tenth URL.
  local urls=$1 out=$2 part; shift 2
  local running=()
  split -n r/10 -d "$urls" "$urls.part."
  for part in "$urls".part.[0-9][0-9]; do
    h2load -i "$part" -n "$(wc -l < "$part")" -c 1 -m 100 "$@" > "$part.out" &
    running+=($!)
  done
  wait "${running[@]}"
  awk '/^status codes:/ {ok += $3} END {print "status codes: " ok " 2xx"}' "$urls".part.*.out > "$out"
  cat "$urls".part.*.out >> "$out"
  rm -f "$urls".part.*
}

rss_mib() { # resident memory of a process in MiB (Linux and macOS ps)
  ps -o rss= -p "$1" | awk '{printf "%.0f", $1 / 1024}'
}

cpu_seconds() { # user + system CPU time of a process so far, in seconds (/proc on Linux: 10 ms steps; else ps: 1 s)
  if [[ -r /proc/$1/stat ]]; then
    awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"
  else
    ps -o time= -p "$1" | awk '{d=0; t=$1; if (index(t, "-")) {split(t, a, "-"); d=a[1]; t=a[2]}
                                n=split(t, p, ":"); s=0; for (i=1; i<=n; i++) s = s*60 + p[i]; print d*86400 + s}'
  fi
}

start_nginx() { # start_nginx PORT — nginx serving HTTP/2 over TLS with the gateway's certificate on PORT, answering 200 to
  # every POST /3/device/…: the reference the provider benchmarks run the same load against
  local port=$1
  cat > "$work/nginx.conf" <<NGINX
worker_processes auto;
error_log $work/nginx.error;
pid $work/nginx.pid;
events { worker_connections 16384; }
http {
  access_log off;
  client_body_temp_path $work/body;
  keepalive_requests 10000000;
  server {
    listen 127.0.0.1:$port ssl http2;   # the spelling Debian 12's nginx 1.22 knows (newer ones warn, still work)
    http2_max_concurrent_streams 1000;
    ssl_certificate $PWD/Certs/gateway.pem;
    ssl_certificate_key $PWD/Certs/gateway-key.pem;
    location /3/device/ { return 200; }
  }
}
NGINX
  nginx -p "$work" -c "$work/nginx.conf" -g 'daemon off;' 2>"$work/nginx.log" &
  pids+=($!)
  wait_for nginx 10 curl -sfk --http2 -o /dev/null -X POST "https://127.0.0.1:$port/3/device/x"
}

postgres_cpu() { # postgres_cpu DIR — CPU seconds the PostgreSQL of Interop/postgres.sh's DIR spent so far: its server, the
  # connections' processes it reaped, and the live ones
  local server; server=$(head -1 "$1/data/postmaster.pid")
  { awk '{print $14 + $15 + $16 + $17}' "/proc/$server/stat"
    for child in $(pgrep -P "$server"); do awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || true; done
  } | awk -v hz="$(getconf CLK_TCK)" '{s += $1} END {printf "%.2f", s / hz}'
}

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }

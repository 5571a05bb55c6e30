#!/usr/bin/env bash
# nginx's proxy_cache in front of facecrop-serve, on loopback, as docs/commands/serve.md recommends: the first
# request for a URL is a cache MISS (cropped by facecrop-serve), the second an nginx HIT (X-Cache-Status), with the
# same bytes and ETag; a request with another Accept is cached apart. Run by `make test`.
# Usage: scripts/check-serve-nginx.sh [--bin PATH]   (default .build/debug/facecrop-serve)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/debug/facecrop-serve
[ "${1:-}" = "--bin" ] && bin=$2
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "check-serve-nginx: nginx is missing (scripts/setup.sh installs it)" >&2; exit 1; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/facecrop-nginx.XXXXXX")
server_pid=""
cleanup() {
  [ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/root" "$tmp/cache" "$tmp/temp"
cp Samples/group.jpg "$tmp/root/"
key=$(openssl rand -hex 32)
salt=$(openssl rand -hex 32)
# A free port for each: ask the kernel.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
server_port=$(free_port)
nginx_port=$(free_port)

FACECROP_KEY=$key FACECROP_SALT=$salt "$bin" --root "$tmp/root" --port "$server_port" --log-level warning &
server_pid=$!

# As root, nginx's workers would run as nobody, who cannot write the private temporary folder.
user_line=""
[ "$(id -u)" -eq 0 ] && user_line="user root;"
cat > "$tmp/nginx.conf" <<CONF
$user_line
daemon on;
pid $tmp/nginx.pid;
error_log $tmp/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $tmp/temp/body;
    proxy_temp_path $tmp/temp/proxy;
    fastcgi_temp_path $tmp/temp/fastcgi;
    uwsgi_temp_path $tmp/temp/uwsgi;
    scgi_temp_path $tmp/temp/scgi;
    proxy_cache_path $tmp/cache levels=1:2 keys_zone=facecrop:10m max_size=1g inactive=30d use_temp_path=off;
    map \$http_accept \$facecrop_accept {
        default       image/jpeg;
        "~image/avif" image/avif;
        "~image/webp" image/webp;
    }
    upstream facecrop { server 127.0.0.1:$server_port; keepalive 8; }
    server {
        listen 127.0.0.1:$nginx_port;
        location / {
            proxy_pass http://facecrop;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache facecrop;
            proxy_set_header Accept \$facecrop_accept;
            proxy_cache_key "\$request_uri \$facecrop_accept";
            proxy_ignore_headers Vary;
            proxy_cache_valid 200 304 30d;
            proxy_cache_lock on;
            proxy_cache_use_stale error timeout updating http_503;
            add_header X-Cache-Status \$upstream_cache_status;
        }
    }
}
CONF
"$nginx_bin" -c "$tmp/nginx.conf" -e "$tmp/error.log"

# Wait (bounded) for facecrop-serve.
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$server_port/health" >/dev/null && break
  sleep 0.1
done

path='/rs:fill:320:180/plain/local:///group.jpg'
sig=$( (echo -n "$salt" | xxd -r -p; echo -n "$path") | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64 | tr '+/' '-_' | tr -d '=')
url="http://127.0.0.1:$nginx_port/$sig$path"

fail() { echo "check-serve-nginx: $*" >&2; exit 1; }
get() { curl -s -D "$tmp/h$1" -o "$tmp/b$1" -H "Accept: $2" "$url"; }
header() { grep -i "^$2:" "$tmp/h$1" | head -1 | cut -d' ' -f2- | tr -d '\r'; }

get 1 'image/webp,*/*'
[ "$(head -1 "$tmp/h1" | cut -d' ' -f2)" = 200 ] || fail "first request: $(head -1 "$tmp/h1")"
[ "$(header 1 X-Cache-Status)" = MISS ] || fail "first request: X-Cache-Status '$(header 1 X-Cache-Status)', expected MISS"
[ "$(header 1 Content-Type)" = image/webp ] || fail "first request: Content-Type '$(header 1 Content-Type)'"
get 2 'image/webp,*/*'
[ "$(header 2 X-Cache-Status)" = HIT ] || fail "second request: X-Cache-Status '$(header 2 X-Cache-Status)', expected HIT"
cmp -s "$tmp/b1" "$tmp/b2" || fail "the cached body differs"
[ "$(header 1 ETag)" = "$(header 2 ETag)" ] || fail "the cached ETag differs"
get 3 '*/*'
[ "$(header 3 X-Cache-Status)" = MISS ] || fail "another Accept: X-Cache-Status '$(header 3 X-Cache-Status)', expected MISS"
[ "$(header 3 Content-Type)" = image/jpeg ] || fail "another Accept: Content-Type '$(header 3 Content-Type)'"
get 4 '*/*'
[ "$(header 4 X-Cache-Status)" = HIT ] || fail "another Accept, again: X-Cache-Status '$(header 4 X-Cache-Status)', expected HIT"
# Another browser's Accept that asks for the same format: the same cache entry (Accept normalised by the map).
get 5 'text/html,image/webp;q=0.9,image/apng,*/*;q=0.8'
[ "$(header 5 X-Cache-Status)" = HIT ] || fail "another WebP Accept: X-Cache-Status '$(header 5 X-Cache-Status)', expected HIT"
[ "$(header 5 Content-Type)" = image/webp ] || fail "another WebP Accept: Content-Type '$(header 5 Content-Type)'"
echo "check-serve-nginx: MISS then HIT through nginx's proxy_cache (WebP and JPEG cached apart, Accept normalised)"

#!/usr/bin/env bash
# libuuid's uuid_generate_time_safe in a loop (time_loop.c), served first by util-linux's
# own uuidd and then by uuidkitd --uuidd-socket, on the socket libuuid is built with
# (/run/uuidd/request), in one hyperfine run.
#
#   bash crates/uuidkitd/benches/libuuid/vs_uuidd.sh [CALLS]    # default 10000000
#
# Needs root (it binds /run/uuidd/request, and stops whatever serves it there during the
# run), gcc, libuuid's headers (uuid-dev), util-linux's uuidd (uuid-runtime) and
# hyperfine. Any daemon on /run/uuidd/request before the run is stopped and not restarted.
set -euo pipefail
calls=${1:-10000000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
work=$(mktemp -d)
trap 'bash "$work/serve" none; rm -rf "$work"' EXIT

cargo build --release --quiet -p uuidkitd --manifest-path "$root/Cargo.toml"
gcc -O2 -o "$work/time_loop" "$here/time_loop.c" -luuid

# serve uuidd|uuidkitd|none: whatever serves /run/uuidd/request now stops, then the one
# named starts and the script waits until it answers.
cat > "$work/serve" <<SERVE
#!/usr/bin/env bash
set -euo pipefail
pkill -x uuidd 2>/dev/null || true
pkill -f "uuidkitd --socket $work/" 2>/dev/null || true
for _ in \$(seq 100); do pgrep -x uuidd >/dev/null || pgrep -f "uuidkitd --socket $work/" >/dev/null || break; sleep 0.05; done
rm -f /run/uuidd/request
mkdir -p /run/uuidd
case "\$1" in
  uuidd) /usr/sbin/uuidd -P -T 0 -s /run/uuidd/request ;;
  uuidkitd) setsid "$root/target/release/uuidkitd" --socket "$work/d.sock" --state "$work/state" \
      --uuidd-socket /run/uuidd/request --node 02:00:5e:10:00:01 </dev/null >/dev/null 2>&1 & ;;
  none) exit 0 ;;
esac
for _ in \$(seq 200); do /usr/sbin/uuidd -t >/dev/null 2>&1 && exit 0; sleep 0.05; done
echo "\$1 does not answer on /run/uuidd/request" >&2
exit 1
SERVE

echo "util-linux uuidd makes: $(bash "$work/serve" uuidd && "$work/time_loop" 1)"
echo "uuidkitd makes:         $(bash "$work/serve" uuidkitd && "$work/time_loop" 1)  (node 02005e100001)"
hyperfine -N --warmup 2 --runs 10 \
    --prepare "bash $work/serve uuidd" -n "util-linux uuidd" "$work/time_loop $calls" \
    --prepare "bash $work/serve uuidkitd" -n "uuidkitd --uuidd-socket" "$work/time_loop $calls"

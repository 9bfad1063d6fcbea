#!/usr/bin/env bash
# Cold-start init of the Lambda bootstraps, without AWS: each function is
# built as `make lambdas` builds it (CGO_ENABLED=0, -trimpath, -ldflags
# '-s -w -buildid=', -tags lambda.norpc) for linux/amd64 (run natively) and
# linux/arm64 (run under qemu-user: EMULATED, far slower than Graviton),
# then started RUNS times against a stub Lambda Runtime API on 127.0.0.1
# that times the process from exec to its first
# `GET /2018-06-01/runtime/invocation/next`: the Go runtime's start-up,
# package init (the AWS SDK's service packages included) and
# lambdafn.Boot (config parse, AWS client construction: no network call
# without TRIBUTARY_CONFIG_PARAMETER). What Lambda adds on top, fetching
# and unpacking the zip into the sandbox, grows with the zip size and is not
# measured here. The summary gives min and median per function and arch,
# the uncompressed and zipped sizes of the arm64 binaries and the load.
#
# Usage: scripts/bench-init.sh [runs]   (default 15; ARCHS="amd64 arm64")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
go="${GO:-go}"
runs="${1:-15}"
archs="${ARCHS:-amd64 arm64}"
fns="discovery backfill commit maintenance"
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in $archs; do
  for fn in $fns; do
    mkdir -p "$tmp/$arch/$fn"
    CGO_ENABLED=0 GOOS=linux GOARCH=$arch "$go" build -trimpath -buildvcs=false -tags lambda.norpc \
      -ldflags '-s -w -buildid=' -o "$tmp/$arch/$fn/bootstrap" "./functions/$fn"
    [ "$arch" = arm64 ] && (cd "$tmp/$arch/$fn" && zip -X -q ../$fn.zip bootstrap)
  done
done
echo "# $(date -u +%FT%TZ) tributary $(git rev-parse --short HEAD); $("$go" version); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $runs runs"
python3 - "$tmp" "$runs" "$archs" "$fns" <<'PY'
import http.server, json, os, statistics, subprocess, sys, threading, time
tmp, runs, archs, fns = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
first = {}
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.endswith("/invocation/next") and "t" not in first:
            first["t"] = time.perf_counter()
            first["ev"].set()
        # Never answer: the process is killed once timed.
        time.sleep(30)
    def do_POST(self):
        self.send_response(202); self.end_headers()
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
threading.Thread(target=srv.serve_forever, daemon=True).start()
port = srv.server_address[1]
config = json.dumps({"streams": [{"id": "s1", "source": "s3://src/in/", "table": "s3://tbl/t/",
    "checkpointLocation": "s3://tbl/_checkpoints/s1",
    "schemaLocation": "s3://tbl/_checkpoints/s1/_schema", "options": {"cloudFiles.format": "json"}}]})
env = {"PATH": os.environ.get("PATH", ""), "AWS_LAMBDA_RUNTIME_API": f"127.0.0.1:{port}",
       "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
       "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "2048", "AWS_LAMBDA_FUNCTION_NAME": "bench-init",
       "TRIBUTARY_CONFIG": config, "TRIBUTARY_STATE_TABLE": "state",
       "TRIBUTARY_KICK_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/1/kick.fifo"}
res = {}
for r in range(runs):  # interleaved: every function and arch once per round
    for arch in archs:
        for fn in fns:
            cmd = [os.path.join(tmp, arch, fn, "bootstrap")]
            if arch == "arm64":
                cmd = ["qemu-aarch64"] + cmd
            first.clear(); first["ev"] = threading.Event()
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.perf_counter() + 60
            while not first["ev"].wait(0.005) and p.poll() is None and time.perf_counter() < deadline:
                pass
            if not first["ev"].is_set():
                p.kill()
                sys.exit(f"{arch}/{fn}: no /next request (exited or 60 s passed): {p.stderr.read().decode()[-2000:]}")
            res.setdefault((fn, arch), []).append((first["t"] - t0) * 1000)
            p.kill(); p.wait()
print(f"{'function':12} {'arch':22} {'min ms':>7} {'median ms':>9}  {'binary MB':>9} {'zip MB':>7}")
for fn in fns:
    for arch in archs:
        v = res[(fn, arch)]
        size = os.path.getsize(os.path.join(tmp, arch, fn, "bootstrap")) / 1e6
        z = os.path.join(tmp, arch, fn + ".zip")
        zs = f"{os.path.getsize(z)/1e6:7.2f}" if os.path.exists(z) else "      -"
        label = "arm64 EMULATED (qemu)" if arch == "arm64" else "amd64 native"
        print(f"{fn:12} {label:22} {min(v):7.1f} {statistics.median(v):9.1f}  {size:9.2f} {zs}")
PY

#!/usr/bin/env bash
# The conversion engine the commit function runs (bench/ BenchmarkJSONToDelta:
# ~100 MB of NDJSON -> a new Delta table, typed inference, one batch) built
# for linux/arm64, the Lambda functions' architecture, and run under
# qemu-user, interleaved with the same benchmark built for amd64 and run
# natively on this machine; then a modelled Lambda compute cost per million
# 1 MiB files on a 2 GB arm64 function from each measured speed.
#
# EMULATED: qemu-user translates every arm64 instruction on the fly, so the
# arm64 speed here is a floor on Graviton's (an upper bound on time and
# cost), not a Graviton figure. No arm64 hardware was available. The amd64
# figure is native (this machine's cores), the nearer guide to what a
# Lambda vCPU does. Speeds are MB (1e6 bytes of input) per CPU-second of the
# whole process (user+sys, all goroutines, GC), which stays meaningful on a
# loaded machine where wall-clock MB/s does not.
#
# The cost model (docs/performance.md, "Lambda compute per million files"):
#   billed seconds per file = FILE_BYTES / (MB/cpu-s x 1e6) / USABLE_VCPU
#                           + BATCH_SERIAL_S / FILES_PER_BATCH
#   $ per million files     = 1e6 x billed seconds x MEMORY_MB/1024 x GBS_PRICE
#                           + 1e6 / FILES_PER_BATCH x REQUEST_PRICE
# Defaults: 2048 MB (about 1.16 vCPU: Lambda gives one vCPU per 1,769 MB),
# USABLE_VCPU=1 (only one vCPU's worth assumed busy: conservative),
# $0.0000133334 per GB-s (arm64, us-east-1, first tier), $0.20 per million
# requests, batches of 1,000 files (maxFilesPerTrigger's default) and
# 0.5 s of serial per-batch work on S3/DynamoDB (plan, claims, log commit).
# S3 GET latency that the pipeline does not overlap is not in the model: each
# millisecond of it per file adds 1e6 x 0.001 x 2 x GBS_PRICE = $0.027.
#
# Usage: scripts/bench-arm64.sh [rounds] [bench regexp]
#   (default 2 rounds of 'JSONToDelta/infer$'; e.g. '(JSON|CSV)ToDelta/infer$')
#   MEMORY_MB, USABLE_VCPU, GBS_PRICE, REQUEST_PRICE, FILE_BYTES,
#   FILES_PER_BATCH, BATCH_SERIAL_S override the model's inputs.
#   Writes the summary to out/bench-arm64.txt (OUT_FILE to change).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
go="${GO:-go}"
rounds="${1:-2}"
filter="${2:-JSONToDelta/infer\$}"
out_file="${OUT_FILE:-$root/out/bench-arm64.txt}"
cd "$root"
if ! command -v qemu-aarch64 >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing qemu-user (apt)..." >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
  else
    echo "qemu-aarch64 not found: install qemu-user (Debian/Ubuntu) and retry" >&2
    exit 1
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The dataset is generated once (natively) under .cache/bench, shared by both runs.
"$go" test -run '^$' -bench "${filter%%/*}/^\$" -benchtime 1x ./bench/ >/dev/null
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 "$go" test -c -o "$tmp/bench.amd64" ./bench/
GOOS=linux GOARCH=arm64 CGO_ENABLED=0 "$go" test -c -o "$tmp/bench.arm64" ./bench/
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) tributary $(git rev-parse --short HEAD); $("$go" version); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), GOMAXPROCS ${GOMAXPROCS:-$(nproc)}"
  echo "# $(qemu-aarch64 --version | head -1)"
  echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$tmp/header"
cat "$tmp/header" >&2
# Interleaved: amd64, arm64, amd64, arm64, ... so load hits both alike.
for r in $(seq "$rounds"); do
  for arch in amd64 arm64; do
    run=("$tmp/bench.$arch")
    [ "$arch" = arm64 ] && run=(qemu-aarch64 "$tmp/bench.$arch")
    echo "## round $r: $arch${run[1]:+ (emulated: qemu-user)}" >&2
    (cd bench && "${run[@]}" -test.run '^$' -test.bench "$filter" -test.benchmem -test.benchtime 1x -test.timeout 60m) \
      | tee -a "$tmp/$arch.txt" | grep '^Benchmark' >&2
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$tmp/header"
mkdir -p "$(dirname "$out_file")"
python3 - "$tmp" "$rounds" > "$tmp/summary" <<'PY'
import collections, os, re, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
env = lambda k, d: float(os.environ.get(k, d))
mem_mb, vcpu = env("MEMORY_MB", 2048), env("USABLE_VCPU", 1)
gbs, req = env("GBS_PRICE", 0.0000133334), env("REQUEST_PRICE", 0.20e-6)
file_bytes, per_batch, serial = env("FILE_BYTES", 1 << 20), env("FILES_PER_BATCH", 1000), env("BATCH_SERIAL_S", 0.5)
res = collections.defaultdict(list)  # (bench, arch) -> [(MB/cpu-s, cpu-s/op, peak RSS)]
for arch in ("amd64", "arm64"):
    for line in open(os.path.join(tmp, arch + ".txt")):
        if not line.startswith("Benchmark"):
            continue
        name = re.sub(r"-\d+$", "", line.split()[0])
        m = dict((u, float(v)) for v, u in re.findall(r"([0-9.]+) ([^\s]+)", line))
        if "MB/cpu-s" not in m:
            sys.exit(f"no MB/cpu-s in: {line}")
        res[(name, arch)].append((m["MB/cpu-s"], m["cpu-s/op"], m.get("peak-RSS-MB", float("nan"))))
def cost(rate):
    cpu_per_file = file_bytes / (rate * 1e6)
    billed = cpu_per_file / vcpu + serial / per_batch
    gb_s = 1e6 * billed * mem_mb / 1024
    return cpu_per_file, gb_s, gb_s * gbs + 1e6 / per_batch * req
print(f"{'benchmark':28} {'arch':22} {'MB/cpu-s (best, all)':28} {'cpu-s/op':>8} {'RSS MB':>7}")
benches = sorted({b for b, _ in res})
for b in benches:
    for arch, label in (("amd64", "amd64 native"), ("arm64", "arm64 EMULATED (qemu)")):
        v = res.get((b, arch), [])
        if not v:
            continue
        rates = [x[0] for x in v]
        print(f"{b:28} {label:22} {max(rates):6.2f} ({', '.join('%.2f' % x for x in rates)}){'':8} {min(x[1] for x in v):8.2f} {max(x[2] for x in v):7.0f}")
    a, e = res.get((b, "amd64")), res.get((b, "arm64"))
    if a and e:
        print(f"{b:28} emulation slowdown     {max(x[0] for x in a) / max(x[0] for x in e):.1f}x (amd64 native / arm64 under qemu, best of each)")
print()
print(f"Modelled Lambda compute per million {file_bytes/2**20:g} MiB files: {mem_mb:g} MB arm64 function, "
      f"${gbs:.10g}/GB-s, {vcpu:g} usable vCPU, {per_batch:g} files/batch with {serial:g} s serial work each, "
      f"${req*1e6:.2f}/million requests; S3 latency not overlapped is extra ($%.3f per ms per file)" % (1e6 * 0.001 * mem_mb / 1024 * gbs))
print(f"{'benchmark':28} {'speed from':34} {'cpu-ms/file':>11} {'GB-s/million':>12} {'$/million':>9}")
for b in benches:
    for arch, label in (("arm64", "arm64 EMULATED (upper bound)"), ("amd64", "amd64 native (Graviton assumed ~)")):
        v = res.get((b, arch))
        if not v:
            continue
        c, g, d = cost(max(x[0] for x in v))
        print(f"{b:28} {label:34} {c*1000:11.1f} {g:12.0f} {d:9.2f}")
PY
{ cat "$tmp/header"; cat "$tmp/summary"; } | tee "$out_file"

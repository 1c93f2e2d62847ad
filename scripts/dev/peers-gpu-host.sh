#!/bin/sh
# peers-gpu-host.sh BUNDLE_DIR — issue #46's measurement on the GPU host.
#
# In one call, bounded to about 3 minutes: suites/frameworks.json run by the
# unpacked bundle with --peers auto (NumPy, SciPy, CuPy, PyTorch, JAX as
# peers beside the libraries, one round), interleaved with two processes of
# a plain timing script for the same frameworks (scripts/dev/peers-plain.py:
# inputs made before the clock, warm-up, sync, median), so that each peer's
# median can be held against the framework timed plainly (target: within
# 10% on cases of 1 ms or more, 20% below). Writes under $OUT: plain-1.json,
# peers.json (gpubench's results), plain-2.json, compare.txt (peer median,
# plain median of the two processes, ratio, per framework and case) and the
# logs of each step.
set -u
B=${1:?usage: peers-gpu-host.sh BUNDLE_DIR}
OUT=${OUT:-/tmp/peers-out}
mkdir -p "$OUT"
PY=${GPUBENCH_PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
echo "python: $($PY -c 'import sys; print(sys.executable, sys.version.split()[0])')" > "$OUT/env.txt"
nproc >> "$OUT/env.txt"; nvidia-smi -L >> "$OUT/env.txt" 2>&1
timeout "${PLAIN_S:-45}" "$PY" "$here/peers-plain.py" "$OUT/plain-1.json" --budget 1 > "$OUT/plain-1.log" 2>&1
timeout "${PEERS_S:-100}" "$B/bin/gpubench" run "$B/suites/frameworks.json" --peers auto --python "$(command -v "$PY")" \
    --rounds 1 --max-time 1s --no-peak --peer-timeout 60 --out "$OUT/peers.json" > "$OUT/peers.log" 2>&1
echo "gpubench exit $?" >> "$OUT/peers.log"
timeout "${PLAIN_S:-45}" "$PY" "$here/peers-plain.py" "$OUT/plain-2.json" --budget 1 > "$OUT/plain-2.log" 2>&1
"$PY" - "$OUT" > "$OUT/compare.txt" 2>&1 <<'PYEOF'
import json, os, sys
d = sys.argv[1]
plain = {}
for f in ("plain-1.json", "plain-2.json"):
    try:
        for k, v in json.load(open(os.path.join(d, f))).items():
            plain.setdefault(k, []).append(v)
    except (OSError, ValueError) as e:
        print("%s: %s" % (f, e))
res = json.load(open(os.path.join(d, "peers.json")))
print("%-30s %12s %12s %7s  %s" % ("framework op size", "peer ms", "plain ms", "ratio", "peer status"))
libs = {}
for c in res.get("cases", []):
    n = c["shape"][0]
    for r in c["results"]:
        med = (r.get("stats") or {}).get("median")
        if r["backend"] in ("cpu", "cuda"):
            libs["%s %s %d" % (r["backend"], c["op"], n)] = med
            continue
        fw = r["backend"]  # each peer against the plain script's row of the same framework
        k = "%s %s %d" % (fw, c["op"], n)
        p = sorted(plain.get(k, []))
        pm = p[len(p) // 2] if len(p) % 2 else (sum(p[len(p) // 2 - 1:len(p) // 2 + 1]) / 2 if p else None)
        ratio = med / pm if med and pm else None
        print("%-30s %12s %12s %7s  %s %s" % (r["backend"] + " " + c["op"] + " " + str(n),
              "%.4f" % (med * 1e3) if med else "-", "%.4f" % (pm * 1e3) if pm else "-",
              "%.2f" % ratio if ratio else "-", r["status"], (r.get("reason") or "")[:80]))
print()
for k, v in sorted(libs.items()):
    print("%-30s %12s" % (k, "%.4f ms" % (v * 1e3) if v else "-"))
print("\npeers:", json.dumps(res.get("context", {}).get("peers", {}), indent=1)[:3000])
PYEOF
ls -la "$OUT"

#!/usr/bin/env python3
"""devices-summary.py — what a --devices run measured on each device, from
its results file (scripts/dev/gpu-host-check.sh, step multigpu).

    devices-summary.py RESULTS.json [--ops matmul_xt,solve_mg]

Prints context.devices, then per device (index, UUID, PCI bus id) how many
results it has and how many are ok and verified; with --ops, one line per
accelerator result of those ops (status, verification, the skip reason)."""
import json
import sys


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2 if len(argv) < 2 else 0
    ops = None
    if "--ops" in argv:
        i = argv.index("--ops")
        if i + 1 >= len(argv):
            print("devices-summary: --ops needs a list", file=sys.stderr)
            return 2
        ops = set(argv[i + 1].split(","))
    try:
        with open(argv[1]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("devices-summary: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    runs = doc.get("runs") or [doc]
    for run in runs:
        print("context.devices:", json.dumps((run.get("context") or {}).get("devices")))
    per = {}
    for c in doc.get("cases", []):
        for r in c.get("results", []):
            d = r.get("device")
            if d:
                key = (d.get("index"), d.get("uuid", ""), d.get("pci_bus_id", ""), "concurrent" in r)
                n = per.setdefault(key, [0, 0])
                n[0] += 1
                # a concurrent result is not verified again: its device's alone result was
                n[1] += r.get("status") == "ok" and ("concurrent" in r or
                                                     (r.get("verification") or {}).get("status") == "passed")
            if ops is not None and c.get("op") in ops and r.get("backend") != "cpu":
                v = r.get("verification") or {}
                print("%-9s %-18s gpus=%-2s %-10s %-7s %s%s" % (
                    c.get("op"), c.get("label"), (c.get("params") or {}).get("gpus"), r.get("timing"),
                    r.get("status"),
                    "%s against %s " % (v.get("status"), v.get("against")) if r.get("status") == "ok" else "",
                    r.get("reason", "")))
    for (index, uuid, bus, conc), (n, ok) in sorted(per.items(), key=lambda kv: (kv[0][0], kv[0][3])):
        print("device %s %s %s%s: %d results, %d ok%s" % (
            index, uuid, bus, " (all devices at once)" if conc else "", n, ok, "" if conc else " and verified"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

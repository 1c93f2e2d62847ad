#!/usr/bin/env python3
"""check-readme.py GPUBENCH — hold README.md to what the commands do.

1. Every command in the README's ```sh blocks is run, from a scratch
   directory that sees the checkout's suites/, scripts/ and
   results/reference/ (so what a command writes lands there), or, where
   running it for real is not possible or not quick on a machine without a
   GPU, handled as the table RULES says: checked without measuring (`run`
   with --list: the suite, ops, sizes and flags parsed and validated, the
   cases planned) or skipped with the reason. Every command must be matched
   by a rule; a new one in the README needs one here.
2. The sample table (<!-- sample-table: FILE -->) is held to FILE: each row's
   case is in it, with those medians and speedups to the digits shown.
3. At most 300 lines. Every relative link of the README (and of the docs pages it links) names a
   file that exists, and an anchor that the file has.
Exit status 0 when all holds, 1 otherwise (each failure on its own line).
Run by tests/cli/test_readme.c in `make test`.
"""
import json, os, re, shlex, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAVE_MPL = subprocess.run([sys.executable, "-c", "import matplotlib"], capture_output=True).returncode == 0

# (pattern on the command, action, why): action "run" (exit 0 expected),
# "list" (a run, validated with --list instead of measured), "skip".
RULES = [
    (r"^scripts/dev/install-deps\.sh", "skip", "installs packages with apt-get (root)"),
    (r"^make && \./gpubench run suites/quick\.json$", "list",
     "the build is the test's own; the quick suite takes ~11 s to measure, so it is validated (--list)"),
    (r"^make$", "skip", "the test runs on the build it tests"),
    (r"^make install PREFIX=", "skip", "installs into a prefix: tests/cli/test_install.c installs one and checks it"),
    (r"^gpubench run quick$", "list", "a suite found by name (the installed gpubench): validated with --list"),
    (r"--plot\b", "run" if HAVE_MPL else "skip", "needs matplotlib, not installed here"),
    (r"^\./gpubench run suites/(quick|default)\.json", "list",
     "measuring a suite takes from seconds to minutes: validated with --list"),
    (r"^\./gpubench run --op matmul --sizes 512,1024$", "list",
     "measuring takes seconds (ceilings the first time): validated with --list"),
    (r"^\./gpubench (list|info|validate|report|compare)\b", "run", ""),
]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def commands(text):
    out, block = [], None
    for line in text.split("\n"):
        if block is None:
            if line.strip() == "```sh":
                block = []
        elif line.strip() == "```":
            out += block
            block = None
        else:
            cmd = line.split("  #")[0].strip()
            if cmd:
                block.append(cmd)
    return out


def scratch():
    d = tempfile.mkdtemp(prefix="gb-readme-")
    for name in ("suites", "scripts"):
        os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
    os.makedirs(os.path.join(d, "results"))
    os.symlink(os.path.join(ROOT, "results", "reference"), os.path.join(d, "results", "reference"))
    return d


def run_commands(gpubench, text):
    d = scratch()
    try:
        run_in(d, gpubench, text)
    finally:
        # the commands' files were left in /tmp by every `make test` (160
        # folders in a day); a failure's message says what went wrong
        shutil.rmtree(d, ignore_errors=True)


def run_in(d, gpubench, text):
    env = dict(os.environ, NO_COLOR="1", XDG_CACHE_HOME=os.path.join(d, "cache"))
    for cmd in commands(text):
        rule = next(((a, why) for pat, a, why in RULES if re.search(pat, cmd)), None)
        if rule is None:
            fail("README command with no rule in check-readme.py: " + cmd)
            continue
        action, why = rule
        if action == "skip":
            print("skipped: %s (%s)" % (cmd, why))
            continue
        run = cmd.split("&&")[-1].strip()
        argv = shlex.split(run)
        if argv[0] in ("./gpubench", "gpubench"):
            argv[0] = gpubench
        if action == "list":
            argv.append("--list")
        p = subprocess.run(argv, cwd=d, env=env, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail("%s: exit %d: %s" % (cmd, p.returncode, (p.stderr or p.stdout).strip()[-400:]))
        else:
            print("%s: %s%s" % ("validated" if action == "list" else "ran", cmd,
                                " (%s)" % why if why else ""))


def case_name(c):
    parts = [c["op"], c["dtype"], c["label"]]
    for k, v in (c.get("params") or {}).items():
        parts.append("%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v))
    return "/".join(parts)


def shown(v, text):
    """Does text show v to its own digits (the report's rounding)?"""
    t = text.rstrip("×")
    digits = len(t.split(".")[1]) if "." in t else 0
    return abs(v - float(t)) <= 0.5 * 10 ** -digits * 1.0001


def check_sample(text):
    m = re.search(r"<!-- sample-table: (\S+) -->\n((?:\|.*\n)+)", text)
    if not m:
        fail("README: no sample table")
        return
    doc = json.load(open(os.path.join(ROOT, m.group(1))))
    cases = {case_name(c): c for c in doc["cases"]}
    rows = [r for r in m.group(2).split("\n")[2:] if r.startswith("|")]
    for r in rows:
        cells = [x.strip() for x in r.strip("|").split("|")]
        c = cases.get(cells[0])
        if not c:
            fail("sample table: %s is not a case of %s" % (cells[0], m.group(1)))
            continue
        med = {(x["backend"], x["timing"]): x["stats"]["median"] * 1e3 for x in c["results"] if x["status"] == "ok"}
        want = [med.get(("cpu", "host")), med.get(("cuda", "device")), med.get(("cuda", "end_to_end")),
                c["speedup"]["device"], c["speedup"]["end_to_end"]]
        for v, t in zip(want, cells[1:]):
            if v is None or not shown(v, t):
                fail("sample table: %s shows %s, the file has %s" % (cells[0], t, v))
    print("sample table: %d rows match %s" % (len(rows), m.group(1)))


def slug(h):
    h = h.strip().lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", h).replace(" ", "-")


def anchors(path):
    out, fence = set(), False
    for line in open(path):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("#"):
            out.add(slug(line))
    return out


def check_links(path, seen):
    if path in seen or not path.endswith(".md"):
        return
    seen.add(path)
    for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", open(path).read()):
        target = m.group(1)
        if re.match(r"^(https?:|mailto:)", target):
            continue
        file, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        rel = os.path.relpath(path, ROOT)
        if not os.path.exists(full):
            # pages other branches write (agreed names) are allowed to come later
            if os.path.relpath(full, ROOT) in PENDING:
                print("pending: %s links %s (written on another branch)" % (rel, target))
                continue
            fail("%s: link to a missing file: %s" % (rel, target))
            continue
        if frag and full.endswith(".md") and frag not in anchors(full):
            fail("%s: link to a missing anchor: %s" % (rel, target))
        if path.endswith("README.md") and full.endswith(".md"):
            check_links(full, seen)


PENDING = {"docs/energy.md", "docs/clusters.md"}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    gpubench = os.path.abspath(sys.argv[1])
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    run_commands(gpubench, text)
    check_sample(text)
    check_links(readme, set())
    # a README a newcomer reads to the end: reference material goes to docs/
    if text.count("\n") > 300:
        fail("README.md has %d lines: at most 300 (move reference material to docs/)" % text.count("\n"))
    print("%d README lines; %s" % (text.count("\n"), "all hold" if not failures else "%d failures" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

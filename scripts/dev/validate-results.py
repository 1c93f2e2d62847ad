#!/usr/bin/python3
"""Validate results files against docs/results.schema.json (the JSON Schema
made from the format's table, src/results/results_format.c).
usage: scripts/dev/validate-results.py SCHEMA FILE...   exit 1 naming each file, path and reason."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    with open(path) as f:
        doc = json.load(f)
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.path).lstrip(".")
        print(f"{path}: {where or '(top)'}: {err.message}")
        bad += 1
sys.exit(1 if bad else 0)

"""Checks the records a running gateway serves (GET /v1/sends, /v1/deliveries and /v1/connections) against
docs/records.schema.json, so the documented schema and the JSON cannot drift apart.
Usage: check_records_schema.py SCHEMA CONTROL_URL"""
import json
import sys
import urllib.request

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
failed = 0
for route, definition in (("sends", "send"), ("deliveries", "delivery"), ("connections", "connection")):
    records = json.load(urllib.request.urlopen(f"{sys.argv[2]}/v1/{route}?limit=1000"))
    validator = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"})
    for index, record in enumerate(records):
        for error in validator.iter_errors(record):
            failed += 1
            where = "/".join(str(part) for part in error.absolute_path) or "top level"
            print(f"{route}[{index}] {where}: {error.message}")
    print(f"{len(records)} {route} checked against {sys.argv[1]}")
sys.exit(1 if failed else 0)

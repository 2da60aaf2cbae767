"""Checks every scenario under the given folder against docs/scenario.schema.json (the schema editors use), so
the schema and the scenarios apnsim replay accepts cannot drift apart; with DOC, also that it documents every step
and every expect key the schema has. Usage: check_scenario_schema.py SCHEMA DIR [DOC]"""
import json
import pathlib
import sys

import jsonschema
import yaml

schema = json.loads(pathlib.Path(sys.argv[1]).read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
checked, failed = 0, 0
for path in sorted(pathlib.Path(sys.argv[2]).rglob("*.yaml")):
    document = yaml.safe_load(path.read_text())
    if not isinstance(document, dict) or "steps" not in document:
        continue  # a world file
    checked += 1
    for error in validator.iter_errors(document):
        failed += 1
        where = "/".join(str(part) for part in error.absolute_path) or "top level"
        print(f"{path}: {where}: {error.message}")
print(f"{checked} scenarios checked against {sys.argv[1]}, {failed} problems")
if len(sys.argv) > 3:
    step = schema["properties"]["steps"]["items"]["properties"]
    documented = pathlib.Path(sys.argv[3]).read_text()
    for kind, names in (("step", [name for name in step if name != "expect"]), ("expect key", list(step["expect"]["properties"]))):
        for name in names:
            if f"`{name}`" not in documented:
                failed += 1
                print(f"{sys.argv[3]} does not document the {kind} `{name}` that {sys.argv[1]} has")
    print(f"{sys.argv[3]} documents every step and expect key of {sys.argv[1]}" if not failed else "")
sys.exit(1 if failed or checked == 0 else 0)

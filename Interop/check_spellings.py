"""One spelling for each name: fails when docs/records.schema.json or docs/control-api.openapi.yaml holds two live
spellings of one field or parameter, such as apnsID beside apnsId, bundle beside bundleID, or since beside after.

Names are compared by their letters and digits, case aside, and with a trailing "id" dropped (bundle and bundleID
are one name); since and after are one name too (both a time a listing starts from). An old spelling kept for one
release is marked `deprecated: true` and listed in README's changelog; it may stand beside its new one, and every
deprecated spelling must have a live one.

Usage: check_spellings.py RECORDS_SCHEMA OPENAPI [README]
"""
import collections
import json
import re
import sys

import yaml

SYNONYMS = {"since": "after"}


def key(name):
    letters = re.sub(r"[^a-z0-9]", "", name.lower())
    letters = SYNONYMS.get(letters, letters)
    return letters[:-2] if letters.endswith("id") and len(letters) > 2 else letters


def names(document, source, found):
    """Every property name and parameter name in `document`, with where it is and whether it is deprecated."""
    def walk(node, path):
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                for name, schema in properties.items():
                    deprecated = isinstance(schema, dict) and schema.get("deprecated") is True
                    found[name].append((f"{source}:{path}/properties/{name}", deprecated))
            if isinstance(node.get("name"), str) and node.get("in") in ("query", "path", "header"):
                found[node["name"]].append((f"{source}:{path} ({node['in']} parameter)", node.get("deprecated") is True))
            for child, value in node.items():
                walk(value, f"{path}/{child}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{path}/{index}")
    walk(document, "")


def main(schema_path, openapi_path, readme_path=None):
    found = collections.defaultdict(list)
    names(json.load(open(schema_path)), schema_path, found)
    names(yaml.safe_load(open(openapi_path)), openapi_path, found)
    groups = collections.defaultdict(set)
    for name in found:
        groups[key(name)].add(name)
    problems = []
    live = {name for name, places in found.items() if any(not deprecated for _, deprecated in places)}
    for spellings in groups.values():
        current = sorted(spellings & live)
        if len(current) > 1:
            where = "; ".join(f"{name} at {found[name][0][0]}" for name in current)
            problems.append(f"two spellings of one name: {', '.join(current)} ({where}); keep one, mark the other deprecated")
        for old in sorted(spellings - live):
            if not current:
                problems.append(f"{old} is marked deprecated but has no current spelling ({found[old][0][0]})")
    changelog = open(readme_path).read() if readme_path else None
    for old in sorted(set(found) - live):
        if changelog is not None and f"`{old}`" not in changelog and f"`{old}=" not in changelog:
            problems.append(f"the deprecated spelling {old} is not in {readme_path}'s changelog")
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    deprecated = sorted(set(found) - live)
    print(f"{len(found)} names in {schema_path} and {openapi_path}, one live spelling each; deprecated for one release: {', '.join(deprecated) or 'none'}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])

#!/usr/bin/env python3
"""Calls to Swift's atomic reference counting (swift_retain, swift_release and their _n forms) in callgrind files.

Usage: refcounts.py FILE…  → prints the total number of calls. Each call is one atomic read-modify-write of an
object's count: a few instructions, but they wait for the processor's memory ordering, so in time they cost three
to four times their share of the instruction count (docs/speed.md, "A send's record moved, not copied").
"""
import re
import sys

COUNTED = {"swift_retain", "swift_release", "swift_retain_n", "swift_release_n"}
NAMED = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")


def calls(path):
    names = {}  # callgrind's name compression: "(id) name" the first time, "(id)" after
    total, callee = 0, None
    with open(path, errors="replace") as lines:
        for line in lines:
            if line.startswith(("fn=", "cfn=")):
                match = NAMED.match(line.rstrip("\n"))
                if not match:
                    callee = None
                    continue
                ident, name = match.groups()
                if name is not None:
                    names[ident] = name
                callee = names.get(ident) if line.startswith("cfn=") else None
            elif line.startswith("calls=") and callee in COUNTED:
                total += int(line.split("=", 1)[1].split()[0])
    return total


print(sum(calls(path) for path in sys.argv[1:]))

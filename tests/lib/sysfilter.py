#!/usr/bin/python3
# SPDX-License-Identifier: ISC
"""sysfilter - which system calls a unit's SystemCallFilter= refuses.

Usage: sysfilter.py UNIT CALL...  Expands the unit's SystemCallFilter=
lines (an allow list: the first line without "~"; each later line adds
to it, or with "~" takes away from it, in order) with the groups that
systemd-analyze syscall-filter lists, and prints each CALL not allowed,
one a line.  Exit 0 either way; 2 if the unit has no allow list.
"""
import subprocess
import sys


def groups():
    out = subprocess.run(["systemd-analyze", "syscall-filter"],
                         capture_output=True, text=True).stdout
    found, name = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            name = line.split()[0]
            found[name] = []
        elif line.startswith("    ") and name and \
                not line.strip().startswith("#"):
            found[name].append(line.split()[0])
    return found


def expand(name, table, seen):
    if not name.startswith("@"):
        return {name}
    calls = set()
    for member in table.get(name, []):
        if member not in seen:
            seen.add(member)
            calls |= expand(member, table, seen)
    return calls


def main():
    table = groups()
    allowed, lines = set(), 0
    with open(sys.argv[1]) as unit:
        for line in unit:
            if not line.startswith("SystemCallFilter="):
                continue
            value = line.split("=", 1)[1].strip()
            deny = value.startswith("~")
            if lines == 0 and deny:
                sys.exit(2)
            lines += 1
            names = set()
            for name in value.lstrip("~").split():
                names |= expand(name, table, set())
            allowed = allowed - names if deny else allowed | names
    if not lines:
        sys.exit(2)
    for call in sorted(set(sys.argv[2:])):
        if call not in allowed:
            print(call)


main()

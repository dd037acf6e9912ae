#!/usr/bin/python3
# SPDX-License-Identifier: ISC
"""structure - the shape docs/architecture.md promises, checked on the tree.

  layers     every #include "mod/..." goes down the module layering below
             (a module may include itself and the modules it lists), so
             the module graph has no cycle; and no header includes itself
             through others.
  funclen    no function in src/ longer than 80 lines.
  daemon     no file of src/daemon longer than 700 lines.
  globals    no mutable global in the engine or the wire code: every
             object their compiled units define sits in .rodata or
             .data.rel.ro (read-only after relocation), none in .data,
             .bss or thread-local storage.

Usage: structure.py SRC_DIR OBJ_DIR.  Prints PASS:/FAIL: lines.
"""
import os
import re
import subprocess
import sys

LAYERS = {
    "wire": set(),
    "engine": {"wire"},
    "lib": {"wire", "engine"},
    "daemon": {"wire", "engine", "bpf"},
    "bpf": set(),
    "shim": {"lib"},
    "ctl": {"lib", "wire"},
    "run": {"lib", "wire"},
    "ping": set(),
}
FUNC_MAX = 80
DAEMON_FILE_MAX = 700
OBJECT = re.compile(r"\sO\s+(\S+)\s+[0-9a-f]+\s+(\S+)$", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/([^"]+)"', re.M)


def sources(src):
    for mod in sorted(os.listdir(src)):
        d = os.path.join(src, mod)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h")):
                yield mod, name, os.path.join(d, name)


def result(ok, name, why):
    print(("PASS: structure/%s" % name) if ok else
          "FAIL: structure/%s: %s" % (name, why))


def check_layers(src):
    bad, graph = [], {}
    for mod, name, path in sources(src):
        with open(path) as f:
            text = f.read()
        deps = []
        for imod, ipath in INCLUDE.findall(text):
            if imod != mod and imod not in LAYERS.get(mod, set()):
                bad.append("%s/%s includes %s/%s" % (mod, name, imod, ipath))
            deps.append("%s/%s" % (imod, ipath))
        graph["%s/%s" % (mod, name)] = deps
    result(not bad, "layers", "; ".join(bad[:5]))
    cycles = []
    for start in (h for h in graph if h.endswith(".h")):
        seen, todo = set(), list(graph[start])
        while todo:
            h = todo.pop()
            if h == start:
                cycles.append(start)
                break
            if h not in seen:
                seen.add(h)
                todo.extend(graph.get(h, []))
    result(not cycles, "header_cycles", "a header includes itself: " +
           ", ".join(cycles[:5]))


def long_functions(path):
    """(first line, length) of each function over FUNC_MAX lines: a
    definition opens with '{' alone in column 0 and ends at '}' there."""
    with open(path) as f:
        lines = f.read().split("\n")
    out, head = [], None
    for i, line in enumerate(lines):
        if line == "{" and head is None:
            head = i
            while head > 0 and lines[head - 1] and \
                    not lines[head - 1].startswith(("}", "#", "/*", " *")):
                head -= 1
        elif line.startswith("}") and head is not None:
            if i - head + 1 > FUNC_MAX:
                out.append((lines[head].strip()[:50], i - head + 1))
            head = None
    return out


def check_funclen(src):
    bad = []
    for mod, name, path in sources(src):
        if name.endswith(".c"):
            bad += ["%s/%s: %s (%d lines)" % (mod, name, h, n)
                    for h, n in long_functions(path)]
    result(not bad, "funclen", "; ".join(bad[:5]))


def check_daemon(src):
    bad = []
    for mod, name, path in sources(src):
        if mod == "daemon":
            with open(path) as f:
                n = sum(1 for _ in f)
            if n >= DAEMON_FILE_MAX:
                bad.append("%s (%d lines)" % (name, n))
    result(not bad, "daemon_files", ", ".join(bad))


def check_globals(obj):
    bad, seen = [], 0
    for mod in ("engine", "wire"):
        d = os.path.join(obj, mod)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not name.endswith(".o"):
                continue
            seen += 1
            table = subprocess.run(["objdump", "-t", os.path.join(d, name)],
                                   capture_output=True, text=True,
                                   check=True).stdout
            for m in OBJECT.finditer(table):
                if not m.group(1).startswith((".rodata", ".data.rel.ro")):
                    bad.append("%s/%s: %s in %s" % (mod, name, m.group(2),
                                                    m.group(1)))
    if seen == 0:
        result(False, "globals", "no objects under " + obj)
    else:
        result(not bad, "globals", "; ".join(bad[:5]))


def main():
    src, obj = sys.argv[1], sys.argv[2]
    check_layers(src)
    check_funclen(src)
    check_daemon(src)
    check_globals(obj)


main()

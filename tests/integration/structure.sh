#!/bin/bash
# SPDX-License-Identifier: ISC
# structure - the shape docs/architecture.md describes, held against the
# tree (tests/lib/structure.py): the modules include only downwards (no
# cycle), no function over 80 lines, no daemon file of 700 lines or
# more, no mutable global in the engine or the wire code (checked on the
# compiled objects of this build).
set -u
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 tests/lib/structure.py src "${PS_BUILD:-build}/obj/src"

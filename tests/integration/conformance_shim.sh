#!/bin/bash
# SPDX-License-Identifier: ISC
# conformance_shim - the differential conformance cases, built as plain
# libc programs (tests/conformance/plain.h), must give the same output on
# the kernel's ping socket and, unmodified, under libpingsock-preload.so
# on pingsockd: tests/conformance/run.sh with CONF_SHIM=1.
exec env CONF_SHIM=1 "$(dirname "$0")/../conformance/run.sh" "$@"

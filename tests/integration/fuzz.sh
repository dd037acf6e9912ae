#!/bin/bash
# SPDX-License-Identifier: ISC
# fuzz - the libFuzzer targets (tests/fuzz), built with clang, ASan and
# UBSan, each run for a fixed number of inputs (below) from its seed
# corpus.  They sanitize themselves, so the suite's second pass (the ASan
# build) does not run them again.
#
# In the suite, each gets FUZZ_RUNS (default 100000) but the two dispatch
# targets, which run the whole daemon per input (about 1,000 inputs a
# second here, against 5,000 to 100,000 for the others): they get
# FUZZ_DISPATCH_RUNS (default 50000).  Measured, those reach 97 to 99 %
# of the coverage 200,000 runs reach, in a quarter to a half of the time.
# `make fuzz` runs every target for its FUZZ_RUNS (default 200000).
cd "$(dirname "$0")/../.." || exit 1
case ${PS_BUILD:-build} in
*build-asan) exit 0 ;;
esac
if ! command -v clang >/dev/null; then
	echo "FAIL: fuzz: clang is not installed (.ci/packages has it)"
	exit 1
fi
if ! make -s -j"$(nproc)" fuzz-build >/tmp/fuzz-build.$$ 2>&1; then
	echo "FAIL: fuzz/build: $(tail -3 /tmp/fuzz-build.$$ | tr '\n' '|')"
	rm -f /tmp/fuzz-build.$$
	exit 1
fi
rm -f /tmp/fuzz-build.$$
export FUZZ_RUNS_fuzz_dispatch=${FUZZ_DISPATCH_RUNS:-50000}
export FUZZ_RUNS_fuzz_dispatch_thread=${FUZZ_DISPATCH_RUNS:-50000}
exec tests/fuzz/run "${FUZZ_RUNS:-100000}" build/fuzz/fuzz_*

# SPDX-License-Identifier: ISC
# shellcheck shell=bash
# tests/lib/compare.sh - compare a program's output with a reference run
# (source it; netns.sh's pass/fail must be defined by the time it is used).
#
#   mask FILE             FILE with what legitimately varies masked
#   compare NAME DIR [RC] DIR/{ours,ref}.{out,err,rc} against each other;
#                         with RC, the reference must have exited RC (a
#                         reference run that failed proves nothing); with
#                         CMP_EXPECT="out:ERE" (or "err:ERE") set, a line
#                         of the reference's stdout (stderr), masked,
#                         must match ERE (one such line per ERE)
#   run_both DIR ARGS...  `ours ARGS...` and `ref ARGS...` (functions the
#                         caller defines) at the same time, into DIR
#   same NAME ARGS...     run_both, then compare; the reference must exit 0
#   same_rc RC NAME ARGS... the same, the reference must exit RC
#
# CMP_REF and CMP_OURS name the two sides in failure messages (default
# "kernel" and "shim"); LABEL prefixes the names given to same/same_rc.

CMP_REF=${CMP_REF:-kernel}
CMP_OURS=${CMP_OURS:-shim}

# What varies from run to run: iputils ping's RTTs, run time, -D stamps,
# the program's path in its messages, the socket fd in -v lines and the
# -T timestamps; traceroute's RTTs; fping's RTTs and averages.
mask() {
	sed -E -e 's#^[^ ]*/ping: #ping: #' \
		-e 's#^(ping: sock4\.fd: )[0-9]+ #\1N #' \
		-e 's/ time=[0-9.]+ ms/ time=T ms/' \
		-e 's/, time [0-9]+ms/, time Tms/' \
		-e 's#^(rtt min/avg/max/mdev = )[0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms#\1R ms#' \
		-e 's#(, min/avg/ewma/max = )[0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms#\1R ms#' \
		-e 's#(, ipg/ewma )[0-9.]+/[0-9.]+ ms#\1R ms#' \
		-e 's#^\[[0-9]+\.[0-9]{6}\] #[TS] #' \
		-e 's/\t-?[0-9]+( absolute)?( not-standard)?$/\tN\1\2/' \
		-e 's/  [0-9]+\.[0-9]{3} ms/  T ms/g' \
		-e 's#, [0-9.]+ ms \([0-9.]+ avg, #, T ms (T avg, #' \
		-e 's#(, min/avg/max = )[0-9.]+/[0-9.]+/[0-9.]+$#\1R#' "$1" |
		flood_counts
}

# A flood line (ping -f: "." at each request, "\b \b" at each reply,
# "\bE" at each error) as its counts.  The order of the three is the
# scheduler's: a ping held up for more than an interval sends again
# before it reads the reply ("..\b \b\b \b"), and either side of a
# comparison may be.  What each prints, and how many, is the program's.
flood_counts() {
	awk 'BEGIN { bs = sprintf("%c", 8) }
	{
		t = $0
		gsub("[." bs " E]", "", t)
		if (t != "" || !index($0, ".")) { print; next }
		t = $0
		e = gsub(bs "E", "", t)
		r = gsub(bs " " bs, "", t)
		d = gsub("[.]", "", t)
		printf "[flood: %d sent, %d replies, %d errors, %d left over]\n",
			d, r, e, length(t)
	}'
}

compare() {
	local name=$1 d=$2 rc=${3:-} s e why=""
	for s in out err; do
		if ! diff <(mask "$d/ref.$s") <(mask "$d/ours.$s") >"$d/diff.$s"; then
			why+="std$s differs (< $CMP_REF, > $CMP_OURS): "
			why+=$(head -12 "$d/diff.$s" | tr '\n' '|')" "
		fi
	done
	[ "$(cat "$d/ours.rc")" = "$(cat "$d/ref.rc")" ] ||
		why+="exit $(cat "$d/ours.rc"), $CMP_REF $(cat "$d/ref.rc") "
	if [ -n "$rc" ] && [ "$(cat "$d/ref.rc")" != "$rc" ]; then
		why+="the $CMP_REF run exited $(cat "$d/ref.rc"), not $rc: "
		why+=$(cat "$d/ref.out" "$d/ref.err" | head -4 | tr '\n' '|')" "
	fi
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		mask "$d/ref.${e%%:*}" | grep -Eq -e "${e#*:}" && continue
		why+="the $CMP_REF run printed no line matching '${e#*:}' "
		why+="on std${e%%:*}: "
		why+=$(head -4 "$d/ref.${e%%:*}" | tr '\n' '|')" "
	done <<<"${CMP_EXPECT:-}"
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
}

run_both() {
	local d=$1 p; shift
	ours "$@" >"$d/ours.out" 2>"$d/ours.err" &
	p=$!
	ref "$@" >"$d/ref.out" 2>"$d/ref.err"; echo $? >"$d/ref.rc"
	wait $p; echo $? >"$d/ours.rc"
}

same_rc() {
	local rc=$1 name=${LABEL:+$LABEL/}$2 d; shift 2
	d=$(mktemp -d "$T/case.XXXXXX")
	run_both "$d" "$@"
	compare "$name" "$d" "$rc"
}

same() { same_rc 0 "$@"; }

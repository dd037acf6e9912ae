#!/bin/bash
# shim_ping - an unmodified iputils ping through libpingsock-preload.so.
#
# A capability-free copy of /usr/bin/ping runs as uid 65534 with only
# LD_PRELOAD set, in a namespace whose ping_group_range is "1 0" (so the
# kernel refuses the socket and pingsockd serves it), and is compared -
# output lines with times masked, and exit status - with the same copy in
# a namespace whose range is open (the kernel's own ping socket, no shim).
# Then, with the range open and the shim loaded, the kernel's socket must
# be used: no call is served by pingsockd.
. "$(dirname "$0")/../lib/netns.sh"

LABEL=shim_ping
REF=${PING_REFERENCE:-/usr/bin/ping}

if [ "$(id -u)" != 0 ]; then
	skip $LABEL "needs root for network namespaces"
	ns_done
fi
if ! [ -x "$REF" ] || ! "$REF" -V 2>/dev/null | grep -q 'iputils'; then
	skip $LABEL "no iputils ping at $REF"
	ns_done
fi
if ! [ -e "$PS_BUILD/libpingsock-preload.so" ]; then
	fail $LABEL/setup "no $PS_BUILD/libpingsock-preload.so"
	ns_done
fi
cp "$PS_BUILD/libpingsock-preload.so" "$T/" &&
	mkdir -p "$T/bin" && cp "$REF" "$T/bin/ping" && chmod -R a+rX "$T" ||
	{ fail $LABEL/setup "copies"; ns_done; }

# The ASan build's shim needs the ASan runtime first in the preload list
# (ASan must come before anything it intercepts); UBSan's runtime is a
# plain dependency of the shim (ldd shows libubsan.so) and needs nothing.
PRELOAD=$T/libpingsock-preload.so
case $PS_BUILD in
*build-asan) PRELOAD="$(gcc -print-file-name=libasan.so):$PRELOAD" ;;
esac

ns_new k open || { fail $LABEL/setup "ip netns add"; ns_done; }
ns_new d closed || { fail $LABEL/setup "ip netns add"; ns_done; }
daemon_start d || { fail $LABEL/setup "pingsockd"; ns_done; }
# A veth pair in each, with the same addresses: 10.204.0.1 -- 10.204.0.2.
for n in k d; do
	ns_new ${n}p closed &&
	ns_veth $n ${n}p 10.204.0.1/24 10.204.0.2/24 ||
		{ fail $LABEL/setup "veth for $n"; ns_done; }
done

# shimmed|kernel ARGS...
shimmed() { as_nobody d env LD_PRELOAD="$PRELOAD" "$T/bin/ping" "$@"; }
kernel() { as_nobody k "$T/bin/ping" "$@"; }

mask() {
	sed -E -e 's#^[^ ]*/ping: #ping: #' \
		-e 's/ time=[0-9.]+ ms/ time=T ms/' \
		-e 's/, time [0-9]+ms/, time Tms/' \
		-e 's#^(rtt min/avg/max/mdev = )[0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms#\1R ms#' "$1"
}

# same NAME ARGS...: both runs, stdout, stderr and status compared.
same() {
	local name=$LABEL/$1 d s why=""; shift
	d=$(mktemp -d "$T/case.XXXXXX")
	shimmed "$@" >"$d/ours.out" 2>"$d/ours.err"; echo $? >"$d/ours.rc"
	kernel "$@" >"$d/ref.out" 2>"$d/ref.err"; echo $? >"$d/ref.rc"
	for s in out err; do
		if ! diff <(mask "$d/ref.$s") <(mask "$d/ours.$s") >"$d/diff.$s"; then
			why+="std$s differs (< kernel, > shim): "
			why+=$(head -12 "$d/diff.$s" | tr '\n' '|')" "
		fi
	done
	[ "$(cat "$d/ours.rc")" = "$(cat "$d/ref.rc")" ] ||
		why+="exit $(cat "$d/ours.rc"), kernel $(cat "$d/ref.rc") "
	# A run that printed no reply proves nothing.
	[ "$(cat "$d/ref.rc")" = 0 ] || why+="the kernel's run failed "
	[ -z "$why" ] && pass "$name" || fail "$name" "$why"
}

same c3		-c 3 127.0.0.1
same s1000	-c 2 -s 1000 127.0.0.1
same quiet	-q -c 2 127.0.0.1
same veth	-c 2 10.204.0.2

# The shim did serve those: its debug log names pingsockd's socket.
out=$(shimmed -c 1 127.0.0.1 2>&1 >/dev/null)
err=$(PINGSOCK_DEBUG=1 shimmed -c 1 127.0.0.1 2>&1 >/dev/null)
if grep -q 'socket(2, .*) \[pingsockd\] = [0-9]*' <<<"$err" &&
	grep -q 'recvmsg(' <<<"$err" && [ -z "$out" ]; then
	pass $LABEL/debug_log
else
	fail $LABEL/debug_log "$(head -5 <<<"$err" | tr '\n' '|')"
fi
# ... on stderr only.
o=$(PINGSOCK_DEBUG=1 shimmed -c 1 127.0.0.1 2>/dev/null)
if ! grep -q pingsock-preload <<<"$o" && grep -q '1 received' <<<"$o"; then
	pass $LABEL/debug_stderr_only
else
	fail $LABEL/debug_stderr_only "$(head -3 <<<"$o" | tr '\n' '|')"
fi

# PINGSOCK_BACKEND=kernel with the range closed: the kernel's refusal.
o=$(as_nobody d env LD_PRELOAD="$PRELOAD" PINGSOCK_BACKEND=kernel \
	"$T/bin/ping" -c 1 127.0.0.1 2>&1); rc=$?
if [ $rc != 0 ] && ! grep -q ' bytes from ' <<<"$o"; then
	pass $LABEL/backend_kernel
else
	fail $LABEL/backend_kernel "exit $rc: $(head -3 <<<"$o" | tr '\n' '|')"
fi

# Range open, shim loaded, pingsockd running: the kernel's own socket,
# nothing shimmed (debug log empty), the daemon sends nothing, and the
# output is that of the run without the shim.
sent() { in_ns d "$T/pingsockctl" --socket "$(ns_sock d)" status |
	awk '$1 == "sent" { print $2 }'; }
in_ns d sysctl -qw net.ipv4.ping_group_range="0 2147483647"
d=$(mktemp -d "$T/case.XXXXXX")
before=$(sent)
as_nobody d env LD_PRELOAD="$PRELOAD" PINGSOCK_DEBUG=1 "$T/bin/ping" \
	-c 2 127.0.0.1 >"$d/out" 2>"$d/err"; rc=$?
after=$(sent)
in_ns d sysctl -qw net.ipv4.ping_group_range="1 0"
kernel -c 2 127.0.0.1 >"$d/ref.out" 2>/dev/null
if [ $rc = 0 ] && ! grep -q pingsock-preload "$d/err" && [ -n "$before" ] &&
	[ "$before" = "$after" ] &&
	diff <(mask "$d/ref.out") <(mask "$d/out") >/dev/null; then
	pass $LABEL/kernel_untouched
else
	fail $LABEL/kernel_untouched "exit $rc, daemon sent $before -> $after: $(head -3 "$d/err" | tr '\n' '|')"
fi

ns_done

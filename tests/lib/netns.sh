# SPDX-License-Identifier: ISC
# tests/lib/netns.sh - shared set-up for integration tests (source it).
#
#   . "$(dirname "$0")/../lib/netns.sh"
#   ns_new k open          # namespace with kernel ping sockets allowed
#   ns_new d closed        # ping_group_range "1 0": only pingsockd serves
#   ns_veth d peer 10.200.1.1/24 10.200.1.2/24
#   daemon_start d [pingsockd args...]
#   as_nobody d "$T/ping" -c 1 127.0.0.1
#   pass name | fail name why | skip name why
#
# Everything made here (namespaces, daemons, the temporary directory) is
# removed on exit, whatever happened.  Binaries are copied into a
# directory that uid 65534 can read, as CI's checkout may not be.
# Namespace names carry the shell's pid so that parallel runs do not clash.

set -u
PS_BUILD=${PS_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
NS_PREFIX="ps$$"
NS_LIST=()
DAEMON_PIDS=()
NS_CGROUPS=()
NS_BPFFS=
T=$(mktemp -d /tmp/pingsock-test.XXXXXX)
chmod 755 "$T"

# Copy the build's programs (and test helpers) where nobody can run them.
cp -a "$PS_BUILD"/pingsockd "$PS_BUILD"/ping "$PS_BUILD"/pingsockctl \
	"$PS_BUILD"/pingsock-run "$T"/ 2>/dev/null
[ -d "$PS_BUILD/tests" ] && cp -a "$PS_BUILD/tests" "$T/" 2>/dev/null
[ -d "$PS_BUILD/bench" ] && cp -a "$PS_BUILD/bench" "$T/" 2>/dev/null
chmod -R a+rX "$T"

# The daemon's user: one of its own, as pingsockd requires (it refuses
# nobody and other shared users).  Made once, if missing, under a lock:
# tests run side by side.
PS_DAEMON_USER=pingsock
if ! getent passwd "$PS_DAEMON_USER" >/dev/null; then
	flock /tmp/pingsock-test-useradd.lock sh -c \
		"getent passwd $PS_DAEMON_USER >/dev/null || useradd --system \
		 --no-create-home --home-dir /nonexistent \
		 --shell /usr/sbin/nologin $PS_DAEMON_USER"
fi
PS_DAEMON_UID=$(id -u "$PS_DAEMON_USER")

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: ${2:-}"; FAILED=1; }
skip() { echo "SKIP: $1: ${2:-}"; }
FAILED=0

# hup_wait PID LOG: SIGHUP to a pingsockd, then wait (10 s at most)
# until LOG says it reloaded or refused to: a fixed sleep is too short
# for a daemon kept from a processor on a busy machine.
hup_wait() {
	local n i
	n=$(grep -Ecs 'reloaded |reload refused|nothing to reload' "$2")
	kill -HUP "$1" || return 1
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -Ecs 'reloaded |reload refused|nothing to reload' "$2")" -gt "$n" ] &&
			return 0
		sleep 0.05
	done
	return 1
}

# file_has FILE ERE SECONDS: wait until a line of FILE matches ERE (0),
# or SECONDS have passed (1).  For what a background process prints
# when it is ready: a fixed sleep is too short on a busy machine.
file_has() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -Eqs -e "$2" "$1" && return 0
		sleep 0.05
	done
	return 1
}

ns_cleanup() {
	local p n
	for p in "${DAEMON_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${DAEMON_PIDS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
	done
	for n in "${NS_LIST[@]}"; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$n" 2>/dev/null
	done
	ns_bpf_cleanup
	# PS_KEEP_T=DIR keeps a copy of the test's files (daemon logs...).
	[ -n "${PS_KEEP_T:-}" ] && cp -r "$T" "$PS_KEEP_T"
	rm -rf "$T"
}
trap ns_cleanup EXIT
trap 'exit 130' INT TERM

# ns_name SHORT -> the real namespace name
ns_name() { echo "$NS_PREFIX-$1"; }

# ns_new SHORT open|closed
ns_new() {
	local n; n=$(ns_name "$1")
	ip netns add "$n" || return 1
	NS_LIST+=("$n")
	ip netns exec "$n" ip link set lo up
	if [ "${2:-closed}" = open ]; then
		ip netns exec "$n" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
	else
		ip netns exec "$n" sysctl -qw net.ipv4.ping_group_range="1 0"
	fi
}

# ns_veth NS1 NS2 ADDR1/PLEN ADDR2/PLEN [IF1 [IF2]]
ns_veth() {
	local a b if1=${5:-veth-$2} if2=${6:-veth-$1}
	a=$(ns_name "$1"); b=$(ns_name "$2")
	ip link add "$if1" netns "$a" type veth peer name "$if2" netns "$b" || return 1
	ip -n "$a" addr add "$3" dev "$if1"
	ip -n "$b" addr add "$4" dev "$if2"
	ip -n "$a" link set "$if1" up
	ip -n "$b" link set "$if2" up
}

# in_ns SHORT cmd... (as root)
in_ns() { local n; n=$(ns_name "$1"); shift; ip netns exec "$n" "$@"; }

# The daemon's socket in namespace SHORT.
ns_sock() { echo "$T/run-$1/socket"; }

# A gid no account has: broker mode's group in the tests.
BROKER_GID=64999

# Broker mode's BPF guard (pingsockd(8)): each script's daemons pin their
# maps on a BPF file system of the script's own and run in cgroups of
# their own, so that no test meets another's (or a host daemon's) maps or
# programs.  ns_bpf_args SHORT: the options, in NS_BPF_OPTS.
ns_bpf_args() {
	local cg2 cg
	NS_BPF_OPTS=()
	[ "$(id -u)" = 0 ] || return 0
	cg2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
	if [ -z "$NS_BPFFS" ]; then
		mkdir -p "$T/bpffs" && mount -t bpf bpf "$T/bpffs" || return 0
		NS_BPFFS=$T/bpffs
	fi
	[ -n "$cg2" ] || return 0
	cg=$cg2/pingsock-test-$NS_PREFIX-$1
	case " ${NS_CGROUPS[*]} " in *" $cg "*) ;; *) NS_CGROUPS+=("$cg") ;; esac
	NS_BPF_OPTS=(--bpf-pin-dir "$NS_BPFFS/$1" --bpf-cgroup "$cg")
}

# The cgroups (empty once the daemons are gone) and the file system.
ns_bpf_cleanup() {
	local cg
	for cg in "${NS_CGROUPS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ -d "$cg" ] || break
			rmdir "$cg" 2>/dev/null && break
			sleep 0.1
		done
	done
	[ -z "$NS_BPFFS" ] || umount "$NS_BPFFS" 2>/dev/null
}

# daemon_start SHORT [args...]: pingsockd in the foreground (background
# job), --user $PS_DAEMON_USER, socket $(ns_sock SHORT); waits until it
# accepts.
# Without a --config among args, the daemon gets one that lifts the
# per-user limits (rate, max_sockets): tests load it harder than any one
# user should; the limits have their own tests.  PS_DAEMON_START_S: how
# long to wait for it (5 s; a daemon under valgrind needs more).
# PS_DAEMON_BIN: another build of it (the test build's, for its hooks).
daemon_start() {
	local short=$1; shift
	local sock; sock=$(ns_sock "$short")
	case " $* " in
	*" --config "*) ;;
	*) printf 'rate = 0\nmax_sockets = 0\n' >"$T/unlimited.conf"
		chmod 644 "$T/unlimited.conf"
		set -- --config "$T/unlimited.conf" "$@" ;;
	esac
	# PS_DAEMON_MODE=broker (tests/run's broker pass): kernel ping
	# sockets handed out, made as a group that no user has.
	if [ "${PS_DAEMON_MODE:-}" = broker ]; then
		set -- --mode broker --broker-group "$BROKER_GID" "$@"
	fi
	ns_bpf_args "$short"
	set -- "${NS_BPF_OPTS[@]}" "$@"
	# Not through a function: $! must be the daemon itself.  nsenter, not
	# ip netns exec: that remounts /sys, and the daemon's cgroup (v2)
	# file system with it (ns_bpf_args).
	nsenter --net="/run/netns/$(ns_name "$short")" ${PS_DAEMON_WRAPPER:-} \
		"${PS_DAEMON_BIN:-$T/pingsockd}" --foreground --socket "$sock" \
		--user "$PS_DAEMON_USER" \
		"$@" 2>>"$T/$short.log" &
	DAEMON_PID=$!
	DAEMON_PIDS+=("$DAEMON_PID")
	for _ in $(seq 1 $((${PS_DAEMON_START_S:-5} * 20))); do
		[ -S "$sock" ] && break
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.05
	done
	if ! [ -S "$sock" ]; then
		echo "pingsockd did not start; its log:" >&2
		cat "$T/$short.log" >&2
		return 1
	fi
	return 0
}

# daemon_stop: SIGTERM the last started daemon and wait for it.
daemon_stop() {
	kill -TERM "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID" 2>/dev/null
}

# as_nobody SHORT cmd...: uid/gid 65534, no other groups, PINGSOCK_SOCKET
# pointing at that namespace's daemon.
as_nobody() {
	local short=$1; shift
	in_ns "$short" setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_SOCKET="$(ns_sock "$short")" "$@"
}

# as_uid UID SHORT cmd...
as_uid() {
	local uid=$1 short=$2; shift 2
	in_ns "$short" setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		env PINGSOCK_SOCKET="$(ns_sock "$short")" "$@"
}

# ns_done: exit status for the script (1 if any fail was reported).
ns_done() { exit "$FAILED"; }

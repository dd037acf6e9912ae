#!/bin/bash
# SPDX-License-Identifier: ISC
# pingsockd as systemd runs it.
#
#   - make install (into a temporary PREFIX) writes the units for that
#     PREFIX and systemd-analyze verify accepts them; make uninstall removes
#     everything it installed;
#   - the unit: systemd-analyze security --offline scores it 2.0 or less
#     (exposure), and its SystemCallFilter= allows every call the daemon
#     makes from its execve to its exit (strace);
#   - socket activation: systemd's own systemd-socket-activate passes a
#     listening SEQPACKET socket as fd 3 (LISTEN_PID, LISTEN_FDS) and starts
#     pingsockd on the first connection, as the unit does: as the daemon's
#     user, with CAP_NET_RAW alone (ambient), its bounding set and
#     no_new_privs; uid 65534 pings through it; the daemon neither chowns
#     nor removes systemd's socket file;
#   - a passed socket that is not a listening SEQPACKET socket, two sockets,
#     or a --socket naming another path: refused with one line, exit 1;
#     LISTEN_PID naming another process: ignored;
#   - --check-config: "FILE: ok" / "FILE:LINE: reason", exit 0 / 1, as an
#     unprivileged user, opening nothing but the file; without --config it
#     checks the default file; the shipped etc/pingsockd.conf is ok.
. "$(dirname "$0")/../lib/netns.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PS_DAEMON_GID=$(id -g "$PS_DAEMON_USER")

for tool in systemd-analyze systemd-socket-activate; do
	if ! command -v "$tool" >/dev/null; then
		skip systemd/tools "no $tool (Debian package systemd)"
		exit 0
	fi
done

# --- install, verify, uninstall ---

PFX=$T/prefix
UNITDIR=$PFX/lib/systemd/system
# -o all: install what PS_BUILD holds, never rebuild it here (the ASan
# pass's objects would be rebuilt without ASan).
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$SRC" -o all install \
	BUILD="$PS_BUILD" PREFIX="$PFX" CREATE_USER=no >"$T/install.log" 2>&1 &&
	[ -f "$UNITDIR/pingsockd.service" ] && [ -f "$UNITDIR/pingsockd.socket" ]; then
	pass systemd/install_units
else
	fail systemd/install_units "$(cat "$T/install.log"; ls -R "$PFX" 2>&1 | head -40)"
fi

exec_line=$(grep '^ExecStart=' "$UNITDIR/pingsockd.service" 2>/dev/null)
[ "$exec_line" = "ExecStart=$PFX/sbin/pingsockd --foreground --user pingsock" ] &&
	pass systemd/unit_execstart_from_prefix ||
	fail systemd/unit_execstart_from_prefix "$exec_line"

# Documentation=man:pingsockd(8) is checked against the installed page
# when man(1) is there.
verify() {	# unit files...
	if command -v man >/dev/null; then
		MANPATH=$PFX/share/man systemd-analyze verify "$@" 2>&1
	else
		systemd-analyze verify --man=no "$@" 2>&1
	fi
}
# A warning (an unknown key, say) still exits 0: any output is a failure.
out=$(verify "$UNITDIR/pingsockd.socket" "$UNITDIR/pingsockd.service")
rc=$?
[ $rc = 0 ] && [ -z "$out" ] && pass systemd/analyze_verify ||
	fail systemd/analyze_verify "exit $rc: $out"

# The same check rejects a broken unit (so the pass above means something).
mkdir -p "$T/badunit"
sed "s|^ExecStart=$PFX/sbin/|ExecStart=$T/nowhere/|" \
	"$UNITDIR/pingsockd.service" >"$T/badunit/pingsockd.service"
cp "$UNITDIR/pingsockd.socket" "$T/badunit/"
out=$(verify "$T/badunit/pingsockd.socket" "$T/badunit/pingsockd.service")
rc=$?
[ $rc != 0 ] && grep -q 'not executable' <<<"$out" &&
	pass systemd/analyze_verify_rejects_broken ||
	fail systemd/analyze_verify_rejects_broken "exit $rc: $out"

# The socket unit listens where clients look by default, as the daemon
# would make it itself: 0666 in a 0755 directory.
sock_unit=$(cat "$UNITDIR/pingsockd.socket" 2>/dev/null)
grep -qx 'ListenSequentialPacket=/run/pingsock/socket' <<<"$sock_unit" &&
	grep -qx 'SocketMode=0666' <<<"$sock_unit" &&
	grep -qx 'DirectoryMode=0755' <<<"$sock_unit" &&
	pass systemd/socket_unit_path_and_modes ||
	fail systemd/socket_unit_path_and_modes "$sock_unit"

# /run/pingsock: one owner and mode, the tmpfiles.d entry's (root's, the
# daemon's group, 0775, as pingsockd makes it as root).  The service has
# no RuntimeDirectory= (it would chown it to pingsock:pingsock 0755 at
# every start, and a root start take it back) but may write there
# (ReadWritePaths=, under ProtectSystem=strict); the socket unit makes it
# root:root 0755 only if it is missing (0775 root:root would be refused).
tmpf=$(grep -v '^#' "$PFX/lib/tmpfiles.d/pingsockd.conf" 2>/dev/null)
svc=$(cat "$UNITDIR/pingsockd.service" 2>/dev/null)
if [ "$tmpf" = "d /run/pingsock 0775 root pingsock -" ] &&
	! grep -q '^RuntimeDirectory' <<<"$svc" &&
	grep -qx 'ReadWritePaths=-/run/pingsock' <<<"$svc" &&
	grep -qx 'DirectoryMode=0755' <<<"$sock_unit"; then
	pass systemd/run_dir_declarations_agree
else
	fail systemd/run_dir_declarations_agree "tmpfiles '$tmpf'; service: $(grep -E '^(RuntimeDirectory|ReadWritePaths)' <<<"$svc" | tr '\n' ' ')"
fi

# The unit's capability bounding set and ambient set, as setpriv(1)
# takes them.
capset() {	# key
	local c out=
	for c in $(sed -n "s/^$1=//p" "$UNITDIR/pingsockd.service" 2>/dev/null); do
		c=${c#CAP_}
		out="$out,+${c,,}"
	done
	echo "${out#,}"
}
bset=-all,$(capset CapabilityBoundingSet)
ambient=$(capset AmbientCapabilities)
unit_user=$(sed -n 's/^User=//p' "$UNITDIR/pingsockd.service" 2>/dev/null)
[ "$ambient" = +net_raw ] && [ "$bset" = -all,+net_raw ] &&
	[ "$unit_user" = pingsock ] &&
	grep -qx 'Type=notify' "$UNITDIR/pingsockd.service" &&
	grep -qx 'WatchdogSec=30s' "$UNITDIR/pingsockd.service" &&
	pass systemd/unit_relay_without_root ||
	fail systemd/unit_relay_without_root "User=$unit_user, ambient $ambient, bounding $bset"

# The exposure score, offline (no running systemd needed): 2.0 or less
# (systemd-resolved scores 2.2, chrony more).
sec=$(systemd-analyze security --offline=yes "$UNITDIR/pingsockd.service" 2>&1)
score=$(sed -n 's/.*Overall exposure level for pingsockd.service: \([0-9.]*\).*/\1/p' <<<"$sec")
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
	pass "systemd/unit_security_score_${score}_at_most_2.0"
else
	fail systemd/unit_security_score "score '${score}': $(tail -3 <<<"$sec")"
fi

if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$SRC" uninstall \
	BUILD="$PS_BUILD" PREFIX="$PFX" >>"$T/install.log" 2>&1 &&
	[ -z "$(find "$PFX" ! -type d)" ]; then
	pass systemd/uninstall_removes_all
else
	fail systemd/uninstall_removes_all "left: $(find "$PFX" ! -type d | head)"
fi

# --- socket activation ---

ns_new d closed
SOCK=$(ns_sock d)
mkdir -p "$(dirname "$SOCK")"
chmod 755 "$(dirname "$SOCK")"

# activate SHORT-LOG [systemd-socket-activate args...] -- [pingsockd args]:
# as systemd would, under the unit's bounding set and no_new_privs.  The
# tool opens the socket(s), waits for the first connection, then execs
# pingsockd with the socket as fd 3.  Sets DAEMON_PID (the same process
# throughout: setpriv and the tool exec).
# The tool (root, as systemd) makes the socket, then becomes the unit's
# process: its user and group, no other group, CAP_NET_RAW inheritable
# and ambient, its bounding set, no_new_privs.
activate() {
	local log=$1; shift
	local sa=() ; while [ $# -gt 0 ] && [ "$1" != -- ]; do sa+=("$1"); shift; done
	shift
	ip netns exec "$(ns_name d)" systemd-socket-activate "${sa[@]}" \
		setpriv --reuid="$PS_DAEMON_USER" --regid="$PS_DAEMON_GID" \
		--clear-groups --inh-caps="$ambient" --ambient-caps="$ambient" \
		--bounding-set="$bset" --no-new-privs \
		"$T/pingsockd" --foreground --user "$PS_DAEMON_USER" "$@" 2>>"$T/$log" &
	DAEMON_PID=$!
	DAEMON_PIDS+=("$DAEMON_PID")
}

wait_file() {	# path: until it is a socket (5 s)
	for _ in $(seq 1 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# exited PID: its exit status once it ends (5 s), or 124.
exited() {
	for _ in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return $?; }
		sleep 0.05
	done
	return 124
}

# A connection of a given type (stream or seqpacket), to wake the tool.
poke() {	# path type
	in_ns d python3 -c '
import socket, sys
t = socket.SOCK_STREAM if sys.argv[2] == "stream" else socket.SOCK_SEQPACKET
s = socket.socket(socket.AF_UNIX, t)
try:
    s.connect(sys.argv[1])
except OSError:
    pass
' "$1" "$2"
}

activate act.log --seqpacket -l "$SOCK" --
if wait_file "$SOCK"; then
	# systemd-socket-activate makes it 0644; the unit says SocketMode=0666.
	chmod 0666 "$SOCK"
	pass systemd/activate_listens
else
	fail systemd/activate_listens "$(cat "$T/act.log")"
fi

# The first connection starts the daemon, as with the real socket unit.
out=$(as_nobody d "$T/ping" -c 3 -i 0.2 127.0.0.1 2>&1)
rc=$?
if [ $rc = 0 ] &&
	[ "$(grep -cE '^64 bytes from 127.0.0.1: icmp_seq=[123] ttl=64 time=[0-9.]+ ms$' <<<"$out")" = 3 ] &&
	grep -qE '^3 packets transmitted, 3 received, 0% packet loss' <<<"$out"; then
	pass systemd/activated_ping_as_nobody
else
	fail systemd/activated_ping_as_nobody "exit $rc: $out; log: $(cat "$T/act.log")"
fi

grep -qF "listening on $SOCK, passed by the service manager" "$T/act.log" &&
	pass systemd/activated_uses_passed_socket ||
	fail systemd/activated_uses_passed_socket "$(cat "$T/act.log")"

# fd 3 is the listening socket, now O_NONBLOCK (04000) and O_CLOEXEC
# (02000000); the process runs as its user with no capabilities left
# (its bounding set is the unit's, CAP_NET_RAW: emptying it takes
# CAP_SETPCAP, and no_new_privs and the filter, no execve, leave it
# nothing to give).
flags=$(sed -n 's/^flags:[[:space:]]*//p' "/proc/$DAEMON_PID/fdinfo/3" 2>/dev/null)
if [ -n "$flags" ] && (( (8#$flags & 8#4000) && (8#$flags & 8#2000000) )); then
	pass systemd/passed_fd_nonblock_cloexec
else
	fail systemd/passed_fd_nonblock_cloexec "fd 3 flags '$flags'"
fi
st=$(cat "/proc/$DAEMON_PID/status" 2>/dev/null)
grep -qP "^Uid:\t$PS_DAEMON_UID\t$PS_DAEMON_UID\t$PS_DAEMON_UID\t$PS_DAEMON_UID\$" <<<"$st" &&
	grep -qP '^CapEff:\t0+$' <<<"$st" && grep -qP '^CapPrm:\t0+$' <<<"$st" &&
	grep -qP '^CapAmb:\t0+$' <<<"$st" && grep -qP '^CapBnd:\t0+2000$' <<<"$st" &&
	grep -qP '^NoNewPrivs:\t1$' <<<"$st" && grep -qP '^Seccomp:\t2$' <<<"$st" &&
	pass systemd/activated_privileges_dropped ||
	fail systemd/activated_privileges_dropped "$(grep -E '^(Uid|Cap|NoNew|Seccomp)' <<<"$st")"

# Without CAP_SYS_CHROOT the unit's daemon closes the file system with
# Landlock instead (notify.sh checks that it does).  (The sanitizer build
# keeps the file system: LeakSanitizer reads /proc at exit; sandbox.sh
# says so for that build.)
case $PS_BUILD in
*build-asan) ;;
*)	grep -q 'no chroot: Landlock closes the file system instead' "$T/act.log" &&
		! grep -q 'neither chroot nor Landlock' "$T/act.log" &&
		pass systemd/unit_sandbox_landlock ||
		fail systemd/unit_sandbox_landlock "$(cat "$T/act.log")" ;;
esac

# systemd owns the file: not chowned to the daemon's user, not removed.
owner=$(stat -c %U:%G "$SOCK" 2>/dev/null)
kill -TERM "$DAEMON_PID"
exited "$DAEMON_PID"
rc=$?
[ $rc = 0 ] && pass systemd/activated_sigterm_exit_0 ||
	fail systemd/activated_sigterm_exit_0 "exit $rc: $(tail -3 "$T/act.log")"
if [ -S "$SOCK" ] && [ "$owner" = root:root ]; then
	pass systemd/passed_socket_file_kept
else
	fail systemd/passed_socket_file_kept "owner $owner, $(ls -la "$(dirname "$SOCK")")"
fi
rm -f "$SOCK"

# Started as root (the broker drop-in of pingsockd(8), or an older unit),
# the socket passed in a directory as pingsockd and the tmpfiles.d entry
# make it: root's, the daemon's group, 0775.  It serves (it refused the
# directory as group-writable once).
SD=$(dirname "$SOCK")
chown "root:$PS_DAEMON_GID" "$SD" && chmod 0775 "$SD"
ip netns exec "$(ns_name d)" systemd-socket-activate --seqpacket -l "$SOCK" \
	"$T/pingsockd" --foreground --no-config --user "$PS_DAEMON_USER" \
	2>>"$T/actroot.log" &
DAEMON_PID=$!
DAEMON_PIDS+=("$DAEMON_PID")
wait_file "$SOCK" && chmod 0666 "$SOCK"
out=$(as_nobody d "$T/ping" -c 1 127.0.0.1 2>&1)
rc=$?
[ $rc = 0 ] && pass systemd/activated_root_group_dir ||
	fail systemd/activated_root_group_dir "exit $rc: $out; log: $(cat "$T/actroot.log")"
kill -TERM "$DAEMON_PID"
exited "$DAEMON_PID"
rm -f "$SOCK"
chown root:root "$SD" && chmod 0755 "$SD"

# Refusals: one line, exit 1.
refused() {	# name, expected text, poke type, tool args... -- daemon args...
	local name=$1 want=$2 type=$3; shift 3
	: >"$T/$name.log"
	activate "$name.log" "$@"
	wait_file "$SOCK" && poke "$SOCK" "$type"
	exited "$DAEMON_PID"
	local rc=$?
	local msg; msg=$(grep '^pingsockd:' "$T/$name.log")
	if [ $rc = 1 ] && [ "$(wc -l <<<"$msg")" = 1 ] && grep -qF -- "$want" <<<"$msg"; then
		pass "systemd/$name"
	else
		fail "systemd/$name" "exit $rc: $(cat "$T/$name.log")"
	fi
	rm -f "$SOCK" "$SOCK.2"
}
refused refuses_stream_socket "is not an AF_UNIX SOCK_SEQPACKET socket" stream \
	-l "$SOCK" --
refused refuses_two_sockets "2 sockets passed; pingsockd listens on exactly one" seqpacket \
	--seqpacket -l "$SOCK" -l "$SOCK.2" --
refused refuses_other_socket_option "--socket $T/elsewhere/socket, but the service manager passed a socket on $SOCK" seqpacket \
	--seqpacket -l "$SOCK" -- --socket "$T/elsewhere/socket"

# LISTEN_PID/LISTEN_FDS for this process but no socket at fd 3: no
# sd_listen_fds caller would pass that, but it must not start on it.
fd3() {	# name, expected text, bash redirection for fd 3
	local out rc
	out=$(in_ns d bash -c "exec $3; LISTEN_PID=\$\$ LISTEN_FDS=1 exec \"\$0\" \
		--foreground --user $PS_DAEMON_USER --socket \"\$1\"" "$T/pingsockd" \
		"$T/fd3/socket" 2>&1)
	rc=$?
	[ $rc = 1 ] && [ "$out" = "pingsockd: socket activation: $2" ] &&
		pass "systemd/$1" || fail "systemd/$1" "exit $rc: $out"
}
fd3 refuses_fd3_closed "fd 3 is not open" "3>&-"
fd3 refuses_fd3_file "fd 3 is not a socket" "3<$T/pingsockd"
[ ! -e "$T/fd3" ] && pass systemd/refusal_makes_no_socket ||
	fail systemd/refusal_makes_no_socket "$(ls -la "$T/fd3")"

# --socket naming the passed socket's path is fine.
activate same.log --seqpacket -l "$SOCK" -- --socket "$SOCK"
wait_file "$SOCK" && chmod 0666 "$SOCK"
out=$(as_nobody d "$T/ping" -c 1 127.0.0.1 2>&1)
rc=$?
[ $rc = 0 ] && pass systemd/same_socket_option_accepted ||
	fail systemd/same_socket_option_accepted "exit $rc: $out; $(cat "$T/same.log")"
kill -TERM "$DAEMON_PID"; exited "$DAEMON_PID"
rm -f "$SOCK"

# LISTEN_PID of another process: not for us; the daemon makes its own
# socket (and removes it when it stops: in a directory it made itself).
rmdir "$(dirname "$SOCK")"
PS_DAEMON_WRAPPER="env LISTEN_PID=1 LISTEN_FDS=1" daemon_start d &&
	out=$(as_nobody d "$T/ping" -c 1 127.0.0.1 2>&1) &&
	! grep -q 'passed by the service manager' "$T/d.log" &&
	pass systemd/other_listen_pid_ignored ||
	fail systemd/other_listen_pid_ignored "$out; $(cat "$T/d.log")"
daemon_stop
[ ! -e "$SOCK" ] && pass systemd/own_socket_still_removed ||
	fail systemd/own_socket_still_removed "$(ls -la "$SOCK")"

# --- the unit's system call filter ---

# Every call the daemon makes, started as the unit starts it (on a socket
# of its own, in a directory of its own), serving
# a ping, reloading and stopping, is in the unit's SystemCallFilter=.
# (The sanitizer build makes calls of its own: the plain build's pass
# checks this, the sanitizer's says nothing.)
if [[ $PS_BUILD == *build-asan ]]; then
	:
elif ! command -v strace >/dev/null; then
	skip systemd/unit_syscall_filter "no strace"
else
	install -d -m 0755 -o "$PS_DAEMON_USER" "$T/rt"
	printf 'rate = 0\n' >"$T/rt.conf"
	chmod 644 "$T/rt.conf"
	in_ns d strace -qq -f -o "$T/filter.strace" \
		setpriv --reuid="$PS_DAEMON_USER" --regid="$PS_DAEMON_GID" \
		--clear-groups --inh-caps="$ambient" --ambient-caps="$ambient" \
		--bounding-set="$bset" --no-new-privs \
		"$T/pingsockd" --foreground --user "$PS_DAEMON_USER" \
		--socket "$T/rt/socket" --config "$T/rt.conf" 2>"$T/filter.log" &
	spid=$!
	wait_file "$T/rt/socket"
	in_ns d setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_SOCKET="$T/rt/socket" "$T/ping" -c 1 127.0.0.1 >/dev/null 2>&1
	dpid=
	for p in $(pgrep -f -- "--socket $T/rt/socket"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = pingsockd ] && dpid=$p
	done
	if [ -n "$dpid" ]; then
		kill -HUP "$dpid"; sleep 0.3; kill -TERM "$dpid"
		exited "$spid"
	else
		kill "$spid"
	fi
	# strace -f pads the pid to five columns: one space or more.
	calls=$(awk -v d="execve(\"$T/pingsockd\"" 'index($0, d) { on = 1 } on' \
		"$T/filter.strace" | sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' | sort -u)
	refused=$("$SRC/tests/lib/sysfilter.py" "$UNITDIR/pingsockd.service" $calls)
	if [ -n "$calls" ] && [ -z "$refused" ] && grep -q 'reloaded' "$T/filter.log"; then
		pass systemd/unit_syscall_filter_allows_the_daemon
	else
		fail systemd/unit_syscall_filter_allows_the_daemon \
			"refused: $refused; calls: $(wc -w <<<"$calls"); $(tail -3 "$T/filter.log")"
	fi
fi

# --- --check-config ---

printf '# ok\ngroups = 0 2147483647\nmin_interval = 0\n' >"$T/good.conf"
printf 'groups = 0 100\ngroups = banana\n' >"$T/bad.conf"
chmod 644 "$T/good.conf" "$T/bad.conf"
nob() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

out=$(nob "$T/pingsockd" --check-config --config "$T/good.conf" 2>"$T/err")
rc=$?
[ $rc = 0 ] && [ "$out" = "$T/good.conf: ok" ] && [ ! -s "$T/err" ] &&
	pass systemd/check_config_good ||
	fail systemd/check_config_good "exit $rc: $out $(cat "$T/err")"

out=$(nob "$T/pingsockd" --check-config --config "$T/bad.conf" 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "^$T/bad.conf:2: " <<<"$out" &&
	pass systemd/check_config_bad ||
	fail systemd/check_config_bad "exit $rc: $out"

out=$(nob "$T/pingsockd" --check-config --config "$T/none.conf" 2>&1)
rc=$?
[ $rc = 1 ] && [ "$out" = "$T/none.conf: No such file or directory" ] &&
	pass systemd/check_config_missing ||
	fail systemd/check_config_missing "exit $rc: $out"

# Without --config: the default file (its path from --help), missing or
# not; --no-config has no file to check.
default=$("$T/pingsockd" --help | sed -n 's/^ *default \(\/.*\), if it exists$/\1/p')
out=$(nob "$T/pingsockd" --check-config 2>&1)
rc=$?
if [ -n "$default" ] && { { [ -e "$default" ] && [ $rc = 0 ] &&
	[ "$out" = "$default: ok" ]; } || { [ ! -e "$default" ] && [ $rc = 1 ] &&
	grep -q 'No such file or directory' <<<"$out"; }; }; then
	pass systemd/check_config_default_file
else
	fail systemd/check_config_default_file "default '$default', exit $rc: $out"
fi
out=$(nob "$T/pingsockd" --check-config --no-config 2>&1)
rc=$?
[ $rc = 2 ] && grep -q -- '--check-config needs a file' <<<"$out" &&
	pass systemd/check_config_needs_file ||
	fail systemd/check_config_needs_file "exit $rc: $out"

# The shipped file: ok, as root (the daemon's own checks of its owner and
# directories: a copy in a root-owned directory) and as anyone.
install -d -m 0755 "$T/etc"
install -m 0644 "$SRC/etc/pingsockd.conf" "$T/etc/pingsockd.conf"
out=$("$T/pingsockd" --check-config --config "$T/etc/pingsockd.conf" 2>&1)
rc=$?
out2=$(nob "$T/pingsockd" --check-config --config "$T/etc/pingsockd.conf" 2>&1)
rc2=$?
[ $rc = 0 ] && [ "$out" = "$T/etc/pingsockd.conf: ok" ] && [ $rc2 = 0 ] &&
	pass systemd/shipped_config_ok ||
	fail systemd/shipped_config_ok "exit $rc: $out / exit $rc2: $out2"

# Nothing but the file: no socket, no write, no directory made.
if command -v strace >/dev/null; then
	strace -qq -f -o "$T/strace.all" -e trace=%file,%network \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/pingsockd" --check-config --config "$T/good.conf" >/dev/null 2>&1
	# From the daemon's own execve on (setpriv's calls before it are not
	# the daemon's).
	awk -v d="execve(\"$T/pingsockd\"" 'index($0, d) { on = 1 } on' \
		"$T/strace.all" >"$T/strace"
	bad=$(grep -E ' (socket|socketpair|connect|bind|mkdir|mkdirat|unlink|unlinkat|chown|fchownat|chmod|fchmodat|rename|renameat2?)\(|O_WRONLY|O_RDWR|O_CREAT' "$T/strace")
	if [ -z "$bad" ] && grep -qF "\"$T/good.conf\"" "$T/strace"; then
		pass systemd/check_config_opens_only_the_file
	else
		fail systemd/check_config_opens_only_the_file "${bad:-config not opened}"
	fi
else
	skip systemd/check_config_opens_only_the_file "no strace"
fi

ns_done

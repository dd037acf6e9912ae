#!/bin/bash
# SPDX-License-Identifier: ISC
# logloss - the daemon's log never holds its loop up, and what it could
# not write is counted and said (rev35 S1, F3).
#
#  stderr_pipe  pingsockd --foreground with standard error a pipe of 4 kB
#               that nobody reads (a stalled journald or logger): a
#               user's burst of audit records fills it.  Before, each
#               write blocked the loop, and another user's socket() with
#               it; now the lines are dropped, counted (pingsockctl
#               status: log_lost), and said once the pipe takes lines
#               again.
#  syslog_restart  pingsockd detached, logging to syslog; the syslog
#               daemon restarts (a new socket at /dev/log).  Before, the
#               daemon's syslog(3) could not reconnect from inside its
#               chroot and dropped every later record without a word;
#               now each is counted (log_lost), or delivered where the
#               daemon can still reach /dev/log (no chroot: a sanitizer
#               build).  In a mount namespace of its own with a private
#               /dev: nothing of the host's changes.
#
# Clients as uid 65534 and 1000 through the shim, in a namespace where
# only pingsockd serves ping sockets.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

shim_init logloss
PY=/usr/bin/python3
CTL=$T/pingsockctl
SOCK=$(ns_sock d)

ns_new d closed || { fail "$LABEL/setup" "namespace"; ns_done; }
printf 'rate = 0\nmax_sockets = 0\n' >"$T/unlimited.conf"
chmod 644 "$T/unlimited.conf"

# A pipe that nobody reads until told: 4 kB (F_SETPIPE_SZ), held open
# for reading and writing, drained into $T/err.out once $T/drain exists.
cat >"$T/holder.py" <<'PY'
import fcntl, os, select, sys, time
fifo, ready, drain, out, stop = sys.argv[1:6]
fd = os.open(fifo, os.O_RDWR)
fcntl.fcntl(fd, 1031, 4096)     # F_SETPIPE_SZ
open(ready, "w").close()
while not os.path.exists(drain):
    time.sleep(0.05)
# Drained from now on, and room enough that nothing more is lost while
# this is not scheduled (a busy machine): the losses the daemon notes
# are those of before.
fcntl.fcntl(fd, 1031, 1 << 20)
os.set_blocking(fd, False)
with open(out, "ab", buffering=0) as f:
    while not os.path.exists(stop):
        if select.select([fd], [], [], 0.05)[0]:
            f.write(os.read(fd, 1 << 20))
PY
cat >"$T/churn.py" <<'PY'
import socket, sys
for i in range(int(sys.argv[1])):
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP).close()
print("ok")
PY
chmod a+r "$T/holder.py" "$T/churn.py"
churn_as() { local u=$1; shift
	as_uid "$u" d env LD_PRELOAD="$PRELOAD" "${PY_ENV[@]}" timeout -k 1 "$@"; }
ctl() { in_ns d timeout -k 1 5 "$CTL" --socket "$SOCK" status 2>&1; }

# ---- stderr_pipe ------------------------------------------------------
mkfifo "$T/err.fifo"
"$PY" "$T/holder.py" "$T/err.fifo" "$T/ready" "$T/drain" "$T/err.out" "$T/stop" &
HOLDER=$!
for _ in $(seq 1 100); do [ -e "$T/ready" ] && break; sleep 0.05; done
nsenter --net="/run/netns/$(ns_name d)" "$T/pingsockd" --foreground \
	--socket "$SOCK" --user "$PS_DAEMON_USER" --config "$T/unlimited.conf" \
	2>"$T/err.fifo" &
DAEMON_PID=$!
DAEMON_PIDS+=("$DAEMON_PID")
for _ in $(seq 1 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
# 150 sockets: 300 records, 30 kB, within the audit budget.
o=$(churn_as 65534 10 "$PY" "$T/churn.py" 150 2>&1)
t0=$(date +%s%3N)
o1=$(churn_as 1000 5 "$PY" "$T/churn.py" 1 2>&1)
t=$(( $(date +%s%3N) - t0 ))
echo "# uid 65534: $o; uid 1000: $o1 in $t ms"
[ "$o1" = ok ] && [ "$t" -lt 3000 ] && pass "$LABEL/stderr_pipe_full_loop_goes_on" ||
	fail "$LABEL/stderr_pipe_full_loop_goes_on" "uid 1000: '$o1' in $t ms (uid 65534: $o)"
st=$(ctl)
lost=$(awk '$1 == "log_lost" { print $2 }' <<<"$st")
echo "# log_lost ${lost:-none}"
[ "${lost:-0}" -gt 0 ] && pass "$LABEL/stderr_pipe_lines_counted" ||
	fail "$LABEL/stderr_pipe_lines_counted" "log_lost ${lost:-none}"
# Drained, the next line says what was lost, once.
: >"$T/drain"
sleep 0.3
churn_as 1000 5 "$PY" "$T/churn.py" 1 >/dev/null 2>&1
sleep 0.3
# (A short line can slip into the last bytes of the full pipe: its note,
# lost or not, says what was lost until then; the notes add up.)
n=$(grep -c 'earlier log lines could not be written' "$T/err.out")
said=$(sed -nE 's/.*warning: ([0-9]+) earlier log lines could not be written.*/\1/p' "$T/err.out" |
	awk '{ s += $1 } END { print s + 0 }')
lost=$(ctl | awk '$1 == "log_lost" { print $2 }')
echo "# $n notes of $said lines in all; log_lost ${lost:-none}"
[ "$n" -ge 1 ] && [ "$said" -le "${lost:-0}" ] && [ "$said" -ge $((${lost:-0} - n)) ] &&
	pass "$LABEL/stderr_pipe_loss_said" ||
	fail "$LABEL/stderr_pipe_loss_said" "$n notes, said $said, log_lost ${lost:-none}"
kill -TERM "$DAEMON_PID" 2>/dev/null
for _ in $(seq 1 40); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.05; done
kill -KILL "$DAEMON_PID" 2>/dev/null
wait "$DAEMON_PID" 2>/dev/null
: >"$T/stop"
wait "$HOLDER" 2>/dev/null

# ---- syslog_restart ---------------------------------------------------
cat >"$T/syslogd.py" <<'PY'
import socket, os, sys
try: os.unlink("/dev/log")
except FileNotFoundError: pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind("/dev/log")
os.chmod("/dev/log", 0o666)
with open(sys.argv[1], "ab", buffering=0) as f:
    while True: f.write(s.recv(4096) + b"\n")
PY
cat >"$T/f3.sh" <<'SH'
T=$1 W=$1/f3 PRELOAD=$2 PY=/usr/bin/python3
mkdir -p "$W/devfs" && mount -t tmpfs none "$W/devfs" || exit 1
for f in null zero urandom random; do
	touch "$W/devfs/$f" && mount --bind "/dev/$f" "$W/devfs/$f"
done
mount --bind "$W/devfs" /dev || exit 1
"$PY" "$T/syslogd.py" "$W/syslog.1" & SL=$!
sleep 0.3
"$T/pingsockd" --socket "$W/sock" --user "$3" --config "$T/unlimited.conf" \
	--pidfile "$W/pid" || exit 1
client() { setpriv --reuid=65534 --regid=65534 --clear-groups env \
	PINGSOCK_SOCKET="$W/sock" LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=detect_leaks=0 \
	"$PY" -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP).close()'; }
client; sleep 0.3
kill $SL; wait $SL 2>/dev/null
"$PY" "$T/syslogd.py" "$W/syslog.2" & SL=$!
sleep 0.3
client; client; sleep 0.3
lost=$("$T/pingsockctl" --socket "$W/sock" status | awk '$1 == "log_lost" { print $2 }')
alive=0; kill -0 "$(cat "$W/pid")" && alive=1
echo "before=$(grep -ac 'pingsockd\[[0-9]*\]: event=' "$W/syslog.1") after=$(grep -ac 'pingsockd\[[0-9]*\]: event=' "$W/syslog.2") lost=${lost:-none} alive=$alive"
kill -TERM "$(cat "$W/pid")"; sleep 0.3; kill -KILL "$(cat "$W/pid")" 2>/dev/null
kill $SL
SH
chmod a+r "$T/syslogd.py" "$T/f3.sh"
o=$(in_ns d unshare -m --propagation private bash "$T/f3.sh" "$T" "$PRELOAD" "$PS_DAEMON_USER" 2>&1 | tail -1)
echo "# $o"
read -r b a l al < <(sed -n 's/^before=\([0-9]*\) after=\([0-9]*\) lost=\([0-9a-z]*\) alive=\([01]\)$/\1 \2 \3 \4/p' <<<"$o")
# Before the restart: the open and close records of one socket (and the
# daemon's own lines); after: two sockets' four records, each delivered
# or counted.
if [ "${b:-0}" -ge 2 ] && [ "${al:-0}" = 1 ] && [ "${l:-none}" != none ] &&
	[ $((a + l)) -ge 4 ]; then
	pass "$LABEL/syslog_restart_records_counted"
else
	fail "$LABEL/syslog_restart_records_counted" "$o"
fi

ns_done

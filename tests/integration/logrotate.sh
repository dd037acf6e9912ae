#!/bin/bash
# SPDX-License-Identifier: ISC
# logrotate - etc/pingsockd.logrotate (installed as
# /etc/logrotate.d/pingsockd) parses, and rotates a running pingsockd's
# --log-file: the daemon never reopens the file (it could not, sandboxed
# and unprivileged), so the snippet copies and truncates it, and the
# daemon's next line must land at the start of the emptied file (it
# writes with O_APPEND), with the old lines in the rotated copy.
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
cd "$(dirname "$0")/../.." || exit 1
LABEL=logrotate
SNIPPET=etc/pingsockd.logrotate

if ! command -v logrotate >/dev/null; then
	skip "$LABEL" "no logrotate (apt install logrotate)"
	ns_done
fi

# Parse only (-d does nothing); an error in the snippet is reported so.
if out=$(logrotate -d -s "$T/dry.state" "$SNIPPET" 2>&1) &&
	! grep -q -i 'error' <<<"$out" &&
	grep -q 'rotating pattern: /var/log/pingsockd.log' <<<"$out" &&
	grep -q 'copytruncate' "$SNIPPET"; then
	pass "$LABEL/parses"
else
	fail "$LABEL/parses" "$(grep -i -m3 -E 'error|pattern' <<<"$out")"
fi

if [ "$(id -u)" != 0 ]; then
	skip "$LABEL/rotates_running_daemon" "needs root (pingsockd, logrotate's checks)"
	ns_done
fi

# The same snippet for a log in the test's directory (root's, 0755: the
# daemon's checks of the path, and logrotate's, pass).
mkdir -m 755 "$T/log"
LOG=$T/log/pingsockd.log
sed "s|/var/log/pingsockd.log|$LOG|" "$SNIPPET" >"$T/lr.conf"
chmod 644 "$T/lr.conf"

ns_new r closed
if ! daemon_start r --log-file "$LOG"; then
	fail "$LABEL/start" "pingsockd --log-file did not start"
	ns_done
fi
before=$(wc -l <"$LOG")
if ! out=$(logrotate -f -s "$T/lr.state" "$T/lr.conf" 2>&1); then
	fail "$LABEL/rotates_running_daemon" "logrotate: $out"
	ns_done
fi
kill -HUP "$DAEMON_PID"	# one line: "reloaded ..."
for _ in $(seq 1 50); do
	[ -s "$LOG" ] && break
	sleep 0.1
done
first=$(head -c 200 "$LOG" | head -n 1)
if [ -f "$LOG.1" ] && [ "$(wc -l <"$LOG.1")" -ge "$before" ] &&
	[ "$before" -gt 0 ]; then
	pass "$LABEL/rotated_copy ($before lines)"
else
	fail "$LABEL/rotated_copy" "$(ls -l "$T/log")"
fi
# The new line at offset 0: no hole of NULs before it, one line only.
if [[ $first =~ ^20[0-9-]+T[0-9:.]+Z\ pingsockd\[[0-9]+\]\ info:\ reloaded ]] &&
	[ "$(tr -d '\0' <"$LOG" | wc -c)" = "$(wc -c <"$LOG")" ] &&
	[ "$(wc -l <"$LOG")" = 1 ]; then
	pass "$LABEL/daemon_writes_to_start_of_emptied_file"
else
	fail "$LABEL/daemon_writes_to_start_of_emptied_file" \
		"$(od -c "$LOG" | head -3)"
fi
# Still the file the daemon accepts at its next start: root's, 0640.
if [ "$(stat -c '%U %a %h' "$LOG")" = "root 640 1" ] &&
	kill -0 "$DAEMON_PID" 2>/dev/null; then
	pass "$LABEL/file_kept_for_next_start"
else
	fail "$LABEL/file_kept_for_next_start" "$(stat -c '%U %a %h' "$LOG")"
fi
daemon_stop
ns_done

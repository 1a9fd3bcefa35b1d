#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-dmesg.sh FILE...: print the kernel splats in kernel logs (a saved
# dmesg, or a guest console where kernel lines mix with other output).
# Exit status: 0 clean, 1 a splat found, 2 usage error or a FILE that can't
# be read (2 wins over 1; the other files' splats are still printed).  With
# more than one FILE each splat line is prefixed "FILE: ", as grep does.
#
# Splats: WARN (WARNING:, "[ cut here ]"), BUG: (soft lockup, KASAN, might
# sleep, bad page state, ...), "kernel BUG at", Oops, every die() header
# ("divide error: 0000 [#1]", "invalid opcode: 0000 [#1]", "stack segment:
# 0000 [#1]", general protection fault, ...: Debian's 6.1 prints them
# without "Oops:"), SLUB's object checks ("BUG kmalloc-64 (Not tainted):
# Poison overwritten"), Kernel panic, lockdep reports, RCU stalls and
# suspicious RCU usage, hung tasks, hard lockups, refcount_t, UBSAN,
# KASAN, kmemleak and list corruption.  Lockdep's "trying to register non-static key" (a lock used
# uninitialized) prints no WARNING, so it is a pattern of its own.  "Call
# Trace:" alone is none: sysrq and hung tasks print it.
#
# Only kernel log lines count: the line must start with printk's timestamp,
# "[   12.345678] " (after an optional "<4>" level as "dmesg -r" prints,
# and before an optional "[    T1] " caller id); the pattern may then be
# anywhere in the message ("watchdog: BUG: soft lockup", "rcu: INFO: ...").
# Our own TAP lines ("ok 3 - dmesg clean of splats"), a guest shell's echo
# on the console and QEMU's messages carry no timestamp, so never match.
# The price: a log without timestamps (printk.time=0, "dmesg -t") is never
# flagged.  CRs and NULs (serial console) are dropped, and terminal escape
# sequences end a line: SeaBIOS's reset sequence precedes the first kernel
# line on the console.
export LC_ALL=C
[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }
status=0
for f in "$@"; do
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then
		echo "$0: cannot read $f" >&2
		status=2
		continue
	fi
	label=
	[ $# -gt 1 ] && label="$f: "
	# ENVIRON, not -v: -v would interpret backslashes in the file name.
	tr -d '\r\000' <"$f" | label=$label awk '
	BEGIN { label = ENVIRON["label"] }
	{
		n = split($0, part, /\033(\[[0-9;?]*[A-Za-z]|.)/)
		for (i = 1; i <= n; i++) {
			s = part[i]
			if (s !~ /^(<[0-9]+>)?\[ *[0-9]+\.[0-9]+\] (\[ *[CT][0-9]+\] )?/)
				continue
			if (s ~ /WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic|\[ cut here \]/ ||
			    s ~ /: [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#[0-9]+\]/ ||
			    s ~ /BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\): / ||
			    s ~ /possible recursive locking|circular locking dependency|inconsistent lock state|possible irq lock inversion|bad unlock balance|register non-static key/ ||
			    s ~ /suspicious RCU usage|self-detected stall|detected stalls on CPU|rcu: INFO:|blocked for more than|hard LOCKUP/ ||
			    s ~ /refcount_t:|UBSAN:|KASAN:|unreferenced object|suspected memory leak|list_add corruption|list_del corruption/ ||
			    s ~ /sleeping function called from invalid context/) {
				print label s
				found = 1
			}
		}
	}
	END { exit found ? 1 : 0 }'
	case $? in
	0) ;;
	1) [ $status -eq 0 ] && status=1 ;;
	*) status=2 ;;
	esac
done
exit $status

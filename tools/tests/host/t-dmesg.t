#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools/vm/check-dmesg.sh, the splat check of every VM test: each kind of
# splat is found (exit 1), benign kernel logs and our own TAP and shell
# output are not (exit 0), and an unreadable file is an error (exit 2).
top=$(cd "$(dirname "$0")/../../.." && pwd)
chk=$top/tools/vm/check-dmesg.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
# expect STATUS NAME: check-dmesg.sh on $tmp/log exits STATUS.  (Not fed
# through a pipe: a pipeline's function would count in a subshell.)
expect() {
	n=$((n + 1))
	"$chk" "$tmp/log" >"$tmp/out" 2>&1
	got=$?
	if [ $got -eq "$1" ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		echo "# status $got, expected $1; output:"
		sed 's/^/#   /' "$tmp/out"
	fi
}
splat() { printf '%s\n' "$2" >"$tmp/log"; expect 1 "splat: $1"; }
clean() { printf '%s\n' "$2" >"$tmp/log"; expect 0 "clean: $1"; }

splat "WARN" "[   10.100000] WARNING: CPU: 1 PID: 42 at drivers/infiniband/ulp/srpt/ib_srpt.c:10 srpt_f+0x1/0x2 [ib_srpt]"
splat "WARN cut-here marker" "[   10.100000] ------------[ cut here ]------------"
splat "BUG: page fault" "[    2.5] BUG: unable to handle page fault for address: ffffffffc0a1b2c3"
splat "kernel BUG at" "[    2.500001] kernel BUG at drivers/infiniband/ulp/srpt/ib_srpt.c:1234!"
splat "Oops" "[    2.500002] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI"
splat "die: divide error (6.1, no Oops:)" "[   42.123456] divide error: 0000 [#1] PREEMPT SMP NOPTI"
splat "die: invalid opcode (6.1, no Oops:)" "[   42.123456] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI"
splat "die: stack segment (6.1, no Oops:)" "[   42.123456] stack segment: 0000 [#1] PREEMPT SMP NOPTI"
splat "die: a second oops" "[   42.123456] general protection fault: 0000 [#2] PREEMPT SMP NOPTI"
splat "die: page fault Oops (6.1)" "[   42.123456] Oops: 0002 [#1] PREEMPT SMP NOPTI"
splat "SLUB object check" "[   42.123456] =============================================================================
[   42.123457] BUG kmalloc-64 (Not tainted): Poison overwritten
[   42.123458] -----------------------------------------------------------------------------"
splat "SLUB object check, tainted" "[   42.123457] BUG kmalloc-1k (Tainted: G    B      OE     ): Right Redzone overwritten"
splat "general protection fault" "[    7.0] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI"
splat "Kernel panic" "[   20.250000] Kernel panic - not syncing: sysrq triggered crash"
splat "soft lockup" "[   60.0] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [kworker/1:2:99]"
splat "hard lockup" "[   61.0] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1"
splat "lockdep recursive locking" "[    1.000000] ============================================
[    1.000000] WARNING: possible recursive locking detected
[    1.000000] 6.1.0-57-amd64 #1 Not tainted"
splat "lockdep circular dependency" "[    1.0] ======================================================
[    1.0] WARNING: possible circular locking dependency detected"
splat "lockdep inconsistent lock state" "[    1.0] WARNING: inconsistent lock state"
splat "lockdep bad unlock balance" "[    1.0] WARNING: bad unlock balance detected!"
splat "lockdep non-static key" "[    1.0] INFO: trying to register non-static key."
splat "suspicious RCU usage" "[    4.4] WARNING: suspicious RCU usage"
splat "RCU self-detected stall" "[   30.1] rcu: INFO: rcu_preempt self-detected stall on CPU"
splat "RCU stall" "[   30.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
splat "hung task" "[    3.3] INFO: task kworker/0:1:33 blocked for more than 120 seconds."
splat "refcount_t underflow" "[    5.0] refcount_t: underflow; use-after-free."
splat "refcount_t saturated" "[    5.0] refcount_t: saturated; leaking memory."
splat "UBSAN" "[    6.0] UBSAN: shift-out-of-bounds in drivers/infiniband/ulp/srpt/ib_srpt.c:77:12"
splat "KASAN" "[    6.0] BUG: KASAN: slab-use-after-free in srpt_release_channel_work+0x2a/0x300 [ib_srpt]"
splat "kmemleak report" "[  100.0] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
splat "kmemleak object" "[  100.0] unreferenced object 0xffff888003a1b200 (size 64):"
splat "list_add corruption" "[    8.0] list_add corruption. next->prev should be prev (ffff888003a1b200), but was 0000000000000000. (next=ffff888003a1b210)."
splat "list_del corruption" "[    8.0] list_del corruption, ffff888003a1b200->next is LIST_POISON1 (dead000000000100)"
splat "might_sleep" "[    9.0] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580"
splat "dmesg -r level prefix" "<4>[   10.100000] WARNING: CPU: 0 PID: 1 at test"
splat "printk caller id" "[   10.100000] [    T1] WARNING: CPU: 0 PID: 1 at test"
# The serial console: CRs, and SeaBIOS's terminal reset on the same line
# as the first kernel message.
printf 'SeaBIOS (version 1.16.2-debian-1.16.2-1)\r\nBooting from ROM..\033c\033[?7l\033[2J[    7.958058] Kernel panic - not syncing: VFS: Unable to mount root fs\r\n' >"$tmp/log"
expect 1 "splat: console line after terminal escapes, CRLF"
splat "deep in a normal boot log" "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)
[    0.512000] pci 0000:00:01.0: [8086:7000] type 00 class 0x060100
[   23.654634] ib_srpt: invalid value '10' for parameter srp_max_req_size
[   24.000000] WARNING: CPU: 0 PID: 1 at test
[   26.966678] sysrq: Power Off"

clean "normal boot and test excerpt" "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3
[    0.000000] Command line: console=ttyS0 panic=-1 quiet srpt.init=/work/main/tools/vm/guest-init.sh srpt.test=/work/main/tools/tests/vm/t-load.t
[    0.104000] Spectre V2 : Mitigation: Retpolines
[    1.200000] ACPI: PM-Timer IO Port: 0x608
[    7.958058] db_root: cannot open: /etc/target
[   12.000000] ib_srpt: warning: login from 192.168.123.2 rejected: no ACL
[   12.100000] ib_srpt: srpt_cm_req_recv: rejected login (reason 0x10001)
[   23.654634] ib_srpt: invalid value '10' for parameter srp_max_req_size: must be an integer in [996..65536]
[   23.655674] ib_srpt: \`10' invalid for parameter \`srp_max_req_size'
[   24.000000] sysrq: Show Blocked State
[   24.000001] Call Trace:
[   24.000002]  <TASK>
[   24.000003]  __schedule+0x2e5/0x8a0
[   24.000004]  </TASK>
[   26.966678] sysrq: Power Off
[   26.972240] reboot: Power down"
clean "our TAP lines" "ok 1 - load/unload x20
ok 3 - dmesg clean of splats
not ok 4 - dmesg clean of splats
# dmesg: WARNING: CPU: 0 PID: 1 at test
1..4"
clean "guest shell echo and QEMU messages on the console" "WARNING: guest shell echo, no kernel line
sh: BUG: not found
qemu-system-x86_64: warning: host doesn't support requested feature
Kernel panic test skipped"
clean "die-like and BUG-like words that are none" "[    1.000000] e1000: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX
[    2.000000] ib_srpt: tag 0x0000 [#1] is not a die header
[    3.000000] DEBUG kmalloc-64 (cache) created"
clean "splat words past a non-timestamp start" "# [   10.1] WARNING: CPU: 0 PID: 1 quoted in a diagnostic"
: >"$tmp/log"
expect 0 "clean: empty log"

n=$((n + 1))
"$chk" "$tmp/missing" >"$tmp/out" 2>&1
got=$?
if [ $got -eq 2 ]; then echo "ok $n - missing file: status 2"; else echo "not ok $n - missing file: status 2 (got $got)"; fi
n=$((n + 1))
"$chk" >"$tmp/out" 2>&1
got=$?
if [ $got -eq 2 ]; then echo "ok $n - no arguments: status 2"; else echo "not ok $n - no arguments: status 2 (got $got)"; fi

# Several files: splats prefixed with their file; an unreadable one wins.
printf '[    1.0] WARNING: CPU: 0 PID: 1 at a\n' >"$tmp/a"
printf '[    1.0] clean\n' >"$tmp/b"
n=$((n + 1))
out=$("$chk" "$tmp/a" "$tmp/b" 2>&1)
got=$?
if [ $got -eq 1 ] && [ "$out" = "$tmp/a: [    1.0] WARNING: CPU: 0 PID: 1 at a" ]; then
	echo "ok $n - two files: status 1, the splat prefixed with its file"
else
	echo "not ok $n - two files: status 1, the splat prefixed with its file"
	echo "# status $got, output: $out"
fi
n=$((n + 1))
out=$("$chk" "$tmp/a" "$tmp/missing" 2>/dev/null)
got=$?
if [ $got -eq 2 ] && [ "$out" = "$tmp/a: [    1.0] WARNING: CPU: 0 PID: 1 at a" ]; then
	echo "ok $n - splat and missing file: status 2, the splat still printed"
else
	echo "not ok $n - splat and missing file: status 2, the splat still printed"
	echo "# status $got, output: $out"
fi
# The splat line is printed as it is in the log, CR dropped.
n=$((n + 1))
printf '[   20.250000] Kernel panic - not syncing: sysrq triggered crash\r\n' >"$tmp/c"
out=$("$chk" "$tmp/c")
if [ "$out" = "[   20.250000] Kernel panic - not syncing: sysrq triggered crash" ]; then
	echo "ok $n - the splat line printed without its CR"
else
	echo "not ok $n - the splat line printed without its CR"
	echo "# got: $out"
fi
echo "1..$n"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools/vm/vmtest itself: whatever the guest does (sleeps past its timeout,
# hangs ignoring the timeout, fails, logs a splat, panics) and whatever is
# done to vmtest (SIGTERM, Ctrl-C, SIGKILL), vmtest reports it, valid TAP,
# and no QEMU nor results directory stays behind; a kernel tainted by a
# warning, a dead kernel log logger and kernel log records lost fail the
# splat test.  A guest test that printed no check, or no plan (lib.sh's
# "1..N" at its end), or a plan other than the results it printed, fails
# the plan test (issue 26): those cases run with a stub QEMU that runs the
# guest test on the host (no VM, no VM lock).  Boots eleven VMs, about five
# minutes under TCG, plus any wait for another VM to finish (vmtest takes
# the machine-wide VM lock, /tmp/srpt-vm.lock; this script never holds it,
# so never deadlocks).
top=$(cd "$(dirname "$0")/../../.." && pwd)
vmtest=$top/tools/vm/vmtest
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "1..0 # SKIP no qemu-system-x86_64"
	exit 0
fi
# The guest sees the host's root, /tmp included, at the same paths, so its
# test scripts can live here.  vmtest's results directories land in res/.
tmp=$(realpath "$(mktemp -d)")
mkdir "$tmp/res"
export TMPDIR="$tmp/res"
n=0 vpid=''

# qemu_pids SCRIPT: the QEMUs running SCRIPT as their guest test.
qemu_pids() {
	for d in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
		case $c in
		*qemu-system-x86_64*"srpt.test=$1 "*) echo "${d#/proc/}" ;;
		esac
	done
}
alive() { kill -0 "$1" 2>/dev/null; }
# On our own exit, end what we started: the vmtest under way (its traps
# kill its QEMU), then any QEMU left running one of our scripts.
finish() {
	if [ -n "$vpid" ] && alive "$vpid"; then
		kill -TERM "$vpid"
		sleep 2
	fi
	for s in "$tmp"/*.t; do
		for p in $(qemu_pids "$s"); do kill -9 "$p"; done
	done
	rm -rf "$tmp"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# check NAME CMD...: ok when CMD succeeds; else not ok with the vmtest
# output of the current test case ($tc) as diagnostics.
check() {
	n=$((n + 1))
	name=$1
	shift
	if "$@"; then
		echo "ok $n - $tc: $name"
	else
		echo "not ok $n - $tc: $name"
		sed 's/^/#   /' "$out"
	fi
}
has() { grep -Eq "$1" "$out"; }
# after REGEX: REGEX matches a line from the splat test's line on (its
# diagnostics, the plan); the guest status diagnostics come before it.
after() { sed -n '/ - dmesg clean of splats/,$p' "$out" | grep -Eq "$1"; }
not_after() { ! after "$1"; }
# within SECS: vmtest ended by itself, less than SECS after QEMU started.
within() { [ $gone = 1 ] && [ "$took" -lt "$1" ]; }
# tap_valid: tests numbered 1, 2, ... and a final plan "1..N" matching.
tap_valid() {
	awk '/^(not )?ok / { i++; if ($(/^not/ ? 3 : 2) != i) bad = 1 }
	     { last = $0 }
	     END { exit (bad || last != "1.." i) }' "$out"
}
no_qemu() {
	i=0
	while [ -n "$(qemu_pids "$script")" ] && [ $i -lt 5 ]; do sleep 1; i=$((i + 1)); done
	left=$(qemu_pids "$script")
	[ -z "$left" ] && return 0
	echo "# QEMU left running: $left (killed now)"
	for p in $left; do kill -9 "$p"; done
	return 1
}
no_results() {
	left=$(ls -A "$TMPDIR")
	rm -rf "${TMPDIR:?}"/*
	[ -z "$left" ] || { echo "# left in $TMPDIR: $left"; return 1; }
}
# guest CASE: the guest script of CASE (from stdin) in $script.
guest() {
	tc=$1 script=$tmp/$1.t out=$tmp/$1.out
	cat >"$script"
}
# start VAR=VALUE...: vmtest on $script in the background, as $vpid.
start() {
	env "$@" "$vmtest" "$script" >"$out" 2>&1 &
	vpid=$!
}
# qemu_up: wait until $script's QEMU runs (vmtest may first wait for the
# VM lock); fails when vmtest ended without one.
qemu_up() {
	while alive "$vpid" && [ -z "$(qemu_pids "$script")" ]; do sleep 1; done
	alive "$vpid"
}
# until_gone SECS: wait up to SECS for vmtest to end; its status in $vrc,
# the seconds since QEMU started in $took; TERMed when still running.
until_gone() {
	while alive "$vpid" && [ $(($(date +%s) - t0)) -lt "$1" ]; do sleep 1; done
	took=$(($(date +%s) - t0))
	gone=1
	if alive "$vpid"; then
		gone=0
		kill -TERM "$vpid"
		sleep 2
	fi
	wait "$vpid"
	vrc=$?
	vpid=''
	[ $gone = 1 ]
}
# run LIMIT VAR=VALUE...: vmtest on $script to its end, or TERMed LIMIT
# seconds after its QEMU started (then the "finished" check fails).
run() {
	limit=$1
	shift
	start "$@"
	qemu_up
	t0=$(date +%s)
	until_gone "$limit"
}
# until_running: wait until the guest test has said "vmkill: guest running"
# (its TAP output is in vmtest's results directory, under $TMPDIR).
until_running() {
	i=0
	while alive "$vpid" && [ $i -lt 120 ]; do
		for f in "$TMPDIR"/*/tap; do
			grep -q "vmkill: guest running" "$f" 2>/dev/null && return 0
		done
		sleep 1
		i=$((i + 1))
	done
	return 1
}

# The plan cases run with a stub QEMU, first on PATH: it does on the host
# what guest-init does in the guest (runs the guest test with sh, saves
# its output and status in the results directory, taint flags 0 and a
# kernel log of one clean line), and they take a lock of their own.
mkdir "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
for a; do
	case $a in
	*mount_tag=results,*) res=${a#local,path=} res=${res%%,mount_tag=*} ;;
	*" srpt.test="*)
		t=$(printf '%s\n' "$a" | sed -n 's/.* srpt\.test=\([^ ]*\).*/\1/p')
		r=$(printf '%s\n' "$a" | sed -n 's/.* srpt\.repo=\([^ ]*\).*/\1/p')
		;;
	esac
done
SRPT_REPO=$r timeout 60 sh "$t" >"$res/tap" 2>&1
echo $? >"$res/rc"
echo 0 >"$res/tainted"
echo "[    0.000000] Linux version stub (t-vmkill's stub QEMU)" >"$res/dmesg"
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
# stub: vmtest on $script with the stub QEMU, to its end.
stub() {
	PATH=$tmp/bin:$PATH SRPT_VM_QEMU=host SRPT_VM_LOCK=$tmp/lock SRPT_TEST_TIMEOUT=60 \
		"$vmtest" "$script" >"$out" 2>&1
}
# prove_fails: prove (which said PASS to all of these before issue 26)
# judges vmtest's output a failure.
prove_passes() { prove --exec cat "$out" >/dev/null 2>&1; }
prove_fails() { ! prove_passes; }

guest plan-empty <<'EOF'
# Nothing at all, status 0.
EOF
stub
check "guest status ok" has '^ok 1 - guest test finished with status 0$'
check "no guest checks: not ok" \
	has "^not ok 2 - the guest's plan matches its results \\(no guest checks\\)$"
check "valid TAP, plan 1..3" tap_valid
check "prove fails it" prove_fails
check "results directory removed" no_results

guest plan-zero <<'EOF'
. "$SRPT_REPO/tools/vm/lib.sh"
diag "a comment, no check"
EOF
stub
check "no guest checks, lib.sh's plan 1..0: not ok" \
	has "^not ok 2 - the guest's plan matches its results \\(no guest checks, plan 1\\.\\.0\\)$"
check "valid TAP, plan 1..3" tap_valid
check "prove fails it" prove_fails
check "results directory removed" no_results

guest plan-none <<'EOF'
# Results, status 0, no plan (lib.sh not sourced).
echo "ok 1 - one"
echo "ok 2 - two"
EOF
stub
check "guest status ok" has '^ok 3 - guest test finished with status 0$'
check "no guest plan: not ok" \
	has "^not ok 4 - the guest's plan matches its results \\(no plan after 2 results: "
check "valid TAP, plan 1..5" tap_valid
check "prove fails it" prove_fails
check "results directory removed" no_results

guest plan-disagrees <<'EOF'
echo "ok 1 - one of five"
echo "1..5"
EOF
stub
check "guest status ok" has '^ok 2 - guest test finished with status 0$'
check "plan 1..5 with one result: not ok" \
	has "^not ok 3 - the guest's plan matches its results \\(plan 1\\.\\.5, 1 results received\\)$"
check "the guest's plan as a comment" has '^# 1\.\.5$'
check "valid TAP, plan 1..4" tap_valid
check "prove fails it" prove_fails
check "results directory removed" no_results

guest plan-uncounted <<'EOF'
. "$SRPT_REPO/tools/vm/lib.sh"
ok "one"
echo "ok 2 - printed past lib.sh's count"
EOF
stub
check "guest status ok" has '^ok 3 - guest test finished with status 0$'
check "lib.sh's plan 1..1 with two results: not ok" \
	has "^not ok 4 - the guest's plan matches its results \\(plan 1\\.\\.1, 2 results received\\)$"
check "valid TAP, plan 1..5" tap_valid
check "prove fails it" prove_fails
check "results directory removed" no_results

guest plan-died <<'EOF'
. "$SRPT_REPO/tools/vm/lib.sh"
ok "one"
kill -9 $$
ok "two"
EOF
stub
check "guest status not ok (status: 137)" \
	has '^not ok 2 - guest test finished with status 0 \(status: 137\)$'
check "died: no guest plan" \
	has "^not ok 3 - the guest's plan matches its results \\(no plan after 1 results: "
check "valid TAP, plan 1..4" tap_valid
check "results directory removed" no_results

guest plan-good <<'EOF'
. "$SRPT_REPO/tools/vm/lib.sh"
ok "one"
not_ok "two # TODO a failure that is allowed"
EOF
stub
check "lib.sh's plan 1..2 with two results: ok" \
	has "^ok 4 - the guest's plan matches its results \\(1\\.\\.2\\)$"
check "the guest's plan as a comment" has '^# 1\.\.2$'
check "valid TAP, plan 1..5" tap_valid
check "prove passes it" prove_passes
check "results directory removed" no_results

guest sigkill <<'EOF'
sleep 600
EOF
start SRPT_TEST_TIMEOUT=300
qemu_up
kill -9 "$vpid"
wait "$vpid" 2>/dev/null
vpid=''
check "QEMU dies with a SIGKILLed vmtest (parent-death signal)" no_qemu
rm -rf "${TMPDIR:?}"/*

guest timeout <<'EOF'
# Console output of the guest's own, no kernel line: no splat.
echo 'WARNING: guest shell echo on the console' >/dev/console
echo "ok 1 - about to sleep past the timeout"
sleep 600
EOF
run 160 SRPT_TEST_TIMEOUT=20
check "vmtest finishes (${took}s after QEMU started)" [ $gone = 1 ]
check "guest status not ok (status: 124)" \
	has '^not ok 2 - guest test finished with status 0 \(status: 124\)$'
check "killed: no guest plan" \
	has "^not ok 3 - the guest's plan matches its results \\(no plan after 1 results: "
check "a guest shell's console echo is no splat" has '^ok 4 - dmesg clean of splats$'
check "valid TAP, plan 1..4" tap_valid
check "no QEMU left" no_qemu
check "results directory removed" no_results

guest hang <<'EOF'
# The guest's timeout(1) can't end this test: only vmtest's own limit can.
trap '' TERM
sleep 600
EOF
run 90 SRPT_TEST_TIMEOUT=1 SRPT_VM_GRACE=29
check "vmtest kills the hung guest and finishes (${took}s)" [ $gone = 1 ]
check "guest status not ok (status: none)" \
	has '^not ok 1 - guest test finished with status 0 \(status: none\)$'
check "no guest checks" \
	has "^not ok 2 - the guest's plan matches its results \\(no guest checks\\)$"
check "no dmesg: splat test not ok, console scanned" \
	has '^not ok 3 - dmesg clean of splats \(no dmesg saved; console scanned\)$'
check "valid TAP, plan 1..3" tap_valid
check "no QEMU left" no_qemu
check "results directory removed" no_results

guest fail-warn <<'EOF'
# A kernel log line as WARN() starts one, and a console echo that isn't.
echo 'WARNING: CPU: 0 PID: 1 at test' >/dev/kmsg
echo 'report tail: srpt_frame_of_the_report+0x1/0x2' >/dev/kmsg
echo 'BUG: guest shell echo on the console' >/dev/console
echo "ok 1 - wrote a splat"
echo "1..1"
exit 3
EOF
run 160 SRPT_TEST_TIMEOUT=60
check "vmtest finishes" [ $gone = 1 ]
check "guest's own TAP passed through" has '^ok 1 - wrote a splat$'
check "guest status not ok (status: 3)" \
	has '^not ok 2 - guest test finished with status 0 \(status: 3\)$'
check "the guest's plan ok" has "^ok 3 - the guest's plan matches its results \\(1..1\\)$"
check "splat test not ok" has '^not ok 4 - dmesg clean of splats$'
check "the dmesg line as diagnostics" \
	after '^# dmesg: \[ *[0-9]+\.[0-9]+\] WARNING: CPU: 0 PID: 1 at test$'
check "the console echo not among the splats" not_after "guest shell echo"
check "the whole report follows, not only its splat line" \
	after '^# report: \[ *[0-9]+\.[0-9]+\] report tail: srpt_frame_of_the_report\+0x1/0x2$'
check "the guest's logs are kept under build/vm-failures" \
	after '^# guest logs kept in .*/build/vm-failures/'
check "valid TAP, plan 1..4" tap_valid
check "no QEMU left" no_qemu
check "results directory removed" no_results

guest taint <<'EOF'
# A warning whose log line never made it: only the taint flags tell.
echo 512 >/proc/sys/kernel/tainted
echo "ok 1 - tainted W"
echo "1..1"
EOF
run 160 SRPT_TEST_TIMEOUT=60
check "vmtest finishes" [ $gone = 1 ]
check "guest status ok" has '^ok 2 - guest test finished with status 0$'
check "the guest's plan ok" has "^ok 3 - the guest's plan matches its results \\(1..1\\)$"
check "splat test not ok, the taint named" \
	has '^not ok 4 - dmesg clean of splats \(kernel tainted: W\)$'
check "valid TAP, plan 1..4" tap_valid
check "no QEMU left" no_qemu
check "results directory removed" no_results

guest logger-killed <<'EOF'
kill -9 "$SRPT_KMSG_LOGGER"
echo "ok 1 - killed the kernel log logger"
echo "1..1"
EOF
run 160 SRPT_TEST_TIMEOUT=60
check "vmtest finishes" [ $gone = 1 ]
check "splat test not ok: the log is not whole" \
	has '^not ok 4 - dmesg clean of splats \(kernel log incomplete\)$'
check "why, as diagnostics" \
	after '^# kernel log: the kernel log logger died before the test.s end$'
check "valid TAP, plan 1..4" tap_valid
check "no QEMU left" no_qemu
check "results directory removed" no_results

guest records-lost <<'EOF'
# Stop the logger, write more than the 8 MiB ring buffer holds (one open
# per record: /dev/kmsg rate-limits writes per open file), let it go on.
kill -STOP "$SRPT_KMSG_LOGGER"
python3 -c '
for i in range(10000):
    with open("/dev/kmsg", "w") as f:
        f.write("vmkill: filler %05d %s\n" % (i, "x" * 900))'
kill -CONT "$SRPT_KMSG_LOGGER"
echo "ok 1 - overran the ring buffer"
echo "1..1"
EOF
run 250 SRPT_TEST_TIMEOUT=150
check "vmtest finishes" [ $gone = 1 ]
check "splat test not ok: records lost" \
	has '^not ok 4 - dmesg clean of splats \(kernel log incomplete\)$'
check "which records, as diagnostics" \
	after '^# kernel log: kernel log records [0-9]+ to [0-9]+ lost$'
check "valid TAP, plan 1..4" tap_valid
check "no QEMU left" no_qemu
check "results directory removed" no_results

guest panic <<'EOF'
echo 1 >/proc/sys/kernel/sysrq
echo c >/proc/sysrq-trigger
sleep 600
EOF
run 250 SRPT_TEST_TIMEOUT=100
# Under SRPT_TEST_TIMEOUT: QEMU left on the panic (panic=-1, -no-reboot).
check "vmtest finishes as QEMU exits on the panic (${took}s)" within 100
check "guest status not ok (status: none)" \
	has '^not ok 1 - guest test finished with status 0 \(status: none\)$'
check "no guest checks" \
	has "^not ok 2 - the guest's plan matches its results \\(no guest checks\\)$"
check "splat test not ok, console scanned" \
	has '^not ok 3 - dmesg clean of splats \(no dmesg saved; console scanned\)$'
check "the console's panic line as diagnostics" \
	after '^# console: \[ *[0-9]+\.[0-9]+\] Kernel panic - not syncing'
check "the panic's stack first, sysrq_handle_crash in it" \
	has '^# stack: \[ *[0-9]+\.[0-9]+\] +sysrq_handle_crash\+0x'
check "valid TAP, plan 1..3" tap_valid
check "no QEMU left" no_qemu
check "results directory removed" no_results

# A CPU stalled with preemption off (tools/tests/harness/stall/, built
# here for the guest's kernel; interrupts stay on, so jiffies go on and the
# stall's length does not rest on delay-loop calibration): RCU reports the
# stall with the stalled CPU's backtrace and, with
# kernel.panic_on_rcu_stall=1 (vmtest), the guest panics about 21 s later,
# so vmtest ends then, long before the test's timeout, and the report
# names the stalled function.
tc=stall out=$tmp/stall.build
# shellcheck disable=SC2012 # release names; vmtest picks its kernel the same way
skver=$(ls /lib/modules | sort -V | tail -n 1)
cp -r "$top/tools/tests/harness/stall" "$tmp/stall"
build_stall() { make -C "/lib/modules/$skver/build" M="$tmp/stall" modules >"$out" 2>&1; }
check "stall module built for $skver" build_stall
guest stall <<EOF
insmod $tmp/stall/stall.ko stall_seconds=90
sleep 600
EOF
run 250 SRPT_TEST_TIMEOUT=200
check "vmtest finishes as the stalled guest panics (${took}s)" within 120
check "guest status not ok (status: none)" \
	has '^not ok 1 - guest test finished with status 0 \(status: none\)$'
check "the stalled CPU's function in the stack lines" \
	has '^# stack: .*srpt_harness_stall\+0x[0-9a-f]+/0x[0-9a-f]+ \[stall\]'
check "the console ends in the RCU stall panic" \
	has '^# console: .*Kernel panic - not syncing: RCU Stall'
check "splat test not ok, console scanned" \
	has '^not ok 3 - dmesg clean of splats \(no dmesg saved; console scanned\)$'
check "no QEMU left" no_qemu
check "results directory removed" no_results

guest sigterm <<'EOF'
echo "vmkill: guest running"
sleep 600
EOF
start SRPT_TEST_TIMEOUT=300
qemu_up
check "guest runs" until_running
kill -TERM "$vpid"
t0=$(date +%s)
check "vmtest ends within 10 s of SIGTERM" until_gone 10
check "exit status 143" [ "$vrc" = 143 ]
check "no QEMU left" no_qemu
check "results directory removed" no_results

# Ctrl-C: SIGINT to vmtest's whole process group (QEMU, started in the
# background by a script, ignores it); setsid gives the group, env a
# SIGINT that isn't ignored as it is in our own background jobs.
tc=sigint script=$tmp/sigint.t out=$tmp/sigint.out
cp "$tmp/sigterm.t" "$script"
setsid env --default-signal=INT SRPT_TEST_TIMEOUT=300 "$vmtest" "$script" >"$out" 2>&1 &
vpid=$!
qemu_up
check "guest runs" until_running
# (dash's kill takes no "--" before a negative process group id)
kill -INT "-$(ps -o pgid= -p "$vpid" | tr -d ' ')"
t0=$(date +%s)
check "vmtest ends within 10 s of Ctrl-C" until_gone 10
check "exit status 130" [ "$vrc" = 130 ]
check "no QEMU left" no_qemu
check "results directory removed" no_results

echo "1..$n"

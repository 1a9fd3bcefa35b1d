#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 in the test guest: mount the basics, run the test named by srpt.test=
# with a timeout, save its output, exit code, the kernel's taint flags and
# dmesg to /results, power off.  A kernel log that is not whole (records
# lost, the logger dead or behind) is reported in /results/kmsg-incomplete.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
# /tmp stays on the overlay (writable, tmpfs-backed): a tmpfs over it would
# hide a repository checked out under /tmp on the host.
mount -t tmpfs tmpfs /run
# arg NAME: the value of NAME= on the kernel command line (its last one),
# in the shell: a sed per argument costs about 0.1 s under TCG.
read -r cmdline </proc/cmdline
arg() {
	case " $cmdline " in
	*" $1="*)
		a=" $cmdline "
		a=${a##*" $1="}
		printf '%s\n' "${a%% *}"
		;;
	esac
}
test=$(arg srpt.test)
export SRPT_REPO SRPT_UNDER_TEST
SRPT_REPO=$(arg srpt.repo)
SRPT_UNDER_TEST=$(arg srpt.under)
# vmtest's SRPT_KO (the ib_srpt.ko to load) and SRPT_VM_MODULES: a kernel
# whose modules are not in the host's /lib/modules gets them linked there.
# vmtest's test options (SRPT_HOSTILE_*), as "export NAME='value'" lines.
# shellcheck disable=SC1091
[ ! -s /results/env ] || . /results/env
SRPT_KO=$(arg srpt.ko)
[ -z "$SRPT_KO" ] || export SRPT_KO
# vmtest's SRPT_IBCM_KO (the IB CM test initiator t-ibcm loads).
SRPT_IBCM_KO=$(arg srpt.ibcm)
[ -z "$SRPT_IBCM_KO" ] || export SRPT_IBCM_KO
mods=$(arg srpt.modules)
# (A Debian 13 root, vmtest's SRPT_VM_ROOT, has no /lib/modules at all.)
if [ -n "$mods" ] && [ ! -e "/lib/modules/$(uname -r)" ]; then
	mkdir -p /lib/modules
	ln -s "$mods" "/lib/modules/$(uname -r)"
fi
# Its headers too, when the modules directory is part of Debian's packages
# unpacked (tools/kernels.sh: PKGROOT/usr/lib/modules/REL, merged /usr as
# trixie's kernels ship; PKGROOT/lib/modules/REL, bookworm-backports'
# 6.12): DKMS in the guest needs linux-headers-* and linux-kbuild-* at
# their packaged paths.  bookworm-backports' build link is absolute
# (/usr/src/linux-headers-REL), dangling in the host's root without them,
# and Debian 12's DKMS then skips the kernel ("headers ... do not seem to
# be installed") and apt-get still succeeds; trixie's build link is
# relative, but 7.3's headers Makefile names its own directory absolutely
# (KBUILD_OUTPUT=/usr/src/linux-headers-REL).  Linked into the guest's /usr
# (an overlay), only where the root lacks them.
case $mods in
*/usr/lib/modules/*) pkgroot=${mods%/usr/lib/modules/*} ;;
*/lib/modules/*) pkgroot=${mods%/lib/modules/*} ;;
*) pkgroot= ;;
esac
if [ -n "$pkgroot" ]; then
	for d in "$pkgroot"/usr/src/linux-headers-* "$pkgroot"/usr/lib/linux-kbuild-*; do
		[ -d "$d" ] || continue
		t=${d#"$pkgroot"}
		[ -e "$t" ] || [ -L "$t" ] || ln -s "$d" "$t"
	done
fi
# Every kernel log record, from boot on: the ring buffer wraps when a test
# traces commands (dyndbg), and the splat check must see all of it.  Tests
# read it as $SRPT_KMSG; $SRPT_KMSG_LOGGER is the logger's pid (for the
# harness's own tests).
export SRPT_KMSG=/tmp/kmsg.log
rm -f $SRPT_KMSG
# PYTHONHASHSEED and -S (no site module): python3 then neither waits for
# the kernel's random pool (about 1 s after this point, under TCG) nor
# reads site-packages over 9p.
PYTHONHASHSEED=0 python3 -S -c '
import os, sys
src = os.open("/dev/kmsg", os.O_RDONLY)
dst = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
while True:
    try:
        rec = os.read(src, 8192)
    except BrokenPipeError:  # overwritten before we read it: go on (the
        rec = b"kmsg logger: records lost\n"  # gap in seq is found below)
    os.write(dst, rec)' $SRPT_KMSG &
kmsg_pid=$!
export SRPT_KMSG_LOGGER=$kmsg_pid
# python3 takes seconds to start under TCG: a test done before it opened
# the log would leave an empty dmesg, which the splat check can't flag.
while [ ! -e $SRPT_KMSG ] && kill -0 $kmsg_pid 2>/dev/null; do sleep 0.1; done
timeout "$(arg srpt.timeout)" sh "$test" >/results/tap 2>&1
echo $? >/results/rc
# Taint flags at the end of the test: a WARN, an oops, a bad page or a
# soft lockup (W, D, B, L) taints the kernel even when its log lines were
# lost; vmtest fails the splat test on them.
cat /proc/sys/kernel/tainted >/results/tainted
# Kernels with kmemleak (the debug kernel, which has no automatic scan):
# scan twice (objects younger than 5 s are not reported yet) and save the
# report; vmtest fails the splat test on a report that is not empty.
kml=/sys/kernel/debug/kmemleak
grep -q " /sys/kernel/debug debugfs" /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -e $kml ]; then
	if echo scan >$kml && sleep 5 && echo scan >$kml; then
		cat $kml >/results/kmemleak
	else
		echo "guest-init: kmemleak scan failed (kmemleak disabled?)" >/results/kmemleak
	fi
fi
# Stop the logger only once it has caught up with the log's end.  Every
# record has a sequence number ("prio,seq,usec,flags;text"): the saved log
# must hold 0, 1, 2, ... without a gap (the ring buffer overwrote records
# before the logger read them), up to the marker.
echo "guest-init: test finished" >/dev/kmsg
i=0
while ! grep -q "guest-init: test finished" $SRPT_KMSG && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
if ! kill -0 $kmsg_pid 2>/dev/null; then
	echo "the kernel log logger died before the test's end" >>/results/kmsg-incomplete
elif ! grep -q "guest-init: test finished" $SRPT_KMSG; then
	echo "the kernel log logger did not catch up within 30 s" >>/results/kmsg-incomplete
fi
kill $kmsg_pid 2>/dev/null
awk -F '[,;]' '/^[0-9]+,[0-9]+,/ {
	if ($2 != n) { printf "kernel log records %d to %d lost\n", n, $2 - 1; bad = 1 }
	n = $2 + 1
} END { exit bad }' $SRPT_KMSG >>/results/kmsg-incomplete ||
	echo "(the ring buffer wrapped before the logger read them)" >>/results/kmsg-incomplete
# /dev/kmsg records ("6,123,4567,-;text") in dmesg's "[ seconds] text" form.
sed -E 's/^[0-9]+,[0-9]+,([0-9]+),[^;]*;/\1 /' $SRPT_KMSG |
	awk '/^[0-9]+ / { t = $1; sub(/^[0-9]+ /, ""); printf "[%5d.%06d] %s\n", t / 1000000, t % 1000000, $0; next } { print }' \
	>/results/dmesg
sync
echo o >/proc/sysrq-trigger
# Power-off is asynchronous and takes the 9p root away: exec'ing anything
# now (sleep) can fail, and PID 1 must not exit (that panics).  Spin in the
# shell until the machine is off.
while :; do :; done

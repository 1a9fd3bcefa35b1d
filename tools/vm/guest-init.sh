#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 in the test guest: mount the basics, run the test named by srpt.test=
# with a timeout, save its output, exit code and dmesg to /results, power off.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
# /tmp stays on the overlay (writable, tmpfs-backed): a tmpfs over it would
# hide a repository checked out under /tmp on the host.
mount -t tmpfs tmpfs /run
arg() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" /proc/cmdline; }
test=$(arg srpt.test)
export SRPT_REPO SRPT_UNDER_TEST
SRPT_REPO=$(arg srpt.repo)
SRPT_UNDER_TEST=$(arg srpt.under)
# vmtest's SRPT_KO (the ib_srpt.ko to load) and SRPT_VM_MODULES: a kernel
# whose modules are not in the host's /lib/modules gets them linked there.
SRPT_KO=$(arg srpt.ko)
[ -z "$SRPT_KO" ] || export SRPT_KO
mods=$(arg srpt.modules)
if [ -n "$mods" ] && [ ! -e "/lib/modules/$(uname -r)" ]; then
	ln -s "$mods" "/lib/modules/$(uname -r)"
fi
# Every kernel log record, from boot on: the ring buffer wraps when a test
# traces commands (dyndbg), and the splat check must see all of it.  Tests
# read it as $SRPT_KMSG.
export SRPT_KMSG=/tmp/kmsg.log
rm -f $SRPT_KMSG
python3 -c '
import os, sys
src = os.open("/dev/kmsg", os.O_RDONLY)
dst = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
while True:
    try:
        rec = os.read(src, 8192)
    except BrokenPipeError:  # overwritten before we read it: say so, go on
        rec = b"4,0,0,-;kmsg logger: records lost\n"
    os.write(dst, rec)' $SRPT_KMSG &
kmsg_pid=$!
# python3 takes seconds to start under TCG: a test done before it opened
# the log would leave an empty dmesg, which the splat check can't flag.
while [ ! -e $SRPT_KMSG ] && kill -0 $kmsg_pid 2>/dev/null; do sleep 0.1; done
timeout "$(arg srpt.timeout)" sh "$test" >/results/tap 2>&1
echo $? >/results/rc
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
# Stop the logger only once it has caught up with the log's end.
echo "guest-init: test finished" >/dev/kmsg
i=0
while ! grep -q "guest-init: test finished" $SRPT_KMSG && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill $kmsg_pid 2>/dev/null
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

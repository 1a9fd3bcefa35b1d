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
timeout "$(arg srpt.timeout)" sh "$test" >/results/tap 2>&1
echo $? >/results/rc
dmesg >/results/dmesg
sync
echo o >/proc/sysrq-trigger
sleep 30

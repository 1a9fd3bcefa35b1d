#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh: "make check-debug".  Builds the debug kernel if it is not
# cached (build.sh), builds ib_srpt.ko against it in build/debug/ (a copy of
# the sources, so the checkout's ib_srpt.ko stays the distro kernel's), then
# runs the data-path, lifetime and hostile-input VM tests on that kernel with that
# module.  KASAN, UBSAN, lockdep, debugobjects and atomic-sleep reports fail
# a test through the harness's splat check (check-dmesg.sh); kmemleak is
# scanned at the end of each test (guest-init.sh) and a report fails it.
#
# SRPT_VM_TESTS overrides the list of tests; SRPT_TEST_TIMEOUT (1800) and
# SRPT_VM_GRACE (600) are raised for a debug kernel under TCG.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bk=tools/debug-kernel/build.sh
"$bk"
dir=$("$bk" --dir)
rel=$(cat "$dir/release")
kdir=$dir/build

# The module, from a copy of the sources (cp -p keeps mtimes: incremental).
out=$top/build/debug
mkdir -p "$out"
cp -p Makefile Kconfig ib_srpt.c ./*.h "$out/"
nice -n 19 make -C "$kdir" M="$out" CONFIG_INFINIBAND_SRPT=m modules
ko=$out/ib_srpt.ko
[ "$(/sbin/modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$rel" ] ||
	{ echo "check-debug: $ko is not built for $rel" >&2; exit 1; }

tests="t-load.t t-login.t t-io.t t-faults.t t-attrs.t t-lifetimes.t"
if [ -f tools/tests/vm/t-hostile.t ]; then
	# t-hostile-srq: an initiator ignoring its credits on an SRQ channel
	# while ib_srp runs fio verify on another.
	tests="$tests t-hostile.t t-hostile-srq.t"
	# t-teardown: refused commands, a stuck backend command, and the
	# driver's fault injection, which only a debug kernel has.
	[ ! -f tools/tests/vm/t-teardown.t ] || tests="$tests t-teardown.t"
	# Its userspace initiator (build/srp-probe/), kernel-independent.
	[ ! -d tools/srp-probe ] || make tools
fi

export SRPT_VM_KERNEL="$dir/bzImage"
export SRPT_VM_MODULES="$dir/lib/modules/$rel"
export SRPT_KO="$ko"
export SRPT_VM_TESTS="${SRPT_VM_TESTS:-$tests}"
export SRPT_TEST_TIMEOUT="${SRPT_TEST_TIMEOUT:-1800}"
export SRPT_VM_GRACE="${SRPT_VM_GRACE:-600}"
echo "check-debug: $rel ($SRPT_VM_KERNEL), $ko: $SRPT_VM_TESTS"
exec tools/check.sh vm

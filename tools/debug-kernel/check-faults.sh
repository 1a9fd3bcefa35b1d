#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-faults.sh: "make check-faults".  The fault sweep of issue 28
# (tools/tests/faults/t-sweep.t) on the debug kernel, the only kernel here
# with CONFIG_FAULT_INJECTION_DEBUG_FS (Debian's 6.1 has no fault
# injection: there the sweep is one SKIP, and make check does not run it).
# Builds the debug kernel if it is not cached (build.sh), ib_srpt.ko and
# the IB CM test initiator srp_ibcm_ini.ko against it in build/faults/ (a
# copy of the sources, as check-debug.sh does), srp-probe (make tools),
# then runs the sweep in one VM.
#
# SRPT_FAULTS_MODE=cover (make check-faults-cover): every site failed
# once, its last call, on the first path that calls it.
# SRPT_FAULTS_MODE=sample (make check-faults-sample): a handful of
# injections instead of the first three and the last call of every site.  SRPT_FAULTS_PATHS,
# SRPT_FAULTS_SITES and SRPT_FAULTS_MAX_N restrict the sweep (see the
# test's header); SRPT_TEST_TIMEOUT (86400, the test's own) and
# SRPT_VM_GRACE (600) bound it.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bk=tools/debug-kernel/build.sh
"$bk"
dir=$("$bk" --dir)
rel=$(cat "$dir/release")
kdir=$dir/build

out=$top/build/faults
mkdir -p "$out/tools/ibcm-initiator"
cp -p Makefile Kconfig ib_srpt.c ./*.h "$out/"
cp -p tools/ibcm-initiator/Kbuild tools/ibcm-initiator/srp_ibcm_ini.c \
	"$out/tools/ibcm-initiator/"
nice -n 19 make -C "$kdir" M="$out" CONFIG_INFINIBAND_SRPT=m modules
nice -n 19 make -C "$kdir" M="$out/tools/ibcm-initiator" modules
for ko in "$out/ib_srpt.ko" "$out/tools/ibcm-initiator/srp_ibcm_ini.ko"; do
	[ "$(/sbin/modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$rel" ] ||
		{ echo "check-faults: $ko is not built for $rel" >&2; exit 1; }
done
/sbin/modinfo -F parm "$out/ib_srpt.ko" | grep -q '^fail_at:' ||
	{ echo "check-faults: $out/ib_srpt.ko has no fault injection (fail_at)" >&2; exit 1; }
make tools

export SRPT_VM_KERNEL="$dir/bzImage"
export SRPT_VM_MODULES="$dir/lib/modules/$rel"
export SRPT_KO="$out/ib_srpt.ko"
export SRPT_IBCM_KO="$out/tools/ibcm-initiator/srp_ibcm_ini.ko"
export SRPT_VM_TESTS=tools/tests/faults/t-sweep.t
export SRPT_VM_GRACE="${SRPT_VM_GRACE:-600}"
echo "check-faults: $rel ($SRPT_VM_KERNEL), $SRPT_KO, mode ${SRPT_FAULTS_MODE:-full}"
exec tools/check.sh vm

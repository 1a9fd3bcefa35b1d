#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the in-tree ib_srpt (A) and ours (B) measured side by side in
# one VM boot (soft-RoCE loopback, the kernel's ib_srp, fio), in ABBA
# order, then tools/bench/report.py writes build/bench/report.md and PNG
# plots.  Not a test: nothing here passes or fails on a number.
#
# Every knob has a default; set it in the environment to change it:
#   BENCH_RUNTIME    seconds per fio run (5; 1 s of ramp comes on top)
#   BENCH_ROUNDS     rounds per point, even (2: A B, then B A); the A/A
#                    pair (A against itself on the first configuration,
#                    the noise floor) runs as many
#   BENCH_BACKENDS   rd_mcp kinds ("nullio ramdisk"); set but empty skips
#                    the throughput matrix
#   BENCH_CH         ib_srp ch_count values ("1 2")
#   BENCH_IMM        ib_srp use_imm_data values ("1 0")
#   BENCH_WORKLOADS  rw:bs:qd items (4k random at QD 1, 32, 128; 128k and 1M
#                    sequential)
#   BENCH_PROFILE    workloads profiled with perf ("randread:4k:32
#                    randwrite:4k:32"); set but empty skips the profiles
#   BENCH_PERF_HZ    perf's sampling rate for the profiles (499)
#   BENCH_WARMUP     seconds of an unrecorded fio run after each login (3)
#   BENCH_FIO_CPUS   fio's --cpus_allowed (unset: fio runs where the
#                    scheduler puts it)
#   BENCH_A_KO       a build of ours to serve as A instead of the in-tree
#                    module: a before/after measurement of one change
#   BENCH_LOGINS     channel counts of the control-path test ("64 256");
#                    set but empty (BENCH_LOGINS=) skips that test
#   BENCH_LOGIN_ROUNDS  ABBA rounds of it (1: two runs per driver)
#   BENCH_QUICK=1    a short run: nullio, ch_count 1, immediate data on,
#                    4k workloads only, 64 logins
#   BENCH_INSN=1     count the guest kernel's instructions per I/O with a
#                    QEMU plugin (tools/bench/insn/): by function, module
#                    and driver, a cost that does not move with the host's
#                    load; runs TCG single-threaded (slower, both vCPUs on
#                    one host thread)
#   SRPT_KERNEL      one of Debian's other kernels (tools/kernels.sh:
#                    bpo-6.12, trixie-6.12, trixie-bpo): the VM boots it,
#                    A is that kernel's own in-tree ib_srpt and B ours
#                    built for it (as "SRPT_KERNEL=... tools/check.sh vm");
#                    BENCH_A_KO must then be built for that kernel too
# A full run takes about an hour on 2 cores under TCG.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=$top/build/bench
mkdir -p "$out"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	: "${BENCH_BACKENDS=nullio}" "${BENCH_CH:=1}" "${BENCH_IMM:=1}"
	: "${BENCH_WORKLOADS:=randread:4k:1 randread:4k:32 randwrite:4k:32}"
	: "${BENCH_LOGINS=64}" "${BENCH_RUNTIME:=4}"
fi
# ABBA: as many rounds with A first as with B first.
case ${BENCH_ROUNDS:-2} in
*[!0-9]*) r=1 ;;
*) r=$((${BENCH_ROUNDS:-2} % 2 + (${BENCH_ROUNDS:-2} == 0))) ;;
esac
if [ "$r" != 0 ]; then
	echo "bench: BENCH_ROUNDS=$BENCH_ROUNDS: the rounds must be ABBA, an even number above 0" >&2
	exit 1
fi
cat >"$out/params" <<EOF
BENCH_RUNTIME=${BENCH_RUNTIME:-5}
BENCH_ROUNDS=${BENCH_ROUNDS:-2}
BENCH_BACKENDS="${BENCH_BACKENDS-nullio ramdisk}"
BENCH_CH="${BENCH_CH:-1 2}"
BENCH_IMM="${BENCH_IMM:-1 0}"
BENCH_WORKLOADS="${BENCH_WORKLOADS:-randread:4k:1 randread:4k:32 randread:4k:128 randwrite:4k:1 randwrite:4k:32 randwrite:4k:128 read:128k:8 write:128k:8 read:1m:4 write:1m:4}"
BENCH_PROFILE="${BENCH_PROFILE-randread:4k:32 randwrite:4k:32}"
BENCH_PERF_HZ=${BENCH_PERF_HZ:-499}
BENCH_LOGINS="${BENCH_LOGINS-64 256}"
BENCH_LOGIN_ROUNDS=${BENCH_LOGIN_ROUNDS:-1}
BENCH_WARMUP=${BENCH_WARMUP:-3}
BENCH_A_KO="${BENCH_A_KO:-}"
BENCH_FIO_CPUS="${BENCH_FIO_CPUS:-}"
BENCH_INSN=${BENCH_INSN:-0}
EOF
if [ -n "${BENCH_A_KO:-}" ] && [ ! -f "$BENCH_A_KO" ]; then
	echo "bench: BENCH_A_KO=$BENCH_A_KO is not a file" >&2
	exit 1
fi
echo "bench: parameters ($out/params):"
sed 's/^/  /' "$out/params"

# The host's QEMU (7.2) unless SRPT_VM_QEMU names another: the figures in
# Documentation/testing.rst were measured on it, and the instruction
# counting plugin (tools/bench/insn/) is built against its plugin API.
# Exported before vmenv, which gives 6.12 and later one TCG thread on it.
SRPT_VM_QEMU=${SRPT_VM_QEMU:-host}
export SRPT_VM_QEMU
# The kernel to boot, as tools/check.sh does: SRPT_VM_KERNEL already set
# wins.
case ${SRPT_KERNEL:-host} in
host) ;;
*)
	if [ -z "${SRPT_VM_KERNEL:-}" ]; then
		kenv=$(tools/kernels.sh vmenv "$SRPT_KERNEL") || {
			echo "bench: kernel $SRPT_KERNEL not ready (tools/kernels.sh vmenv)" >&2
			exit 1
		}
		eval "$kenv"
	fi
	echo "bench: kernel $SRPT_KERNEL: $SRPT_VM_KERNEL, B is $SRPT_KO"
	;;
esac

vm=$out/vm
rm -f "$out/insn.snap"
if [ "${BENCH_INSN:-0}" = 1 ]; then
	tools/bench/insn/build.sh "$top/build/insn" || exit 1
	SRPT_VM_TCG_THREAD=single
	SRPT_VM_QEMU_ARGS="-plugin $top/build/insn/insn-count.so,out=$out/insn.snap,mark=0x7e5700000000"
	export SRPT_VM_TCG_THREAD SRPT_VM_QEMU_ARGS
fi
# vmtest empties it only once it holds the VM lock: until then the
# progress loop below would replay the last run's steps.
rm -rf "$vm"
SRPT_VM_RESULTS=$vm tools/vm/vmtest tools/bench/guest.sh >"$out/vmtest.log" 2>&1 &
vpid=$!
# Progress: the guest's "# HH:MM:SS step" lines as they come.
seen=0
while kill -0 "$vpid" 2>/dev/null; do
	sleep 5
	[ -f "$vm/tap" ] || continue
	n=$(wc -l <"$vm/tap")
	if [ "$n" -gt "$seen" ]; then
		sed -n "$((seen + 1)),${n}p" "$vm/tap" | sed 's/^# /bench: /'
		seen=$n
	fi
done
wait "$vpid"
rc=$?
grep -E '^(not ok|ok)' "$out/vmtest.log" | sed 's/^/bench: /'
if [ $rc != 0 ] || grep -q '^not ok' "$out/vmtest.log"; then
	echo "bench: the guest run had failures (log: $out/vmtest.log)" >&2
fi
[ -f "$vm/bench/runs.tsv" ] || { echo "bench: no results" >&2; exit 1; }
# Debian's python3, which has python3-matplotlib (make deps), whatever
# python3 comes first in PATH.
set --
[ "${BENCH_INSN:-0}" != 1 ] || set -- --insn "$out/insn.snap"
/usr/bin/python3 tools/bench/report.py "$@" "$vm/bench" "$out" || exit 1
echo "bench: report in $out/report.md, plots in $out/*.png"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=10800
# The guest half of "make bench" (tools/bench/bench.sh boots it through
# tools/vm/vmtest): the distro's in-tree ib_srpt (A) and ours (B) serve the
# same target in one boot, in ABBA order, and the kernel's ib_srp drives fio
# against each.  Everything measured goes to /results/bench/ for
# tools/bench/report.py; a progress line per step goes to the TAP output,
# which bench.sh shows while the guest runs.
#
# Parameters come from build/bench/params (written by bench.sh):
#   BENCH_RUNTIME    seconds of each fio run (after 1 s of ramp)
#   BENCH_ROUNDS     rounds per point (even); odd rounds run A first, even
#                    B first; the A/A pair (A1, A2: the A driver against
#                    itself, on the first configuration) as many
#   BENCH_BACKENDS   "nullio ramdisk"
#   BENCH_CH         ib_srp ch_count values, "1 2"
#   BENCH_IMM        ib_srp use_imm_data values, "1 0"
#   BENCH_WORKLOADS  rw:bs:qd items, e.g. "randread:4k:32"
#   BENCH_PROFILE    workloads profiled with perf (CPU per I/O by module)
#   BENCH_PERF_HZ    perf's sampling rate
#   BENCH_LOGINS     channel counts of the control-path test, "64 256"
#   BENCH_LOGIN_ROUNDS  ABBA rounds of it
#   BENCH_WARMUP     seconds of an unrecorded fio run after each login
#   BENCH_FIO_CPUS   fio's --cpus_allowed, if set
#   BENCH_A_KO       if set, A is this build of ours, not the in-tree module
#   BENCH_INSN       1: QEMU counts instructions (tools/bench/insn/); each
#                    measured fio run is between two runs of insn-mark,
#                    and the kernel's text symbols are kept for each session
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
. "$SRPT_REPO/build/bench/params"

out=/results/bench
mkdir -p "$out/fio" "$out/perf"
runs=$out/runs.tsv
probe=$SRPT_REPO/build/srp-probe/srp-probe
progress() { echo "# $(date +%H:%M:%S) $*"; }
# B: vmtest's SRPT_KO when it boots another kernel than the host's (bench.sh
# with SRPT_KERNEL: ours built for that kernel), else the checkout's build.
ours_ko=${SRPT_KO:-$SRPT_REPO/ib_srpt.ko}

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
modprobe -a configfs target_core_mod ib_core ib_cm rdma_cm
srp_initiator_load
ini=$(srp_ini_id)
[ -d /sys/kernel/debug/tracing ] || mount -t debugfs debugfs /sys/kernel/debug
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo "driver	backend	ch	imm	workload	round	pos	file	busy_ticks	ctxt	softirq	ksoftirqd	ios	hz	insn	ksyms" >"$runs"
hz=$(getconf CLK_TCK)
fio_cpus=
[ -z "${BENCH_FIO_CPUS:-}" ] || fio_cpus="--cpus_allowed=$BENCH_FIO_CPUS"

# Instruction counts (BENCH_INSN=1): insn_mark makes the plugin write a
# snapshot and prints its number (snapshots are numbered from 0 in the
# order the marker ran; only this script runs it).  The kernel's own
# symbols are kept once, the modules' for each session (modules move when
# they are loaded again).
insn_seq=$out/insn/seq
insn_mark() {
	[ "${BENCH_INSN:-0}" = 1 ] || { echo -; return 0; }
	_im=$(cat "$insn_seq")
	"$SRPT_REPO/build/insn/insn-mark" || { echo -; return 0; }
	echo $((_im + 1)) >"$insn_seq"
	echo "$_im"
}
insn_syms() {
	[ "${BENCH_INSN:-0}" = 1 ] || { echo -; return 0; }
	_is=$out/insn/modules-$(cat "$insn_seq").syms
	awk '$2 ~ /^[tT]$/ && NF == 4' /proc/kallsyms >"$_is"
	echo "${_is##*/}"
}
if [ "${BENCH_INSN:-0}" = 1 ]; then
	mkdir -p "$out/insn"
	echo 0 >"$insn_seq"
	awk '$2 ~ /^[tT]$/ && NF == 3' /proc/kallsyms >"$out/insn/kernel.syms"
fi

# driver_load A|A1|A2|B: the in-tree module (or BENCH_A_KO) or ours.
driver_load() {
	SRPT_UNDER_TEST=ours SRPT_KO=$ours_ko
	if [ "$1" != B ]; then
		if [ -n "${BENCH_A_KO:-}" ]; then
			SRPT_KO=$BENCH_A_KO
		else
			SRPT_UNDER_TEST=intree
		fi
	fi
	export SRPT_UNDER_TEST SRPT_KO
	srpt_load
}

# target_up BACKEND [SQ]: LUN 0 of TPG 1 on a 1 GiB rd_mcp (nullio: no
# data kept; ramdisk: pages really written and read), the ACL of ib_srp's
# initiator port, srp_sq_size SQ if given.
target_up() {
	mkdir -p "$CFS/core/rd_mcp_0/rd0" || return 1
	if [ "$1" = nullio ]; then
		echo "rd_pages=262144,rd_nullio=1" >"$CFS/core/rd_mcp_0/rd0/control"
	else
		echo "rd_pages=65536" >"$CFS/core/rd_mcp_0/rd0/control"
	fi
	echo 1 >"$CFS/core/rd_mcp_0/rd0/enable" || return 1
	SRPT_TPG=$CFS/srpt/0x$RXE_GID_HEX/tpgt_1
	mkdir -p "$SRPT_TPG/lun/lun_0" &&
		ln -s "$CFS/core/rd_mcp_0/rd0" "$SRPT_TPG/lun/lun_0/rd0" || return 1
	[ -z "${2:-}" ] || echo "$2" >"$SRPT_TPG/attrib/srp_sq_size"
	echo 1 >"$SRPT_TPG/enable" &&
		echo "$SRPT_CM_PORT" >"$CFS/srpt/discovery_auth/rdma_cm_port" &&
		srp_acl "$ini"
}
target_down() {
	srp_export_teardown >/dev/null 2>&1
	srpt_unload
}

# mem_available: the kernel's MemAvailable, KiB.
mem_available() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }

# cpu_busy: busy clock ticks of all CPUs (everything but idle and iowait).
cpu_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
ctxt() { awk '/^ctxt/ { print $2 }' /proc/stat; }
softirqs() { awk 'NR > 1 { for (i = 2; i <= NF; i++) s += $i } END { print s }' /proc/softirqs; }
# disk_ios DISK: reads and writes the kernel completed on /dev/DISK (0 if
# unreadable: the report leaves the per-I/O columns of that run empty).
disk_ios() { awk '{ print $1 + $5 }' "/sys/class/block/${1##*/}/stat" 2>/dev/null || echo 0; }
# ksoftirqd_switches: context switches of the ksoftirqd threads (each one
# a wake-up of softirq work that could not run inline).
ksoftirqd_switches() {
	for p in $(pgrep ksoftirqd); do
		awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { s += $2 } END { print s }' "/proc/$p/status"
	done | awk '{ s += $1 } END { print s + 0 }'
}

# perf_syms DATA: samples per (module, symbol) of a perf.data file, "count
# TAB module TAB symbol" lines.  perf names every kernel sample's dso
# [kernel.kallsyms]; /proc/kallsyms says which module a symbol is in (the
# loaded ib_srpt's, in-tree or ours).
perf_syms() {
	awk 'NF == 4 { m = $4; gsub(/[][]/, "", m); print $3, m }' /proc/kallsyms >/tmp/ksyms
	perf script -i "$1" -F ip,sym,dso 2>/dev/null |
		awk 'NR == FNR { mod[$1] = $2; next }
		{ dso = $NF; sym = $2
		  if (dso == "([kernel.kallsyms])") dso = (sym in mod) ? mod[sym] : "kernel"
		  n[dso "\t" sym]++ }
		END { for (k in n) print n[k] "\t" k }' /tmp/ksyms -
}

# run_fio NAME DISK RW BS QD CH: one measured fio run into $out/fio/NAME.json;
# prints the counters' deltas, tab separated, the I/Os among them: all
# counted over the same window, fio's start to its exit.
run_fio() {
	_jobs=1
	[ "$5" -ge "$6" ] && _jobs=$6
	_qd=$(($5 / _jobs))
	_m0=$(insn_mark)
	_b0=$(cpu_busy) _c0=$(ctxt) _s0=$(softirqs) _k0=$(ksoftirqd_switches) _i0=$(disk_ios "$2")
	fio --name=b --filename="$2" --rw="$3" --bs="$4" --iodepth="$_qd" \
		--numjobs="$_jobs" --group_reporting --direct=1 --ioengine=libaio \
		--size=1g --time_based --ramp_time=1 --runtime="$BENCH_RUNTIME" \
		--output-format=json --output="$out/fio/$1.json" ${fio_cpus:+"$fio_cpus"} >/dev/null 2>&1
	_i1=$(disk_ios "$2") _b1=$(cpu_busy) _c1=$(ctxt) _s1=$(softirqs) _k1=$(ksoftirqd_switches)
	_m1=$(insn_mark)
	# The run's snapshot is the second one, if both marks ran.
	[ "$_m0" != - ] || _m1=-
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' $((_b1 - _b0)) $((_c1 - _c0)) $((_s1 - _s0)) $((_k1 - _k0)) \
		$((_i1 - _i0)) "$hz" "$_m1"
}

# session DRIVER BACKEND CH IMM ROUND POS: load, export, log in, every
# workload once, log out, unload.
session() {
	driver_load "$1" || { not_ok "driver $1 loads"; return 1; }
	target_up "$2" || { not_ok "target up ($1 $2)"; target_down; return 1; }
	echo "$4" >/sys/module/ib_srp/parameters/use_imm_data
	if ! srp_login "ch_count=$3,queue_size=128" || ! disk=$(srp_disk 30); then
		not_ok "login ($1 $2 ch=$3 imm=$4)"
		srp_logout_all
		target_down
		return 1
	fi
	ksyms=$(insn_syms)
	# A warm-up nobody records: the first I/O after a login pays for
	# page faults, slab growth and the initiator's first scan.
	[ "${BENCH_WARMUP:-0}" -gt 0 ] &&
		fio --name=w --filename="$disk" --rw=randrw --bs=4k --iodepth=32 \
			--direct=1 --ioengine=libaio --size=1g --time_based \
			--runtime="$BENCH_WARMUP" ${fio_cpus:+"$fio_cpus"} >/dev/null 2>&1
	for w in $BENCH_WORKLOADS; do
		rw=${w%%:*} rest=${w#*:}
		bs=${rest%%:*} qd=${rest#*:}
		name="$1-$2-ch$3-imm$4-$rw-$bs-qd$qd-r$5"
		c=$(run_fio "$name" "$disk" "$rw" "$bs" "$qd" "$3")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
			"$rw:$bs:$qd" "$5" "$6" "$name" "$c" "$ksyms" >>"$runs"
	done
	srp_logout_wait
	target_down
}

# abba X Y BACKEND CH IMM LABEL: sessions of X and Y for BENCH_ROUNDS
# rounds, X first in odd rounds and Y first in even ones.
abba() {
	_r=1
	while [ $_r -le "$BENCH_ROUNDS" ]; do
		if [ $((_r % 2)) = 1 ]; then _order="$1 $2"; else _order="$2 $1"; fi
		_pos=1
		for _d in $_order; do
			progress "$6: $3 ch_count=$4 use_imm_data=$5, round $_r, driver $_d"
			session "$_d" "$3" "$4" "$5" "$_r" "$_pos"
			_pos=$((_pos + 1))
		done
		_r=$((_r + 1))
	done
}

# 1. Throughput: every point of the matrix, ABBA.
total=0
for be in $BENCH_BACKENDS; do for ch in $BENCH_CH; do for imm in $BENCH_IMM; do
	total=$((total + 1))
done; done; done
n=0
for be in $BENCH_BACKENDS; do
	for ch in $BENCH_CH; do
		for imm in $BENCH_IMM; do
			n=$((n + 1))
			abba A B "$be" "$ch" "$imm" "matrix $n/$total"
		done
	done
done
ok "throughput matrix measured ($total configurations x $BENCH_ROUNDS rounds)"
# The A/A pair, the noise floor: A against itself (as A1 and A2) on the
# first configuration, as the matrix measures A against B.
word1() { echo "$1" | awk '{ print $1 }'; }
if [ -n "$(word1 "$BENCH_BACKENDS")" ]; then
	abba A1 A2 "$(word1 "$BENCH_BACKENDS")" "$(word1 "$BENCH_CH")" "$(word1 "$BENCH_IMM")" "A/A pair"
	ok "A/A pair measured ($BENCH_ROUNDS rounds)"
fi

# 2. CPU per I/O by module: perf samples (cpu-clock) of the whole guest
# while fio runs, one run per driver and profiled workload.
for d in A B B A; do
	[ -n "$BENCH_PROFILE" ] || break
	if ! driver_load "$d" || ! target_up nullio; then
		not_ok "profile setup ($d)"
		target_down
		continue
	fi
	echo 1 >/sys/module/ib_srp/parameters/use_imm_data
	if ! srp_login "ch_count=1,queue_size=128" || ! disk=$(srp_disk 30); then
		not_ok "profile login ($d)"
		target_down
		continue
	fi
	for w in $BENCH_PROFILE; do
		rw=${w%%:*} rest=${w#*:}
		bs=${rest%%:*} qd=${rest#*:}
		name="prof-$d-$rw-$bs-$qd-$(date +%s)"
		progress "profile: driver $d, $rw $bs QD$qd"
		i0=$(disk_ios "$disk")
		perf record -a -e cpu-clock -F "${BENCH_PERF_HZ:-499}" -o "/tmp/$name.data" -- \
			fio --name=p --filename="$disk" --rw="$rw" --bs="$bs" --iodepth="$qd" \
			--direct=1 --ioengine=libaio --size=1g --time_based --ramp_time=1 \
			--runtime="$BENCH_RUNTIME" --output-format=json \
			--output="$out/perf/$name.json" ${fio_cpus:+"$fio_cpus"} >/dev/null 2>&1
		# The I/Os of perf's window, for CPU per I/O.
		echo $(($(disk_ios "$disk") - i0)) >"$out/perf/$name.ios"
		perf_syms "/tmp/$name.data" >"$out/perf/$name.syms"
		rm -f "/tmp/$name.data"
	done
	srp_logout_wait
	target_down
done
[ -z "$BENCH_PROFILE" ] || ok "CPU profiles recorded"

# 3. Control path: N logins at once (one srp-probe process, a thread and a
# channel per login), then all torn down: the TPG disabled until no channel
# is left, then targetcli clearconfig;
# BENCH_LOGIN_ROUNDS times ABBA.
# A warm-up nobody records: each driver's first logins of the boot pay for
# module and slab start-up (the first run took 2-4x the later ones).
order="A B"
r=0
while [ $r -lt "${BENCH_LOGIN_ROUNDS:-1}" ]; do
	order="$order A B B A"
	r=$((r + 1))
done
first=2
for d in $order; do
	for nl in $BENCH_LOGINS; do
		if [ $first -gt 0 ]; then
			progress "control path: driver $d, $nl logins at once (warm-up)"
		else
			progress "control path: driver $d, $nl logins at once"
		fi
		if ! driver_load "$d" || ! target_up nullio 256; then
			not_ok "login test setup ($d)"
			target_down
			continue
		fi
		# One srp-probe process, a thread per login: its "logins:" line
		# says when the target had answered them all, measured from the
		# first thread's start (no process start-up in it).
		: >/tmp/lg.out
		m0=$(mem_available)
		t0=$(date +%s.%N)
		"$probe" --logins "$nl" -e "$(srpt_guid16)" --hold 3600 -t 120 \
			"$SRPT_IP" "$SRPT_CM_PORT" >/tmp/lg.out 2>&1 &
		pid=$!
		j=0
		while ! grep -q "^logins:" /tmp/lg.out && kill -0 "$pid" 2>/dev/null; do
			j=$((j + 1))
			[ $j -le 3000 ] || break
			sleep 0.1
		done
		in=$(sed -n 's/^logins: \([0-9]*\) of .*/\1/p' /tmp/lg.out)
		tl=$(sed -n 's/^logins: .* in \([0-9.]*\) s .*/\1/p' /tmp/lg.out)
		[ -n "$in" ] || { in=0; tl=nan; sed 's/^/# /' /tmp/lg.out; }
		t1=$(date +%s.%N)
		m1=$(mem_available)
		ch=$(srpt_channels)
		# Teardown in two steps: the TPG disable, after which the
		# driver alone closes and releases every channel, then
		# clearconfig, which is mostly targetcli walking and removing
		# the configuration.
		echo 0 >"$SRPT_TPG/enable"
		# A close that timed out is recorded as failed (column 10).
		closed=1
		if ! srpt_channels_are 0 300; then
			closed=0
			not_ok "close of $nl channels ($d) within 300 s"
		fi
		tc=$(date +%s.%N)
		tcli clearconfig confirm=True >/dev/null 2>&1
		wait
		t2=$(date +%s.%N)
		[ $first -gt 0 ] ||
			awk -v d="$d" -v n="$nl" -v li="$in" -v ch="$ch" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v tl="$tl" \
				-v kb=$((m0 - m1)) -v tc="$tc" -v closed="$closed" \
				'BEGIN { printf "%s\t%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\t%.3f\t%s\n", d, n, li, ch, t1 - t0, t2 - t1, tl, kb, tc - t1, closed }' >>"$out/logins.tsv"
		echo 0 >"$CFS/srpt/discovery_auth/rdma_cm_port" 2>/dev/null
		rmdir "$CFS/srpt" 2>/dev/null
		srpt_unload
	done
	first=$((first - 1))
done
ok "control path measured"

# Where the CPU goes while the most logins of BENCH_LOGINS come in, and
# while targetcli clearconfig tears them down: one perf-sampled run per
# driver (with BENCH_PROFILE), from the first login thread's start to the
# "logins:" line, and from clearconfig's start to the last channel gone.
nl=
for n in $BENCH_LOGINS; do nl=$n; done
for d in A B; do
	if [ -z "$BENCH_PROFILE" ] || [ -z "$nl" ]; then break; fi
	progress "profile: driver $d, $nl logins at once"
	if ! driver_load "$d" || ! target_up nullio 256; then
		not_ok "login profile setup ($d)"
		target_down
		continue
	fi
	: >/tmp/lg.out
	# perf's workload: start the logins, end at their summary line; the
	# srp-probe process stays and holds the channels.
	# shellcheck disable=SC2016 # expanded by that sh
	perf record -a -e cpu-clock -F "${BENCH_PERF_HZ:-499}" -o /tmp/login.data -- sh -c '
		"$1" --logins "$2" -e "$3" --hold 3600 -t 120 "$4" "$5" >/tmp/lg.out 2>&1 &
		i=0
		while ! grep -q "^logins:" /tmp/lg.out && [ $i -lt 600 ]; do
			sleep 0.5
			i=$((i + 1))
		done' sh "$probe" "$nl" "$(srpt_guid16)" "$SRPT_IP" "$SRPT_CM_PORT" >/dev/null 2>&1
	perf_syms /tmp/login.data >"$out/perf/login-$d-$nl.syms"
	rm -f /tmp/login.data
	# And their teardown: clearconfig until no channel is left.
	tcli ls >/dev/null 2>&1
	# shellcheck disable=SC2016 # expanded by that sh
	perf record -a -e cpu-clock -F "${BENCH_PERF_HZ:-499}" -o /tmp/teardown.data -- sh -c '
		targetcli clearconfig confirm=True
		i=0
		while rdma resource show cm_id | grep "comm \[ib_srpt\]" |
			grep -vq "state LISTEN" && [ $i -lt 600 ]; do
			sleep 0.5
			i=$((i + 1))
		done' >/dev/null 2>&1
	perf_syms /tmp/teardown.data >"$out/perf/teardown-$d-$nl.syms"
	rm -f /tmp/teardown.data
	srpt_channels_are 0 300
	pkill -f "srp-probe --logins"
	wait_until 30 sh -c '! pgrep -f "srp-probe --logins" >/dev/null'
	echo 0 >"$CFS/srpt/discovery_auth/rdma_cm_port" 2>/dev/null
	rmdir "$CFS/srpt" 2>/dev/null
	srpt_unload
done
cp /proc/cpuinfo "$out/cpuinfo"
uname -a >"$out/uname"

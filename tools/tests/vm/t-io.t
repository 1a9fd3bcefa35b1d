#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Data integrity over soft-RoCE with the kernel's ib_srp: ramdisk, fileio
# and block (null_blk) LUNs; fio with crc32c verify for 512 B to 8 MiB,
# direct and buffered; ib_srp with cmd_sg_entries=1 and 255, external
# descriptor tables (allow_ext_sg=1, small cmd_sg_entries), ch_count=1 and
# 4, immediate data used and not used.  With our driver, the SRP_CMD trace
# (dyndbg) shows that each variant really used the descriptor formats it is
# meant to exercise (the log read up to a marker, not the lagging file).
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
srp_initiator_load
ini=$(srp_ini_id)
if srp_export_setup && fd=$(srp_fileio fd0 64) && nb=$(srp_nullb nb0) &&
	srp_lun_add 1 "$fd" && srp_lun_add 2 "$nb" && srp_acl "$ini"; then
	ok "LUN 0 ramdisk, LUN 1 fileio, LUN 2 null_blk; ACL $ini"
else
	not_ok "LUNs and ACL configured"
	exit 1
fi

# login OPTS: log in with extra add_target options; find the three disks.
login() {
	if ! srp_login "$1"; then
		not_ok "login with ${1:-defaults}"
		dmesg | tail -n 5 | sed 's/^/# /'
		return 1
	fi
	d0=$(srp_lun_disk 0 30) && d1=$(srp_lun_disk 1 10) && d2=$(srp_lun_disk 2 10)
	if [ -n "$d0" ] && [ -n "$d1" ] && [ -n "$d2" ]; then
		ok "login with ${1:-defaults}: LUNs 0 1 2 are $d0 $d1 $d2"
	else
		not_ok "login with ${1:-defaults}: three disks (got '$d0' '$d1' '$d2')"
		return 1
	fi
}
logout() { run_ok "logout; the target released its channels" srp_logout_wait; }
# formats WANT... -- NOTWANT...: the descriptor formats seen since the
# last call (ours only: the trace is our driver's).
# shellcheck disable=SC2034 # read through eval in formats()
fmt_base_direct=0 fmt_base_indirect=0 fmt_base_external=0 fmt_base_immediate=0
fmt_count() {
	case $1 in
	external) srpt_fmt_seen "indirect external" ;;
	*) srpt_fmt_seen "$1" ;;
	esac
}
formats() {
	ours || return 0
	_want=yes _bad=
	for f in "$@"; do
		[ "$f" = -- ] && { _want=no; continue; }
		eval "_base=\$fmt_base_$f"
		# shellcheck disable=SC2154 # _base: set by the eval above
		_n=$(($(fmt_count "$f") - _base))
		if [ $_want = yes ] && [ $_n -eq 0 ]; then _bad="$_bad no $f;"; fi
		if [ $_want = no ] && [ $_n -ne 0 ]; then _bad="$_bad $_n $f;"; fi
		_seen="${_seen:-} $f=$_n"
	done
	if [ -z "$_bad" ]; then ok "descriptor formats used:$_seen"; else
		not_ok "descriptor formats used:$_seen (unexpected:$_bad)"; fi
	_seen=
	for f in direct indirect external immediate; do
		eval "fmt_base_$f=$(fmt_count $f)"
	done
}
ours && srpt_fmt_trace on

# 1. ib_srp's defaults (fast registration, immediate data), one channel,
#    commands up to 8 MiB, all descriptors in the IU (cmd_sg_entries=255).
if login "ch_count=1,max_sect=16384,cmd_sg_entries=255,sg_tablesize=2048"; then
	run_ok "block layer lets 8 MiB requests through" sh -c \
		"for d in $d0 $d1 $d2; do echo 8192 >/sys/block/\${d#/dev/}/queue/max_sectors_kb || exit 1; done"
	is "$(cat /sys/block/"${d0#/dev/}"/size) $(cat /sys/block/"${d1#/dev/}"/size) $(cat /sys/block/"${d2#/dev/}"/size)" \
		"131072 131072 2097152" "disk sizes: 64 MiB, 64 MiB, 1 GiB"
	run_ok "target has one channel" srpt_channels_are 1 5
	for a in "512 1m" "4k 4m" "64k 8m" "1m 16m" "8m 32m"; do
		# shellcheck disable=SC2086 # two words: block size, size
		set -- $a
		run_ok "ramdisk: fio verify bs=$1 direct" fio_direct "$d0" "$1" "$2"
	done
	run_ok "ramdisk: fio verify bs=64k buffered" fio_buffered "$d0" 64k 8m
	run_ok "ramdisk: fio verify bs=8m buffered" fio_buffered "$d0" 8m 32m
	for d in "fileio $d1" "null_blk $d2"; do
		# shellcheck disable=SC2086 # two words: name, disk
		set -- $d
		run_ok "$1: fio verify bs=4k direct" fio_direct "$2" 4k 4m
		run_ok "$1: fio verify bs=1m direct" fio_direct "$2" 1m 16m
		run_ok "$1: fio verify bs=1m buffered" fio_buffered "$2" 1m 16m
	done
	formats direct indirect immediate -- external
	logout
fi

# 2. cmd_sg_entries=1: one descriptor per command, in the IU.
if login "cmd_sg_entries=1"; then
	run_ok "ramdisk: fio verify bs=4k direct" fio_direct "$d0" 4k 4m
	run_ok "ramdisk: fio verify bs=1m direct" fio_direct "$d0" 1m 16m
	run_ok "ramdisk: fio verify bs=64k buffered" fio_buffered "$d0" 64k 8m
	formats direct immediate -- indirect external
	logout
fi

# 3. Four channels, no immediate data: data-out always by RDMA READ.
echo N >/sys/module/ib_srp/parameters/use_imm_data
if login "ch_count=4"; then
	run_ok "target has four channels" srpt_channels_are 4 5
	run_ok "ramdisk: fio verify bs=4k direct, 4 jobs" fio_direct "$d0" 4k 4m \
		--numjobs=4 --offset_increment=16m
	run_ok "null_blk: fio verify bs=64k direct, 4 jobs" fio_direct "$d2" 64k 8m \
		--numjobs=4 --offset_increment=64m
	run_ok "fileio: fio verify bs=64k buffered" fio_buffered "$d1" 64k 8m
	formats direct -- immediate external
	logout
fi
echo Y >/sys/module/ib_srp/parameters/use_imm_data

# 4. No memory registration (global rkey): one descriptor per page, two in
#    the IU, the rest in an external table the target fetches by RDMA READ.
#    The in-tree driver rejects external tables.
if ours; then
	run_ok "ib_srp reloaded with never_register=1" sh -c \
		"rmmod ib_srp && modprobe ib_srp never_register=1"
	if login "cmd_sg_entries=2,allow_ext_sg=1,sg_tablesize=256,max_sect=2048"; then
		run_ok "ramdisk: fio verify bs=64k direct" fio_direct "$d0" 64k 8m
		run_ok "ramdisk: fio verify bs=1m direct" fio_direct "$d0" 1m 16m
		run_ok "null_blk: fio verify bs=1m buffered" fio_buffered "$d2" 1m 16m
		formats external
		logout
	fi
else
	ok "# SKIP external descriptor tables: the in-tree driver rejects them"
fi

ours && srpt_fmt_trace off
run_ok "target teardown" srp_export_teardown
run_ok "rmmod after teardown" rmmod ib_srpt

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many channels at once, ours against the in-tree driver in one boot: 128
# logins from one srp-probe process (--logins, a thread each) to each
# driver in turn, in the order in-tree, ours, ours, in-tree (slab caches
# one run grew favour the next).  Every login is accepted and released, and
# the memory a channel of ours takes (MemAvailable gone while they are
# held, the initiator's side included, which is the same for both) is no
# more than the in-tree driver's: an RDMA R/W context count sized by the
# send queue doubled rdma_rxe's send queue, and one kmalloc() per receive
# buffer took 16 KiB for an 8 KiB IU (a 2 GiB guest ran out of memory at
# 256 logins).  Runs both drivers whatever SRPT_UNDER_TEST says.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
probe=$SRPT_REPO/build/srp-probe/srp-probe
[ -x "$probe" ] || { not_ok "srp-probe built (make tools)"; exit 1; }
intree_ko=$(intree_ko_path)
n=128

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
modprobe -a rdma_ucm ib_uverbs
[ -n "$intree_ko" ] || { not_ok "in-tree module found"; exit 1; }

mem_available() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }

# many DRIVER: load DRIVER (intree or ours), export a ramdisk to srp-probe's
# initiator port, hold $n logins, check them, tear everything down.  Adds
# the KiB of MemAvailable one channel took to kib_<DRIVER>.
many() {
	SRPT_UNDER_TEST=$1
	export SRPT_UNDER_TEST
	if srpt_load && srp_export_setup 2048 && srp_acl "$(srp_ini_id)"; then
		ok "$1: ramdisk exported"
	else
		not_ok "$1: ramdisk exported"
		return 1
	fi
	g=$(srpt_guid16)
	sync
	echo 1 >/proc/sys/vm/drop_caches
	m0=$(mem_available)
	"$probe" -e "$g" --logins $n --hold 120 -t 60 "$SRPT_IP" "$SRPT_CM_PORT" \
		>/tmp/many.out 2>&1 &
	pid=$!
	if srpt_channels_are $n 120; then
		ok "$1: $n logins at once, $n channels"
	else
		not_ok "$1: $n logins at once, $n channels"
		diag "$(srpt_channels) channels"
	fi
	# Their summary line is out once all were answered.
	wait_until 60 grep -q "^logins:" /tmp/many.out
	m1=$(mem_available)
	if grep -q "^logins: $n of $n accepted, 0 rejected" /tmp/many.out; then
		ok "$1: srp-probe counts $n accepted"
	else
		not_ok "$1: srp-probe counts $n accepted"
		sed 's/^/# /' /tmp/many.out
	fi
	diag "$1: $(grep "^logins:" /tmp/many.out)"
	[ "$1" != ours ] || channel_files
	eval "kib_$1=\$((kib_$1 + (m0 - m1) / n))"
	diag "$1: $(((m0 - m1) / n)) KiB of MemAvailable per channel"
	kill "$pid"
	{ wait "$pid"; } 2>/dev/null
	if srpt_channels_are 0 60; then ok "$1: all $n channels gone"; else
		not_ok "$1: all $n channels gone"; diag "$(srpt_channels) left"; fi
	srp_export_teardown >/dev/null 2>&1
	if srpt_unload; then ok "$1: rmmod"; else not_ok "$1: rmmod"; fi
}

# channel_files: the target port's per-channel statistics with $n
# channels, far more than a page (4096 bytes) holds: each file has a whole
# line for every channel, each channel once, and ends with its newline.
channel_files() {
	P=$CFS/srpt/0x$RXE_GID_HEX/fabric_statistics/srpt
	for f in channels channels_latency_read_us; do
		cat "$P/$f" >/tmp/chfile.out 2>/dev/null
		size=$(wc -c </tmp/chfile.out) lines=$(wc -l </tmp/chfile.out)
		ids=$(awk '{ print $2 }' /tmp/chfile.out | sort -u | wc -l)
		# A line: "ch N name NAME", then channels' "COUNTER N" pairs, the
		# last credit_closures, or the latency file's bucket pairs.
		case $f in
		channels) tail_re=' cmds_none [0-9].* credit_closures [0-9][0-9]*' ;;
		*) tail_re='\( [0-9][0-9]* [0-9][0-9]*\)*' ;;
		esac
		bad=$(grep -cv "^ch [0-9][0-9]* name [^ ][^ ]*$tail_re\$" /tmp/chfile.out |
			sed 's/^0$//')
		if [ "$lines" -eq "$n" ] && [ "$ids" -eq "$n" ] && [ "$size" -gt 4096 ] &&
			[ "$(tail -c 1 /tmp/chfile.out | od -An -c | tr -d ' ')" = '\n' ] &&
			[ -z "$bad" ]; then
			ok "ours: $f with $n channels: $lines whole lines, one per channel, $size bytes"
		else
			not_ok "ours: $f with $n channels: a whole line per channel"
			diag "$lines lines, $ids channels, $size bytes, lines not whole: ${bad:-0}"
			# The last line may lack its newline: one for TAP.
			{ tail -n 2 /tmp/chfile.out; echo; } | sed '/^$/d; s/^/# /'
		fi
	done
}

kib_intree=0 kib_ours=0
for d in intree ours ours intree; do
	many $d
done
# Means of the two runs; 5% for what else the guest did meanwhile.
kib_intree=$((kib_intree / 2)) kib_ours=$((kib_ours / 2))
what="a channel of ours takes no more memory than one of the in-tree driver ($kib_ours KiB, in-tree $kib_intree KiB)"
if [ "$kib_intree" -gt 0 ] && [ "$kib_ours" -le $((kib_intree * 105 / 100)) ]; then
	ok "$what"
else
	not_ok "$what"
fi

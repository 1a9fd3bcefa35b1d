#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Differential test: whatever the in-tree ib_srpt accepts, ours accepts.
# One boot runs the corpus tools/tests/vm/differential.corpus (module
# parameters at load time, configfs names, attribute writes, real ib_srp
# logins over RDMA/CM with node ACLs in many spellings) first against the
# distro's in-tree module, then, after unloading it, against ours, and
# compares (tools/tests/vm/differential.py).  Results may differ only where
# the corpus names an entry of "Differences from the in-tree driver" in
# Documentation/srpt.rst.  Runs both drivers whatever SRPT_UNDER_TEST says.
#
# The soft-RoCE port has a fixed MAC, so its names are the same every run:
# GID fe80::5054:ff:fe12:3456, port GUID 5054:00ff:fe12:3456.  Its netdev
# carries two IPv4 and three IPv6 addresses (link-local, two site-local):
# the target listens on the first of each, ib_srp logs in from the second.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
# The kernel's own module, by its path under kernel/ (modprobe would
# prefer an updates/ copy of ours that make install or DKMS left): plain
# on 6.1, .ko.xz since 6.12.
intree_ko=$(intree_ko_path)
ours_ko=${SRPT_KO:-$SRPT_REPO/ib_srpt.ko}

# addrs_ready: veth0's link-local address is past duplicate address
# detection, and 192.168.123.3 and fec0::3 are GIDs of rxe0.
# shellcheck disable=SC2317 # called through wait_until
addrs_ready() {
	! ip -6 addr show dev veth0 | grep -q tentative &&
		cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -q ffff:c0a8:7b03 &&
		cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -q '^fec0:.*:0003$'
}
setup() {
	ip link add veth0 address 52:54:00:12:34:56 type veth \
		peer name veth1 address 52:54:00:65:43:21 || return 1
	rxe_setup || return 1
	ip addr add 192.168.123.3/24 dev veth0 &&
		ip -6 addr add fec0::1/64 dev veth0 nodad &&
		ip -6 addr add fec0::3/64 dev veth0 nodad || return 1
	# The link-local address must be past duplicate address detection and
	# every address a GID of rxe0 before logins use them.
	wait_until 10 addrs_ready || { echo "addresses not ready" >&2; return 1; }
	modprobe -a configfs target_core_mod ib_core ib_cm rdma_cm scsi_common \
		rdma_ucm ib_uverbs || return 1
	grep -q " /sys/kernel/config configfs" /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	grep -q " /sys/kernel/debug debugfs" /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug || return 1
	srp_initiator_load ch_count=1 || return 1
	mkdir -p "$CFS"/core/rd_mcp_0/rd0 &&
		echo rd_pages=2048 >"$CFS"/core/rd_mcp_0/rd0/control &&
		echo 1 >"$CFS"/core/rd_mcp_0/rd0/enable
}

if setup; then
	ok "soft-RoCE on veth0 with IPv4 and IPv6 addresses, ib_srp, ramdisk"
else
	not_ok "soft-RoCE on veth0 with IPv4 and IPv6 addresses, ib_srp, ramdisk"
	exit 1
fi
if [ -n "$intree_ko" ] && [ -f "$intree_ko" ] && [ -f "$ours_ko" ]; then
	ok "both modules found ($intree_ko, $ours_ko)"
else
	not_ok "both modules found ($intree_ko, $ours_ko)"
	exit 1
fi
DIFF_PROBE=$SRPT_REPO/build/srp-probe/srp-probe
[ -x "$DIFF_PROBE" ] || { not_ok "srp-probe built (make tools)"; exit 1; }
export DIFF_PROBE

# What the corpus calls ${NAME} (differential.py reads DIFF_NAME).
expand6() {
	python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$1"
}
DIFF_GUID=$RXE_GUID
DIFF_GUIDUP=$(echo "$RXE_GUID" | tr a-f A-F)
DIFF_GUIDSHORT=$(echo "$RXE_GUID" | sed 's/\(^\|:\)0*\([0-9a-f]\)/\1\2/g')
DIFF_GUIDHEX=$(echo "$RXE_GUID" | tr -d :)
DIFF_GID=$RXE_GID_HEX
DIFF_GIDUP=$(echo "$RXE_GID_HEX" | tr a-f A-F)
DIFF_INI=0000000000000000$DIFF_GUIDHEX
DIFF_INIUP=$(echo "$DIFF_INI" | tr a-f A-F)
DIFF_A4=192.168.123.1 DIFF_A4I=192.168.123.3
DIFF_A6=fec0::1 DIFF_A6I=fec0::3
DIFF_A6FULL=$(expand6 fec0::1) DIFF_A6IFULL=$(expand6 fec0::3)
DIFF_LL=$(ip -6 addr show dev veth0 scope link | sed -n 's/.*inet6 \([^/]*\).*/\1/p')
DIFF_LLFULL=$(expand6 "$DIFF_LL")
DIFF_RD=$CFS/core/rd_mcp_0/rd0
DIFF_NETDEV=veth0
export DIFF_GUID DIFF_GUIDUP DIFF_GUIDSHORT DIFF_GUIDHEX DIFF_GID DIFF_GIDUP \
	DIFF_INI DIFF_INIUP DIFF_A4 DIFF_A4I DIFF_A6 DIFF_A6I DIFF_A6FULL \
	DIFF_A6IFULL DIFF_LL DIFF_LLFULL DIFF_RD DIFF_NETDEV
env | grep '^DIFF_' | sort | sed 's/^/# /'

# differential.py prints its results numbered on from ours; they are
# counted in tap_n afterwards, for lib.sh's plan (a copy of its output).
{
	PYTHONUNBUFFERED=1 python3 "$SRPT_REPO/tools/tests/vm/differential.py" \
		"$SRPT_REPO/tools/tests/vm/differential.corpus" \
		"$SRPT_REPO/Documentation/srpt.rst" "$ours_ko" "$intree_ko" $((${tap_n:?} + 1))
	echo $? >/tmp/differential.rc
} | tee /tmp/differential.out
status=$(cat /tmp/differential.rc 2>/dev/null || echo 1)
tap_n=$((tap_n + $(grep -cE '^(not )?ok ' /tmp/differential.out)))
rmdir "$CFS"/core/rd_mcp_0/rd0 "$CFS"/core/rd_mcp_0
exit "$status"

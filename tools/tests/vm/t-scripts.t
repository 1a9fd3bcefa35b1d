#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "Existing scripts work unchanged": a target set up the way the
# community's SRP test scripts set up the in-tree driver, by raw configfs
# writes, then logged in to with ib_srp over RDMA/CM.  Written for this
# test in their style, with their habits:
#   - the module loaded with srp_max_req_size=8260 dyndbg=+pmf, and
#     rdma_cm_port only when modinfo lists it;
#   - target ports named after GID 0 of every RDMA port (port GUID form
#     for fe80 GIDs, 0x and 32 digits otherwise), each with one TPG named
#     like the port itself, LUNs linked by relative paths;
#   - node ACLs named after every port's GID 0 in the same form, every
#     IPv4 address of its netdev and every IPv6 address expanded to eight
#     groups by an expander that keeps its state from one address to the
#     next, so that on a netdev with two IPv6 addresses (link-local and
#     site-local, as on most hosts) the second name is two addresses run
#     together ('fec0:fe80:5054:00ff:fe12:3456:5054:00ff:fe12:3456'), a
#     name the in-tree driver accepts (issue 12);
#   - logins with src= equal to dest= and initiator_ext= the GID's prefix.
# Every configfs write must succeed, and every login the in-tree driver
# admits must be admitted (SRPT_UNDER_TEST=intree runs it on that driver).
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
port=5555

# Expand IPv6 addresses, one per line, to eight groups of four hex digits.
# Its accumulators are not reset between lines: the flaw described above.
expand_ipv6() {
	awk -F: '{
		gap = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "") { gap = 1; continue }
			g = sprintf("%4s", $i)
			gsub(/ /, "0", g)
			if (gap) tail = tail ":" g; else head = head ":" g
		}
		mid = ""
		for (j = (length(head) + length(tail)) / 5; j < 8; j++)
			mid = mid ":0000"
		print substr(head mid tail, 2)
	}'
}
ipv4_addrs() { ip -4 -o addr show dev "$1" | sed 's/.*inet \([^/]*\).*/\1/'; }
ipv6_addrs() { ip -6 -o addr show dev "$1" | sed 's/.*inet6 \([^/]*\).*/\1/'; }
netdev_of() { rdma link show "$1/1" | sed 's/.* netdev //;s/[[:blank:]]*$//'; }
# GID 0 as a target port or initiator name.
gid_name() {
	case $1 in
	fe8*) echo "${1#fe80:0000:0000:0000:}" ;;
	*) echo "0x$(echo "$1" | tr -d :)" ;;
	esac
}

ip link add veth0 address 52:54:00:12:34:56 type veth peer name veth1
rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
# A second IPv6 address, as SLAAC would give on a site-local prefix.
ip -6 addr add fec0::5054:ff:fe12:3456/64 dev veth0 nodad
# shellcheck disable=SC2317 # called through wait_until
site_gid_ready() {
	! ip -6 addr show dev veth0 | grep -q tentative &&
		grep -q '^fec0:' /sys/class/infiniband/rxe0/ports/1/gids/*
}
if wait_until 10 site_gid_ready; then
	ok "the site-local address is a GID of rxe0"
else
	not_ok "the site-local address is a GID of rxe0"
	ip -6 addr show dev veth0 | sed 's/^/# /'
fi
srp_initiator_load

target_ids="" ini_ids=""
for p in /sys/class/infiniband/*/ports/*; do
	gid=$(cat "$p/gids/0")
	target_ids="$target_ids $(gid_name "$gid")"
	ini_ids="$ini_ids $(gid_name "$gid")"
	d=$(netdev_of "$(basename "$(dirname "$(dirname "$p")")")")
	ini_ids="$ini_ids $(ipv4_addrs "$d" | tr '\n' ' ')"
	ini_ids="$ini_ids $(ipv6_addrs "$d" | expand_ipv6 | tr '\n' ' ')"
done
diag "target ports:$target_ids"
diag "initiators:$ini_ids"
case " $ini_ids " in
*" fec0:fe80:5054:00ff:fe12:3456:5054:00ff:fe12:3456 "*)
	ok "the expander ran the two IPv6 addresses together" ;;
*) not_ok "the expander ran the two IPv6 addresses together" ;;
esac

opts="srp_max_req_size=8260 dyndbg=+pmf"
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	modinfo ib_srpt | grep -q '^parm:[[:blank:]]*rdma_cm_port:' &&
		opts="$opts rdma_cm_port=$port"
else
	modinfo "${SRPT_KO:-$SRPT_REPO/ib_srpt.ko}" |
		grep -q '^parm:[[:blank:]]*rdma_cm_port:' &&
		opts="$opts rdma_cm_port=$port"
fi
# shellcheck disable=SC2086
run_ok "module loaded with $opts" srpt_load $opts
mkdir -p "$CFS"/core/rd_mcp_0/vdev0 &&
	echo rd_pages=4096 >"$CFS"/core/rd_mcp_0/vdev0/control &&
	echo 1 >"$CFS"/core/rd_mcp_0/vdev0/enable

configure() {
	cd "$CFS" && mkdir srpt && cd srpt || return 1
	if [ -e discovery_auth/rdma_cm_port ]; then
		echo $port >discovery_auth/rdma_cm_port || return 1
	fi
	for t in $target_ids; do
		mkdir "$t" && mkdir "$t/$t" && mkdir "$t/$t/lun/lun_0" &&
			(cd "$t/$t/lun/lun_0" && ln -s ../../../../../core/rd_mcp_0/vdev0 .) ||
			return 1
		for ini in $ini_ids; do
			(cd "$t/$t/acls" && mkdir "$ini" && cd "$ini" &&
				mkdir lun_0 && cd lun_0 && ln -s ../../../lun/lun_0 .) ||
				return 1
		done
		echo 1 >"$t/$t/enable" || return 1
	done
}
run_ok "configfs set up as the scripts do, every write accepted" configure
cd /
if [ "${SRPT_UNDER_TEST:-ours}" != intree ]; then
	is "$(kmsg_count "node ACL 'fec0:fe80:5054:00ff:fe12:3456:5054:00ff:fe12:3456' accepted as the in-tree driver accepts it, but no login can match this spelling")" \
		"$(echo "$target_ids" | wc -w)" "the run-together name logged once per target port"
fi

# One login per address of the netdev, src= as dest=, as the scripts do.
guid=$(srpt_guid16)
gid=$(tr -d : </sys/class/infiniband/rxe0/ports/1/gids/0)
login() {
	# srp_add_target: the write, retried while ib_srp still holds the
	# last login's target port ("Already connected"; its logout ends
	# after its SCSI host is gone).
	if srp_add_target "id_ext=$guid,initiator_ext=$(echo "$gid" | cut -c1-16),ioc_guid=$guid,src=$1,dest=$1:$port" &&
		srp_disk 30 >/dev/null; then
		return 0
	fi
	echo "the kernel's last words:"
	dmesg | tail -n 25
	ip -6 addr show dev veth0
	ip -6 neigh show dev veth0
	return 1
}
ifindex=$(cat /sys/class/net/veth0/ifindex)
for a in $(ipv4_addrs veth0); do
	run_ok "login from and to $a" login "$a"
	run_ok "logout" srp_logout_wait
done
for a in $(ipv6_addrs veth0); do
	case $a in
	fe80:*)
		# The in-tree driver admits nobody here: the ACL for this
		# address is the run-together name.  Ours also takes the
		# port GUID ACL, which names this initiator.
		if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
			run_fails "login from and to [$a%$ifindex] refused" login "[$a%$ifindex]"
		else
			run_ok "login from and to [$a%$ifindex] (admitted by the port GUID ACL)" login "[$a%$ifindex]"
		fi
		;;
	*) run_ok "login from and to [$a%$ifindex]" login "[$a%$ifindex]" ;;
	esac
	run_ok "logout" srp_logout_wait
done
io_check() {
	login 192.168.123.1 && d=$(srp_disk 30) &&
		dd if=/dev/urandom of=/tmp/pat bs=1M count=1 2>/dev/null &&
		dd if=/tmp/pat of="$d" bs=1M oflag=direct conv=nocreat 2>/dev/null &&
		dd if="$d" of=/tmp/back bs=1M count=1 iflag=direct 2>/dev/null &&
		cmp /tmp/pat /tmp/back
}
run_ok "I/O after a login: 1 MiB written and read back" io_check
run_ok "logout" srp_logout_wait

# Teardown the scripts' way: globs, deepest first.
teardown() {
	for e in "$CFS"/srpt/*/*/enable; do
		[ -e "$e" ] && echo 0 >"$e"
	done
	rm -f "$CFS"/srpt/*/*/acls/*/*/* "$CFS"/srpt/*/*/lun/*/* 2>/dev/null
	rmdir "$CFS"/srpt/*/*/acls/*/* "$CFS"/srpt/*/*/acls/* "$CFS"/srpt/*/*/lun/* \
		"$CFS"/srpt/*/* 2>/dev/null
	rmdir "$CFS"/srpt/* 2>/dev/null
	echo 0 >"$CFS"/srpt/discovery_auth/rdma_cm_port 2>/dev/null
	rmdir "$CFS"/srpt && rmdir "$CFS"/core/rd_mcp_0/vdev0 "$CFS"/core/rd_mcp_0
}
run_ok "configfs torn down" teardown
run_ok "rmmod" srpt_unload

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module load/unload and module parameters (runs in the VM).
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
p=/sys/module/ib_srpt/parameters

i=0 fails=0
while [ $i -lt 20 ]; do
	srpt_load >/dev/null 2>&1 && srpt_unload >/dev/null 2>&1 || fails=$((fails + 1))
	i=$((i + 1))
done
is "$fails" 0 "load/unload x20"

run_ok "load with defaults" srpt_load
is "$(cat $p/srp_max_req_size)" 8276 "srp_max_req_size default"
is "$(cat $p/srpt_srq_size)" 4095 "srpt_srq_size default"
case $(cat $p/srpt_service_guid) in
0x[0-9a-f]*) ok "srpt_service_guid readable as hex" ;;
*) not_ok "srpt_service_guid readable as hex"; diag "$(cat $p/srpt_service_guid)" ;;
esac
# srpt_load's identity check tells the two modules apart (issue 26: a
# comparison that loaded ours twice would pass unseen).
if ours; then
	other=$(intree_ko_path) this=${SRPT_KO:-$SRPT_REPO/ib_srpt.ko}
else
	other=${SRPT_KO:-$SRPT_REPO/ib_srpt.ko} this=$(intree_ko_path)
fi
run_ok "the loaded module is $this (build id)" srpt_loaded_is "$this"
run_fails "the loaded module is not $other" srpt_loaded_is "$other"
run_ok "unload" srpt_unload

run_fails "srp_max_req_size=10 refused" srpt_load srp_max_req_size=10
run_fails "srpt_srq_size=1 refused" srpt_load srpt_srq_size=1
run_fails "srpt_srq_size=65536 refused" srpt_load srpt_srq_size=65536
run_ok "srp_max_req_size=996 accepted" srpt_load srp_max_req_size=996
is "$(cat $p/srp_max_req_size)" 996 "srp_max_req_size reads back"
srpt_unload
# As in-tree: an int, compared with its minimum as an unsigned number.
run_ok "srp_max_req_size=-1 accepted" srpt_load srp_max_req_size=-1
is "$(cat $p/srp_max_req_size)" -1 "srp_max_req_size=-1 reads back as given"
srpt_unload
run_ok "srpt_service_guid=0x1234 accepted" srpt_load srpt_service_guid=0x1234
is "$(cat $p/srpt_service_guid)" 0x0000000000001234 "srpt_service_guid reads back"
srpt_unload
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	ok "# SKIP the in-tree driver has no rdma_cm_port parameter"
else
	# The in-tree driver loads whatever rdma_cm_port says (it ignores
	# it): so does ours, without a listener, and says why.
	for v in 65536 port; do
		n=$(kmsg_count "invalid value '$v' for parameter rdma_cm_port ignored")
		run_ok "rdma_cm_port=$v loads" srpt_load rdma_cm_port=$v
		is "$(cat $p/rdma_cm_port 2>&1)" 0 "rdma_cm_port=$v: no listener"
		is "$(kmsg_count "invalid value '$v' for parameter rdma_cm_port ignored")" \
			$((n + 1)) "rdma_cm_port=$v: the log says it is ignored"
		srpt_unload
	done
	run_ok "rdma_cm_port=5555 accepted" srpt_load rdma_cm_port=5555
	is "$(cat $p/rdma_cm_port)" 5555 "rdma_cm_port reads back"
	mkdir -p /sys/kernel/config/target/srpt
	is "$(cat /sys/kernel/config/target/srpt/discovery_auth/rdma_cm_port 2>&1)" 5555 \
		"discovery_auth/rdma_cm_port shows the parameter's port"
	echo 0 >/sys/kernel/config/target/srpt/discovery_auth/rdma_cm_port
	is "$(cat $p/rdma_cm_port)" 0 "rdma_cm_port follows configfs"
	rmdir /sys/kernel/config/target/srpt
	srpt_unload
fi
if [ -e /sys/module/ib_srpt ]; then not_ok "module gone after the last unload"; else ok "module gone after the last unload"; fi

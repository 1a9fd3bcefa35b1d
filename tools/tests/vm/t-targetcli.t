#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's targetcli-fb, unchanged, configures the srpt fabric on a soft-RoCE
# port: target, ramdisk LUN, ACLs, ls, delete, bad names refused, rmmod
# refused while configured and working after clearconfig (runs in the VM).
# Each targetcli run costs several seconds under TCG: keep their number low.
. "$SRPT_REPO/tools/vm/lib.sh"
c=/sys/kernel/config/target/srpt

if rxe_setup; then ok "rxe0 on veth0, GID 0 $RXE_GID"; else not_ok "rxe0 on veth0"; exit 1; fi
if dbus_start && pid=$(cat /run/dbus/pid) && dbus_start && [ "$(cat /run/dbus/pid)" = "$pid" ] &&
	[ -S /run/dbus/system_bus_socket ]; then
	ok "dbus_start: a system bus, and a second call leaves it alone"
else
	not_ok "dbus_start: a system bus, and a second call leaves it alone"
fi
run_ok "module under test loaded" srpt_load
# targetcli pads "get" output with a trailing blank.
tcli_get() { tcli get global "$1" >/tmp/get.out 2>&1; _tg=$?; sed 's/ *$//' /tmp/get.out; return $_tg; }
run_is "tcli: auto_save_on_exit is off" 0 "auto_save_on_exit=false" tcli_get auto_save_on_exit

w=ib.$RXE_GID_HEX
t=$c/0x$RXE_GID_HEX
run_is "srpt_target_create: /srpt create $w" 0 "Info: Created target $w." srpt_target_create
is "$SRPT_WWN" "$w" "srpt_target_create exports SRPT_WWN"
is "$(cat "$t"/tpgt_1/enable 2>&1)" 1 "configfs: target port 0x$RXE_GID_HEX with tpgt_1 enabled"

run_is "second create of the same target refused" 1 "This Target already exists in configFS" \
	tcli /srpt create "$w"
run_is "target name ib.123 refused" 1 "WWN not valid as: ib" tcli /srpt create ib.123
# targetcli knows only the GID form; the port GUID form is for raw configfs.
run_is "target name in GUID form refused by targetcli" 1 "WWN not valid as: ib" \
	tcli /srpt create "$RXE_GUID"
if ours; then
	# Ours keeps a target port whose RDMA port is absent: it waits for the
	# port (srpt.rst, "Targets across a reboot"); targetcli warns.
	run_is "target GID of no port created, waiting for its port" 0 \
		"Warning: Hardware missing for this WWN
Info: Created target ib.00000000000000000000000000000001." \
		tcli /srpt create ib.00000000000000000000000000000001
	is "$(cat $c/0x00000000000000000000000000000001/info/status 2>&1)" \
		"waiting for an RDMA port with GID 0x00000000000000000000000000000001" \
		"its status says it waits"
	run_ok "the waiting target port deleted" \
		tcli /srpt delete ib.00000000000000000000000000000001
else
	run_is "target GID of no port refused by the kernel" 1 "Could not create Target in configFS" \
		tcli /srpt create ib.00000000000000000000000000000001
fi
if [ -e $c/0x00000000000000000000000000000001 ]; then
	not_ok "no configfs directory for the GID of no port"
else
	ok "no configfs directory for the GID of no port"
fi

run_is "ramdisk backstore rd0" 0 "Info: Created ramdisk rd0 with size 16M." \
	tcli /backstores/ramdisk create name=rd0 size=16M
run_is "LUN 0 on rd0" 0 "Info: Created LUN 0." tcli /srpt/"$w"/luns create /backstores/ramdisk/rd0
if [ -d "$t"/tpgt_1/lun/lun_0 ]; then ok "configfs: lun_0"; else not_ok "configfs: lun_0"; fi

# Initiator port ids: id_ext and port GUID, as ib_srp builds them.
a1=00000000000000425054001234567801
a2=00000000000000425054001234567802
a3=fe800000000000005054001234567803
run_is "ACL ib.$a1" 0 "Info: Created Node ACL for ib.$a1
Info: Created mapped LUN 0." tcli /srpt/"$w"/acls create ib.$a1
run_is "ACL 0x$a2 (0x form, normalized to ib.)" 0 "Info: Created Node ACL for ib.$a2
Info: Created mapped LUN 0." tcli /srpt/"$w"/acls create 0x$a2
run_is "ACL fe80:0000:0000:0000:5054:0012:3456:7803 (colon form)" 0 "Info: Created Node ACL for ib.$a3
Info: Created mapped LUN 0." tcli /srpt/"$w"/acls create fe80:0000:0000:0000:5054:0012:3456:7803
missing=
for a in $a1 $a2 $a3; do
	[ -d "$t"/tpgt_1/acls/0x"$a"/lun_0 ] || missing="$missing 0x$a"
done
is "$missing" "" "configfs: the three ACLs, each with mapped LUN 0"
run_is "ACL nonsense refused" 1 "WWN not valid as: ib" tcli /srpt/"$w"/acls create nonsense
run_is "ACL in GUID form refused by targetcli" 1 "WWN not valid as: ib" \
	tcli /srpt/"$w"/acls create 5054:0012:3456:7804
run_is "second ACL ib.$a1 refused" 1 "This NodeACL already exists in configFS" \
	tcli /srpt/"$w"/acls create ib.$a1

# ls: tree lines without the dot leaders, as "name [summary]".
tcli ls / >/tmp/ls.out 2>&1
ls_rc=$?
sed -E 's/^[ |]*o- //; s/ \.+ / /; s/ +$//' /tmp/ls.out >/tmp/ls.lines
has() { grep -qxF "$1" /tmp/ls.lines; }
missing=
for l in "srpt [Targets: 1]" "$w [no-gen-acls]" "acls [ACLs: 3]" \
	"ib.$a1 [Mapped LUNs: 1]" "ib.$a2 [Mapped LUNs: 1]" "ib.$a3 [Mapped LUNs: 1]" \
	"mapped_lun0 [lun0 ramdisk/rd0 (rw)]" "luns [LUNs: 1]" "ramdisk [Storage Objects: 1]"; do
	has "$l" || missing="$missing '$l'"
done
if [ $ls_rc = 0 ] && [ -z "$missing" ]; then
	ok "ls shows target, ACLs, mapped LUNs, LUN and backstore"
else
	not_ok "ls shows target, ACLs, mapped LUNs, LUN and backstore"
	diag "status $ls_rc, missing:$missing"
	sed 's/^/# /' /tmp/ls.out
fi
if grep -q "^lun0 \[ramdisk/rd0 " /tmp/ls.lines; then ok "ls shows lun0 on ramdisk/rd0"; else
	not_ok "ls shows lun0 on ramdisk/rd0"; sed 's/^/# /' /tmp/ls.out; fi

run_is "rmmod refused while configured" 1 "rmmod: ERROR: Module ib_srpt is in use" rmmod ib_srpt
if [ -e /sys/module/ib_srpt ]; then ok "module still loaded"; else not_ok "module still loaded"; fi

run_is "delete LUN 0" 0 "Info: Deleted LUN 0." tcli /srpt/"$w"/luns delete lun0
if [ -e "$t"/tpgt_1/lun/lun_0 ] || [ -e "$t"/tpgt_1/acls/0x$a1/lun_0 ]; then
	not_ok "configfs: lun_0 and its mapped LUNs gone"
else
	ok "configfs: lun_0 and its mapped LUNs gone"
fi
run_is "delete ACL ib.$a1" 0 "Info: Deleted Node ACL ib.$a1." tcli /srpt/"$w"/acls delete ib.$a1
if [ -e "$t"/tpgt_1/acls/0x$a1 ]; then not_ok "configfs: ACL 0x$a1 gone"; else ok "configfs: ACL 0x$a1 gone"; fi
run_is "delete of a missing ACL refused" 1 "No such NodeACL in configfs: $t/tpgt_1/acls/0x$a1" \
	tcli /srpt/"$w"/acls delete ib.$a1

run_is "rmmod still refused with target and ACLs left" 1 "rmmod: ERROR: Module ib_srpt is in use" \
	rmmod ib_srpt
run_is "clearconfig confirm=True" 0 "Info: All configuration cleared" tcli clearconfig confirm=True
# shellcheck disable=SC2010 # configfs names are plain
left=$(ls $c 2>/dev/null | grep -v -x -e discovery_auth -e version -e lio_version)
is "$left" "" "configfs: no target port left under $c"
left=$(ls -d /sys/kernel/config/target/core/rd_mcp_*/rd0 2>/dev/null)
is "$left" "" "configfs: ramdisk rd0 gone"
if [ -d $c ]; then run_ok "fabric directory removed" rmdir $c; else ok "fabric directory removed (clearconfig did)"; fi
run_ok "rmmod after clearconfig" rmmod ib_srpt
if [ -e /sys/module/ib_srpt ]; then not_ok "module gone"; else ok "module gone"; fi

# SPDX-License-Identifier: GPL-2.0
# Sourced by guest test scripts: TAP helpers and module loading.  The plan
# line is printed by tools/vm/vmtest, not here.
tap_n=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
diag() { echo "# $*"; }
# run_ok NAME CMD...: ok when CMD exits 0; its output as diagnostics otherwise.
run_ok() {
	name=$1; shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name"; echo "$out" | sed 's/^/# /'; fi
}
# run_fails NAME CMD...: ok when CMD exits non-zero.
run_fails() {
	name=$1; shift
	if out=$("$@" 2>&1); then not_ok "$name"; echo "$out" | sed 's/^/# /'; else ok "$name"; fi
}
is() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3"; diag "got '$1', expected '$2'"; fi; }

# srpt_load ARGS: the module under test; SRPT_UNDER_TEST=intree picks the
# distro's in-tree ib_srpt, anything else ours (insmod, never modprobe, so the
# in-tree one can't be picked by accident).
srpt_load() {
	modprobe -a configfs target_core_mod ib_core ib_cm rdma_cm || return 1
	grep -q " /sys/kernel/config configfs" /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
		modprobe ib_srpt "$@"
	else
		insmod "${SRPT_KO:-$SRPT_REPO/ib_srpt.ko}" "$@"
	fi
}
srpt_unload() { rmmod ib_srpt; }

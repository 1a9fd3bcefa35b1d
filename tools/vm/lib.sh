# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by guest test scripts: TAP helpers, loading the module under test,
# soft-RoCE, a system bus and targetcli.
#
# The guest's plan: when the test script exits, "1..N" with N the checks
# ok and not_ok printed (done_testing style: the tests can't know their
# count in advance).  tools/vm/vmtest fails a run without this plan (the
# test was killed, or died before its end, or never sourced this file),
# with N 0, or with N not the number of results it received (results
# printed other than by ok and not_ok, or by a subshell, or lost); it
# prints the plan of the whole run itself.  A test that sets its own EXIT
# trap calls tap_plan in it.  (A shell killed by a signal runs no EXIT
# trap: dash, the guest's sh, does not, and neither do subshells.)
tap_n=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
tap_plan() { echo "1..$tap_n"; }
trap tap_plan EXIT
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
# run_fails_with NAME TEXT CMD...: ok when CMD exits non-zero and its output
# (stdout and stderr) has TEXT, e.g. the strerror() of the errno expected.
run_fails_with() {
	name=$1 text=$2
	shift 2
	if out=$("$@" 2>&1); then
		not_ok "$name"; echo "$out" | sed 's/^/# /'
	else
		case $out in
		*"$text"*) ok "$name" ;;
		*) not_ok "$name"; diag "failed, but without '$text':"; echo "$out" | sed 's/^/# /' ;;
		esac
	fi
}
is() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3"; diag "got '$1', expected '$2'"; fi; }

# ours: whether the module under test is ours (SRPT_UNDER_TEST=intree
# picks the distro's in-tree ib_srpt).
ours() { [ "${SRPT_UNDER_TEST:-ours}" != intree ]; }

# wait_until SECS CMD...: run CMD every 0.1 s until it succeeds; fails when
# it has not after about SECS seconds (SECS * 10 tries: the time CMD itself
# takes comes on top).  CMD runs in a subshell: it cannot set variables of
# the caller.
wait_until() (
	_wu_n=$(($1 * 10))
	shift
	until "$@"; do
		[ "$_wu_n" -gt 0 ] || exit 1
		_wu_n=$((_wu_n - 1))
		sleep 0.1
	done
)
# bounded SECS CMD...: run CMD in the background and wait up to SECS
# seconds for it; CMD's exit status, or 124 when it still runs then.  It is
# left running: a task asleep uninterruptibly in the kernel (a configfs
# write waiting for a channel that is never released) ends on no signal,
# and timeout(1) would wait for it for ever.  CMD's output (stdout and
# stderr) follows on stdout once it ended; CMD itself writes to a file, so
# a caller's $(...) never waits for a CMD left behind.
bounded() {
	_bd_s=$1
	_bd_end=$(($(date +%s) + $1))
	shift
	_bd_out=$(mktemp /tmp/bounded.XXXXXX) || return 1
	# exec: a shell function's redirection would keep a copy of the
	# caller's stdout open in the background shell (to restore it after
	# the function), and a $(...) around bounded would wait for it.
	(exec >"$_bd_out" 2>&1 </dev/null; "$@") &
	_bd_pid=$!
	while kill -0 "$_bd_pid" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$_bd_end" ]; then
			echo "still running after $_bd_s s: $*"
			cat "$_bd_out"
			return 124
		fi
		sleep 0.2
	done
	wait "$_bd_pid"
	_bd_rc=$?
	cat "$_bd_out"
	rm -f "$_bd_out"
	return $_bd_rc
}
# run_is NAME STATUS TEXT CMD...: ok when CMD exits with STATUS and its
# output (stdout and stderr together) is exactly TEXT.  CMD runs in this
# shell, not a subshell, so a function's exported variables survive.
run_is() {
	_ri_name=$1 _ri_rc=$2 _ri_want=$3
	shift 3
	"$@" >/tmp/run_is.out 2>&1
	_ri_got_rc=$?
	_ri_got=$(cat /tmp/run_is.out)
	if [ "$_ri_got_rc" = "$_ri_rc" ] && [ "$_ri_got" = "$_ri_want" ]; then
		ok "$_ri_name"
	else
		not_ok "$_ri_name"
		diag "status $_ri_got_rc, expected $_ri_rc"
		echo "$_ri_got" | sed 's/^/# got:      /'
		echo "$_ri_want" | sed 's/^/# expected: /'
	fi
}

# intree_ko_path: the running kernel's own ib_srpt (.ko, or .ko.xz since 6.12),
# by its path under kernel/: modprobe would prefer a copy of ours that
# make install, DKMS or the .deb put under updates/ on the host, whose
# /lib/modules the guest shares.
intree_ko_path() {
	find "/lib/modules/$(uname -r)/kernel/drivers/infiniband/ulp/srpt/" \
		-name 'ib_srpt.ko*' 2>/dev/null | head -n 1
}

# srpt_loaded_is KO: whether the loaded ib_srpt is the module file KO: the
# same GNU build id (the in-tree module has no srcversion).
srpt_loaded_is() {
	_sl_f=$1
	case $1 in
	*.xz) xz -dc "$1" >/tmp/srpt_loaded_is.ko && _sl_f=/tmp/srpt_loaded_is.ko ;;
	*.zst) zstd -dcq "$1" >/tmp/srpt_loaded_is.ko && _sl_f=/tmp/srpt_loaded_is.ko ;;
	esac
	_sl_want=$(readelf -n "$_sl_f" 2>/dev/null | sed -n 's/.*Build ID: *//p')
	_sl_got=$(od -An -tx1 /sys/module/ib_srpt/notes/.note.gnu.build-id 2>/dev/null |
		tr -d ' \n' | tail -c "${#_sl_want}")
	[ -n "$_sl_want" ] && [ "$_sl_got" = "$_sl_want" ]
}

# srpt_load ARGS: the module under test; SRPT_UNDER_TEST=intree picks the
# distro's in-tree ib_srpt, anything else ours; both by path (insmod, never
# modprobe), and the load fails when what got loaded is not that file.
srpt_load() {
	modprobe -a configfs target_core_mod ib_core ib_cm rdma_cm || return 1
	grep -q " /sys/kernel/config configfs" /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
		_sl_ko=$(intree_ko_path)
		[ -n "$_sl_ko" ] || { echo "srpt_load: no in-tree ib_srpt" >&2; return 1; }
	else
		_sl_ko=${SRPT_KO:-$SRPT_REPO/ib_srpt.ko}
	fi
	insmod "$_sl_ko" "$@" || return 1
	srpt_loaded_is "$_sl_ko" || {
		echo "srpt_load: the loaded ib_srpt is not $_sl_ko" >&2
		return 1
	}
}
srpt_unload() { rmmod ib_srpt; }

# rxe_setup: soft-RoCE on a veth pair.  veth0 (192.168.123.1/24) carries
# rxe0, veth1 (192.168.123.2/24) is its peer.  Waits until GID index 0 of
# rxe0 port 1 is set, then exports
#   RXE_DEV      rxe0
#   RXE_GID      GID 0, colon form (fe80:0000:0000:0000:5054:00ff:fe12:3456)
#   RXE_GID_HEX  the same as 32 hex digits (the targetcli WWN is ib.$RXE_GID_HEX)
#   RXE_GUID     its interface id, xxxx:xxxx:xxxx:xxxx (the port GUID form)
rxe_setup() {
	RXE_DEV=rxe0
	ip link show veth0 >/dev/null 2>&1 ||
		ip link add veth0 type veth peer name veth1 || return 1
	ip link set veth0 up && ip link set veth1 up || return 1
	ip addr replace 192.168.123.1/24 dev veth0 || return 1
	ip addr replace 192.168.123.2/24 dev veth1 || return 1
	modprobe rdma_rxe || return 1
	[ -e /sys/class/infiniband/$RXE_DEV ] ||
		rdma link add $RXE_DEV type rxe netdev veth0 || return 1
	wait_until 10 rxe_gid0_set ||
		{ echo "rxe_setup: GID 0 of $RXE_DEV not set" >&2; return 1; }
	RXE_GID=$(cat /sys/class/infiniband/$RXE_DEV/ports/1/gids/0)
	RXE_GID_HEX=$(echo "$RXE_GID" | tr -d :)
	RXE_GUID=$(echo "$RXE_GID" | cut -d: -f5-8)
	export RXE_DEV RXE_GID RXE_GID_HEX RXE_GUID
}

# rxe_gid0_set: whether GID index 0 of $RXE_DEV port 1 is set (not all zeros).
rxe_gid0_set() {
	case $(cat "/sys/class/infiniband/${RXE_DEV:-rxe0}/ports/1/gids/0" 2>/dev/null) in
	""|0000:0000:0000:0000:0000:0000:0000:0000) return 1 ;;
	esac
}

# dbus_start: a system bus (dbus-daemon --system); a no-op when one runs.
dbus_start() {
	if [ -S /run/dbus/system_bus_socket ] && [ -f /run/dbus/pid ] &&
		kill -0 "$(cat /run/dbus/pid)" 2>/dev/null; then
		return 0
	fi
	mkdir -p /run/dbus || return 1
	rm -f /run/dbus/pid /run/dbus/system_bus_socket
	dbus-daemon --system --fork || return 1
	wait_until 5 test -S /run/dbus/system_bus_socket ||
		{ echo "dbus_start: no system bus socket" >&2; return 1; }
}

# tcli ARGS: one targetcli command, non-interactive (stdin /dev/null, no
# tty, hence no colours); exit status 0 on success, 1 when the command
# raised an error (the message on stderr).  targetcli needs a system bus
# (its backstores ask tcmu-runner over D-Bus), so this starts one.  Its
# preferences live in TARGETCLI_HOME (default /tmp/targetcli), seeded with
# auto_save_on_exit, auto_use_daemon and color_mode false: nothing is saved
# to /etc/rtslib-fb-target, and no targetclid is needed.  Seeding writes
# configshell-fb's pickled prefs.bin directly, which costs a fraction of a
# "targetcli set global ..." run (several seconds under TCG); the log
# levels are those a first targetcli run saves (targetcli's own default
# loglevel_file, debug9, is one configshell rejects).
tcli() {
	[ $# -gt 0 ] || { echo "tcli: no command (interactive use not supported)" >&2; return 2; }
	TARGETCLI_HOME=${TARGETCLI_HOME:-/tmp/targetcli}
	export TARGETCLI_HOME
	if [ ! -s "$TARGETCLI_HOME/prefs.bin" ]; then
		# shellcheck disable=SC2015 # either failing is the error below
		mkdir -p "$TARGETCLI_HOME" && python3 -c '
import pickle, sys
prefs = {"auto_save_on_exit": False, "auto_use_daemon": False, "color_mode": False,
         "loglevel_console": "info", "loglevel_file": "debug"}
with open(sys.argv[1], "wb") as f:
    pickle.dump(prefs, f, 2)' "$TARGETCLI_HOME/prefs.bin" ||
			{ echo "tcli: cannot seed $TARGETCLI_HOME/prefs.bin" >&2; return 1; }
	fi
	dbus_start || return 1
	targetcli "$@" </dev/null
}

# srpt_target_create: the target port of rxe0 (after rxe_setup), created
# with targetcli as ib.$RXE_GID_HEX; its configfs directory is
# 0x$RXE_GID_HEX, with TPG tpgt_1 enabled.  Loads the module under test
# first if it is not loaded (else targetcli would modprobe whichever
# ib_srpt modprobe finds).  Exports SRPT_WWN (ib.$RXE_GID_HEX).
srpt_target_create() {
	[ -n "${RXE_GID_HEX:-}" ] || { echo "srpt_target_create: run rxe_setup first" >&2; return 1; }
	[ -e /sys/module/ib_srpt ] || srpt_load || return 1
	SRPT_WWN=ib.$RXE_GID_HEX
	export SRPT_WWN
	tcli /srpt create "$SRPT_WWN"
}

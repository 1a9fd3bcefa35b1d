#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian packages in the guest: apt-get installs ib-srpt-dkms and
# ib-srpt-tools from build/deb/ (make deb; make check builds them in the
# host test t-deb) offline, DKMS builds the module for the guest's kernel
# into updates/dkms, modprobe loads that module, ib_srp logs in over
# soft-RoCE and fio verifies data, srp-probe from the tools package checks
# the target; purging the packages brings the in-tree module back.
# The DKMS build runs in the guest, so the first half takes minutes under
# TCG.  Ours only: it tests our package.
# vmtest: timeout=900
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	ok "# SKIP the package test installs ours"
	exit 0
fi
kver=$(uname -r)
ver=$(sed -n 's/^#define SRPT_DRV_VERSION "\(.*\)"$/\1/p' "$SRPT_REPO/ib_srpt.h")
debs=$SRPT_REPO/build/deb
dkms_deb=$debs/ib-srpt-dkms_${ver}_all.deb
tools_deb=$debs/ib-srpt-tools_${ver}_$(dpkg --print-architecture).deb
# The in-tree module is ib_srpt.ko on 6.1, ib_srpt.ko.xz since 6.12; DKMS
# compresses the module it installs the same way (the kernel's config).
intree=$(intree_ko_path)
ko=${intree##*/}
dkms_ko=/lib/modules/$kver/updates/dkms/$ko
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
# What udev and systemd would provide and the bare guest lacks: /dev/fd
# (dkms uses bash process substitution), /dev/pts (apt's terminal log),
# configfs for LIO (lib.sh's srpt_load does the same).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mkdir -p /dev/pts
grep -q " /dev/pts devpts" /proc/mounts || mount -t devpts devpts /dev/pts
modprobe -a configfs target_core_mod ib_core ib_cm rdma_cm
grep -q " /sys/kernel/config configfs" /proc/mounts ||
	mount -t configfs configfs /sys/kernel/config

case $ko in
ib_srpt.ko|ib_srpt.ko.xz|ib_srpt.ko.zst|ib_srpt.ko.gz) ok "in-tree module $intree" ;;
*) not_ok "in-tree ib_srpt module of $kver found (kernel/drivers/infiniband/ulp/srpt/)"; exit 1 ;;
esac
if [ -f "$dkms_deb" ] && [ -f "$tools_deb" ]; then
	ok "packages $ver built"
else
	not_ok "packages $ver built (make deb)"
	exit 1
fi
# same_source: every file of the package's module source is this
# checkout's (not a stale build/deb/); dkms.conf, which dh_dkms writes from
# debian/ib-srpt-dkms.dkms, aside.  Names what differs.
same_source() {
	_ss_d=/tmp/dkms-src
	rm -rf $_ss_d && mkdir -p $_ss_d &&
		dpkg-deb -x "$dkms_deb" $_ss_d || return 1
	_ss_n=0 _ss_bad=0
	for _ss_f in $(cd "$_ss_d/usr/src/ib_srpt-$ver" && find . -type f ! -name dkms.conf); do
		_ss_n=$((_ss_n + 1))
		cmp -s "$_ss_d/usr/src/ib_srpt-$ver/$_ss_f" "$SRPT_REPO/$_ss_f" ||
			{ echo "differs from the checkout: $_ss_f"; _ss_bad=1; }
	done
	echo "$_ss_n files compared"
	[ "$_ss_n" -gt 0 ] && [ "$_ss_bad" = 0 ]
}
run_ok "ib-srpt-dkms holds this checkout's module source, file by file" same_source
is "$(modinfo -n ib_srpt 2>&1)" "$intree" "before: modinfo -n ib_srpt is the in-tree module"

# DKMS runs depmod over the whole module tree after it installs and after
# it removes: 4000-odd modules, xz-compressed since 6.12, about 30 s a
# call under TCG.  prune_modules puts in its place (a bind mount over
# /lib/modules/KVER) a copy of the tree with the modules this guest can
# need: everything under the directories of prune_dirs, the modules
# directly in those of prune_flat (veth, not the hardware drivers in its
# subdirectories), the modules loaded now, and what those depend on
# (modules.dep), with the tree's own files
# (modules.builtin*, modules.order, config, System.map) and its build and
# source links.  The in-tree ib_srpt stays in it, so the checks of which
# module modprobe picks mean what they meant.  Names the counts.
prune_dirs="arch crypto lib drivers/block drivers/infiniband drivers/scsi drivers/target net"
prune_flat="drivers/net"
prune_modules() {
	_pm_src=/lib/modules/$kver
	_pm_dst=/tmp/modules-$kver
	rm -rf "$_pm_dst" && mkdir -p "$_pm_dst" || return 1
	_pm_loaded=$(while read -r _m _; do
		modinfo -n "$_m" 2>/dev/null; done </proc/modules | sed "s|^$_pm_src/||")
	(cd "$_pm_src" && awk -v dirs="$prune_dirs" -v flat="$prune_flat" \
		-v loaded="$_pm_loaded" '
		BEGIN {
			nd = split(dirs, d, " ")
			nf = split(flat, fl, " ")
			nl = split(loaded, l, "\n")
			for (i = 1; i <= nl; i++)
				want[l[i]] = 1
		}
		{
			m = $1
			sub(/:$/, "", m)
			keep = (m in want)
			for (i = 1; i <= nd; i++)
				if (index(m, "kernel/" d[i] "/") == 1)
					keep = 1
			for (i = 1; i <= nf; i++)
				if (index(m, "kernel/" fl[i] "/") == 1 &&
				    index(substr(m, length(fl[i]) + 9), "/") == 0)
					keep = 1
			if (keep)
				for (i = 1; i <= NF; i++) {
					f = $i
					sub(/:$/, "", f)
					print f
				}
		}' modules.dep | sort -u >/tmp/prune.list) || return 1
	(cd "$_pm_src" && xargs cp --parents -t "$_pm_dst" </tmp/prune.list) || return 1
	for _f in "$_pm_src"/*; do
		_n=${_f##*/}
		if [ -L "$_f" ]; then
			_t=$(readlink -f "$_f") && ln -s "$_t" "$_pm_dst/$_n" || return 1
		elif [ -f "$_f" ]; then
			cp "$_f" "$_pm_dst/" || return 1
		fi
	done
	_pm_all=$(grep -c '' "$_pm_src/modules.dep")
	mount --bind "$_pm_dst" "$_pm_src" && depmod -a "$kver" || return 1
	echo "$(grep -c '' "$_pm_src/modules.dep") of $_pm_all modules kept in $_pm_dst"
}
if _pm=$(prune_modules 2>&1); then
	ok "the module tree pruned for DKMS's depmod"
	diag "$_pm"
else
	not_ok "the module tree pruned for DKMS's depmod"
	echo "$_pm" | sed 's/^/# /'
fi
is "$(modinfo -n ib_srpt 2>&1)" "$intree" "pruned: modinfo -n ib_srpt is the in-tree module"

# The overlay is thrown away: no man-db index rebuild (minutes under TCG).
rm -f /var/lib/man-db/auto-update
# apt without the host's package lists: everything the packages depend on
# is installed, and parsing the lists costs minutes under TCG.
mkdir -p /tmp/apt-lists/partial
apt_local() { apt-get -q -o Dir::State::Lists=/tmp/apt-lists "$@"; }
# dkms_log: what DKMS said and built, when the module is not installed.
# The package's postinst runs "dkms build" with its output thrown away and
# returns 0 when it skips a kernel (no headers at /lib/modules/KVER/build,
# BUILD_EXCLUSIVE_*), so apt-get can succeed and leave the module only
# "added": apt's output (the postinst's "Building for ..." and "...
# skipped" lines), where /lib/modules/KVER/build points, and the build's
# make.log, or that there is none (no build ran).
dkms_log() {
	tail -n 30 /tmp/apt.out | sed 's/^/# apt: /'
	diag "/lib/modules/$kver/build -> $(readlink "/lib/modules/$kver/build" 2>&1)$(
		[ -e "/lib/modules/$kver/build/include" ] || echo ' (no include/ there)')"
	_ml=
	for _f in "/var/lib/dkms/ib_srpt/$ver/build/make.log" \
		"/var/lib/dkms/ib_srpt/$ver/$kver"/*/log/make.log; do
		[ ! -f "$_f" ] || _ml=$_f
	done
	if [ -n "$_ml" ]; then
		diag "$_ml:"
		tail -n 40 "$_ml" | sed 's/^/# make.log: /'
	else
		diag "no make.log under /var/lib/dkms/ib_srpt/$ver: DKMS built nothing"
	fi
}
if apt_local install -y --no-install-recommends "$dkms_deb" "$tools_deb" \
	>/tmp/apt.out 2>&1; then
	ok "apt-get install ./ib-srpt-dkms ./ib-srpt-tools (offline; DKMS builds)"
else
	not_ok "apt-get install ./ib-srpt-dkms ./ib-srpt-tools (offline; DKMS builds)"
fi
diag "install and DKMS build took $(($(date +%s) - t0)) s"
# Of that, the compiler's part: make.log starts with the date DKMS wrote
# before make and was last written when make ended (DKMS moves it after).
for _f in "/var/lib/dkms/ib_srpt/$ver/$kver"/*/log/make.log; do
	[ -f "$_f" ] || continue
	_b0=$(date -d "$(sed -n 2p "$_f")" +%s 2>/dev/null) &&
		diag "of which DKMS's make (make.log) $(($(stat -c %Y "$_f") - _b0)) s"
done
# Its standard output: Debian 12's DKMS warns on standard error when the
# headers' vmlinux has no .comment section (readelf; bookworm-backports'
# 6.12), which is no status.
st=$(dkms status -m ib_srpt -v "$ver" -k "$kver" 2>/tmp/dkms-status.err)
case $st in
"ib_srpt/$ver, $kver, "*": installed"*) ok "dkms status: $st" ;;
*)
	not_ok "dkms status: ib_srpt/$ver installed for $kver"
	diag "$st"
	sed 's/^/# stderr: /' /tmp/dkms-status.err
	dkms_log
	;;
esac
is "$(modinfo -n ib_srpt 2>&1)" "$dkms_ko" "modinfo -n ib_srpt is the DKMS module (updates/dkms)"
is "$(modinfo -F version ib_srpt 2>&1)" "$ver" "its version is $ver"

run_ok "modprobe ib_srpt" modprobe ib_srpt
is "$(cat /sys/module/ib_srpt/srcversion 2>&1)" "$(modinfo -F srcversion "$dkms_ko" 2>&1)" \
	"the loaded module is the DKMS one (srcversion)"
is "$(cat /sys/module/ib_srpt/version 2>&1)" "$ver" "/sys/module/ib_srpt/version is $ver"

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srp_initiator_load
ini=$(srp_ini_id)
if srp_export_setup && srp_acl "$ini"; then
	ok "ramdisk exported, ACL $ini"
else
	not_ok "ramdisk exported, ACL $ini"
	exit 1
fi
run_ok "ib_srp login over RDMA/CM" srp_login
if disk=$(srp_disk 30); then
	ok "SRP disk $disk"
	run_ok "fio randwrite 64k, crc32c verify, 16 MiB" fio_direct "$disk" 64k 16m
else
	not_ok "SRP disk appeared"
fi
modprobe -a rdma_ucm ib_uverbs
is "$(readlink -f "$(command -v srp-probe)")" /usr/sbin/srp-probe "srp-probe installed by ib-srpt-tools"
run_ok "srp-probe checks the target" \
	srp-probe -q -e "$(srpt_guid16)" "$SRPT_IP" "$SRPT_CM_PORT"
run_ok "man page srp-probe(8) installed" ls -l /usr/share/man/man8/srp-probe.8.gz
run_ok "logout, channels released" srp_logout_wait
srp_export_teardown
run_ok "rmmod ib_srpt" rmmod ib_srpt

t1=$(date +%s)
run_ok "apt-get purge ib-srpt-dkms ib-srpt-tools" \
	apt_local purge -y ib-srpt-dkms ib-srpt-tools
diag "purge (DKMS's remove and depmod) took $(($(date +%s) - t1)) s"
is "$(dkms status -m ib_srpt 2>&1)" "" "dkms status: ib_srpt gone"
run_fails "updates/dkms/$ko removed" test -e "$dkms_ko"
run_fails "/usr/src/ib_srpt-$ver removed" test -e "/usr/src/ib_srpt-$ver"
is "$(modinfo -n ib_srpt 2>&1)" "$intree" "after: modinfo -n ib_srpt is the in-tree module again"
run_ok "modprobe ib_srpt (in-tree)" modprobe ib_srpt
# The in-tree module has no MODULE_VERSION and does not taint (O).
intree_loaded() {
	_t=$(cat /sys/module/ib_srpt/taint) || return 1
	echo "taint '$_t'"
	[ ! -e /sys/module/ib_srpt/version ] && case $_t in *O*) false ;; esac
}
run_ok "the loaded module is the in-tree one (no version, no O taint)" intree_loaded
run_ok "rmmod ib_srpt" rmmod ib_srpt
diag "test took $(($(date +%s) - t0)) s"

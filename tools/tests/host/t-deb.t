#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian packages: tools/mkdeb.sh ("make deb") builds ib-srpt-dkms and
# ib-srpt-tools into build/deb/ (where the VM test t-dkms installs them
# from); lintian finds no error and no warning; the version is
# SRPT_DRV_VERSION of ib_srpt.h everywhere (MODULE_VERSION, the package,
# /usr/src/ib_srpt-VERSION, dkms.conf) and debian/rules refuses a changelog
# that names another; the packaged module source builds with dkms.conf's
# own MAKE line for the kernel DKMS names, and only with that kernel's
# headers; a kernel the driver does not support (older than "make kernels"
# names, or headers without what it needs) stops that build with one line
# saying so, before any compiler runs, and "make deb" states the kernels;
# ib-srpt-tools holds srp-probe and srpt-stat with their man pages.
TAP_DIAG_TAIL=1
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"

ver=$(make -s version)
arch=$(dpkg --print-architecture)
# Kernel releases are plain names.
# shellcheck disable=SC2012
kver=$(ls /lib/modules | sort -V | tail -n 1)
dkms_deb=build/deb/ib-srpt-dkms_${ver}_all.deb
tools_deb=build/deb/ib-srpt-tools_${ver}_$arch.deb

check "version in ib_srpt.h ($ver) is MODULE_VERSION" \
	sh -c "[ -n '$ver' ] && grep -q '^MODULE_VERSION(SRPT_DRV_VERSION);' ib_srpt.c"
kernels=$(make -s kernels)
min=$(sed -n 's/^SRPT_KERNEL_MIN := //p' Makefile)
tested=$(sed -n 's/^SRPT_KERNELS_TESTED := //p' Makefile)
check "make deb (tools/mkdeb.sh) builds ib-srpt-dkms and ib-srpt-tools $ver" \
	sh -c "tools/mkdeb.sh >$tmp/mkdeb 2>&1; rc=\$?; cat $tmp/mkdeb
		[ \$rc = 0 ] && [ -f $dkms_deb ] && [ -f $tools_deb ]"
check "make deb states the kernels: $kernels" \
	sh -c "[ -n '$kernels' ] && grep -F 'builds for $kernels' $tmp/mkdeb &&
		dpkg-deb -f $dkms_deb Description | tr -s ' \n' ' ' |
			grep -F 'for Linux $min and later (an older kernel stops the build with a message saying so); tested on $tested.'"

# lintian exits 2 on a tag at or above --fail-on.  Root is fine here.
check "lintian: no errors" lintian --fail-on error build/deb/ib-srpt_"${ver}"_"$arch".changes
check "lintian: no warnings" lintian --fail-on warning build/deb/ib-srpt_"${ver}"_"$arch".changes

check "package versions are $ver" \
	sh -c "[ \"\$(dpkg-deb -f $dkms_deb Version)\" = '$ver' ] &&
		[ \"\$(dpkg-deb -f $tools_deb Version)\" = '$ver' ]"

mkdir -p "$tmp/dkms" "$tmp/tools"
dpkg-deb -x "$dkms_deb" "$tmp/dkms" 2>"$tmp/out"
dpkg-deb -x "$tools_deb" "$tmp/tools" 2>>"$tmp/out"
src=$tmp/dkms/usr/src/ib_srpt-$ver
# src_complete: dkms.conf and the checkout's files, unchanged (that
# they are all the build needs, the build below shows).
src_complete() {
	[ -f "$src/dkms.conf" ] && [ -f "$src/ib_srpt.c" ] || return 1
	for _f in "$src"/*; do
		[ "${_f##*/}" = dkms.conf ] || cmp "$_f" "${_f##*/}" || return 1
	done
}
check "ib-srpt-dkms holds the module source in /usr/src/ib_srpt-$ver" src_complete
check "dkms.conf: PACKAGE_VERSION $ver, AUTOINSTALL, built for kernelver" \
	sh -c "grep -qx 'PACKAGE_NAME=\"ib_srpt\"' $src/dkms.conf &&
		grep -qx 'PACKAGE_VERSION=\"$ver\"' $src/dkms.conf &&
		grep -qx 'AUTOINSTALL=\"yes\"' $src/dkms.conf &&
		grep -q '^MAKE\[0\]=\"make -C \${kernel_source_dir} ' $src/dkms.conf"
check "ib-srpt-dkms: man page ib_srpt(4), srpt.rst, the configfs ABI" \
	sh -c "[ -f $tmp/dkms/usr/share/man/man4/ib_srpt.4.gz ] &&
		[ -f $tmp/dkms/usr/share/doc/ib-srpt-dkms/srpt.rst.gz ] &&
		[ -f $tmp/dkms/usr/share/doc/ib-srpt-dkms/configfs-target-srpt.gz ]"
# dropin_in_deb: the systemd drop-in of rtslib-fb's target service
# (/lib or /usr/lib, as the build system's systemd says), and no other.
dropin_in_deb() {
	_d=$(cd "$tmp/dkms" && find . -path '*/systemd/system/*' -type f)
	echo "systemd files: $_d"
	case $_d in
	./lib/systemd/system/rtslib-fb-targetctl.service.d/ib_srpt.conf | \
	./usr/lib/systemd/system/rtslib-fb-targetctl.service.d/ib_srpt.conf) ;;
	*) return 1 ;;
	esac
	cmp "$tmp/dkms/$_d" systemd/ib_srpt.conf &&
		grep -qx 'After=rdma-hw.target' "$tmp/dkms/$_d"
}
check "ib-srpt-dkms: the drop-in that orders rtslib-fb-targetctl.service after rdma-hw.target" dropin_in_deb
check "ib-srpt-tools: /usr/sbin/srp-probe runs, man page srp-probe(8)" \
	sh -c "$tmp/tools/usr/sbin/srp-probe --help >/dev/null &&
		[ -f $tmp/tools/usr/share/man/man8/srp-probe.8.gz ]"
check "ib-srpt-tools: /usr/sbin/srpt-stat, the checkout's, runs; man page srpt-stat(8); Depends on python3" \
	sh -c "cmp $tmp/tools/usr/sbin/srpt-stat tools/srpt-stat/srpt-stat &&
		$tmp/tools/usr/sbin/srpt-stat --help >/dev/null &&
		[ -f $tmp/tools/usr/share/man/man8/srpt-stat.8.gz ] &&
		dpkg-deb -f $tools_deb Depends | tr ',' '\n' | grep -qx ' *python3'"

# dkms_make KERNELVER KERNEL_SOURCE_DIR [MAKEARGS [CMD]]: dkms.conf's
# MAKE[0] (or CMD: CLEAN) run the way dkms 3.0 runs it: bash sources
# dkms.conf with kernelver, kernel_source_dir and dkms_tree set, and runs
# the command in $dkms_tree/ib_srpt/VERSION/build (a copy of the source)
# with KERNELRELEASE=kernelver (and MAKEARGS, for a test) added after "make".
dkms_make() {
	_b=$tmp/dkmstree/ib_srpt/$ver/build
	rm -rf "$tmp/dkmstree"
	mkdir -p "$_b" && cp -r "$src"/. "$_b"/ || return 1
	(cd "$_b" && kernelver=$1 kernel_source_dir=$2 dkms_tree=$tmp/dkmstree \
		args=${3:-} cmd=${4:-'${MAKE[0]}'} bash -c '
		. ./dkms.conf && eval "c=$cmd" && eval "${c/#make/make KERNELRELEASE=$kernelver $args}"')
}
dkms_builds() {
	dkms_make "$kver" "/lib/modules/$kver/build" || return 1
	_ko=$tmp/dkmstree/ib_srpt/$ver/build/ib_srpt.ko
	_v=$(/sbin/modinfo -F version "$_ko") || return 1
	_m=$(/sbin/modinfo -F vermagic "$_ko" | cut -d' ' -f1)
	echo "version $_v, vermagic $_m"
	[ "$_v" = "$ver" ] && [ "$_m" = "$kver" ]
}
check "dkms.conf's MAKE builds ib_srpt.ko $ver for $kver" dkms_builds
# Headers DKMS did not name are never used instead: a kernel without
# headers fails rather than building for the newest installed ones.
if dkms_make 0.0.0-none /nonexistent >"$tmp/out" 2>&1 ||
	[ -f "$tmp/dkmstree/ib_srpt/$ver/build/ib_srpt.ko" ]; then
	n=$((n + 1)); echo "not ok $n - no build without the named kernel's headers"
	tail -n 10 "$tmp/out" | sed 's/^/# /'
else
	n=$((n + 1)); echo "ok $n - no build without the named kernel's headers"
fi

# A kernel the driver does not support.  An older one is the installed
# kernel's headers with kbuild's VERSION and PATCHLEVEL overridden on the
# make command line (5.10, Debian 11's); one whose headers lack what the
# driver needs is a kbuild parse of the packaged Makefile with srctree at
# a copy of the headers' include/ without target_submit_prep().
# stops_with MESSAGE: the build failed with MESSAGE before any compiler ran
# (its output, in $tmp/make.out, is the diagnostics).
stops_with() {
	cat "$tmp/make.out"
	grep -qF "$1" "$tmp/make.out" && ! grep -qE 'CC \[M\]|error:|warning:' "$tmp/make.out"
}
unsupported_old() {
	if dkms_make "$kver" "/lib/modules/$kver/build" "VERSION=5 PATCHLEVEL=10" >"$tmp/make.out" 2>&1; then
		cat "$tmp/make.out"
		return 1
	fi
	stops_with "ib_srpt: kernel $kver (Linux 5.10) is not supported: the driver needs Linux $min or later"
}
check "Linux 5.10 (older than $min): dkms.conf's MAKE stops, one line says why, no compiler ran" \
	unsupported_old
# shellcheck disable=SC2016 # dkms.conf's variable, expanded by dkms_make
check "Linux 5.10: dkms.conf's CLEAN still works" \
	dkms_make "$kver" "/lib/modules/$kver/build" "VERSION=5 PATCHLEVEL=10" '$CLEAN'
unsupported_headers() {
	# The headers' common part (srctree), from the include line of theirs.
	_common=$(sed -n 's,^include \(.*\)/Makefile$,\1,p' "/lib/modules/$kver/build/Makefile" | tail -n 1)
	rm -rf "$tmp/fake" && mkdir -p "$tmp/fake" && cp -r "$_common/include" "$tmp/fake/" || return 1
	sed -i 's/target_submit_prep/target_submit_prep_gone/' "$tmp/fake/include/target/target_core_fabric.h"
	if printf 'parsed:\n\t@echo parsed\n' | make -C "$src" -f Makefile -f - parsed \
		KERNELRELEASE="$kver" VERSION=6 PATCHLEVEL=1 srctree="$tmp/fake" >"$tmp/make.out" 2>&1; then
		cat "$tmp/make.out"
		return 1
	fi
	stops_with "ib_srpt: kernel $kver is not supported: its headers ($tmp/fake) lack target_submit_prep in include/target/target_core_fabric.h"
}
check "headers without target_submit_prep(): the kbuild half stops, saying what is missing" \
	unsupported_headers

# debian/rules checks the changelog against ib_srpt.h.
mkdir -p "$tmp/rules"
cp -r debian ib_srpt.h "$tmp/rules/"
check "debian/rules accepts the changelog's version $ver" \
	sh -c "cd $tmp/rules && make -s -f debian/rules override_dh_auto_configure"
sed -i 's/^#define SRPT_DRV_VERSION ".*"$/#define SRPT_DRV_VERSION "99.9"/' "$tmp/rules/ib_srpt.h"
n=$((n + 1))
if (cd "$tmp/rules" && make -s -f debian/rules override_dh_auto_configure) >"$tmp/out" 2>&1; then
	echo "not ok $n - debian/rules refuses a changelog that is not ib_srpt.h's version"
else
	echo "ok $n - debian/rules refuses a changelog that is not ib_srpt.h's version"
	grep -q 'ib_srpt.h says version 99.9' "$tmp/out" || echo "# (unexpected message: $(cat "$tmp/out"))"
fi
echo "1..$n"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian packages: tools/mkdeb.sh ("make deb") builds ib-srpt-dkms and
# ib-srpt-tools into build/deb/ (where the VM test t-dkms installs them
# from); lintian finds no error and no warning; the version is
# SRPT_DRV_VERSION of ib_srpt.h everywhere (MODULE_VERSION, the package,
# /usr/src/ib_srpt-VERSION, dkms.conf) and debian/rules refuses a changelog
# that names another; the packaged module source builds with dkms.conf's
# own MAKE line for the kernel DKMS names, and only with that kernel's
# headers.
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
check "make deb (tools/mkdeb.sh) builds ib-srpt-dkms and ib-srpt-tools $ver" \
	sh -c "tools/mkdeb.sh && [ -f $dkms_deb ] && [ -f $tools_deb ]"

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
check "ib-srpt-tools: /usr/sbin/srp-probe runs, man page srp-probe(8)" \
	sh -c "$tmp/tools/usr/sbin/srp-probe --help >/dev/null &&
		[ -f $tmp/tools/usr/share/man/man8/srp-probe.8.gz ]"

# dkms_make KERNELVER KERNEL_SOURCE_DIR: dkms.conf's MAKE[0] run the way
# dkms 3.0 runs it: bash sources dkms.conf with kernelver,
# kernel_source_dir and dkms_tree set, and runs the command in
# $dkms_tree/ib_srpt/VERSION/build (a copy of the source) with
# KERNELRELEASE=kernelver added after "make".
dkms_make() {
	_b=$tmp/dkmstree/ib_srpt/$ver/build
	rm -rf "$tmp/dkmstree"
	mkdir -p "$_b" && cp -r "$src"/. "$_b"/ || return 1
	(cd "$_b" && kernelver=$1 kernel_source_dir=$2 dkms_tree=$tmp/dkmstree bash -c '
		. ./dkms.conf && eval "${MAKE[0]/#make/make KERNELRELEASE=$kernelver}"')
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

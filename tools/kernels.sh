#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh: Debian's other kernels for the driver (issue 25), fetched from
# Debian's archive with a private apt state (the host's kernel, sources and
# apt preferences are never touched), unpacked into a cache:
#
#   tools/kernels.sh [fetch] [SERIES...]  fetch and unpack (default: all)
#   tools/kernels.sh list                 what the cache holds
#   tools/kernels.sh kdir SERIES          the headers to build against (KDIR)
#   tools/kernels.sh env SERIES           KVER, KDIR, SRPT_VM_KERNEL,
#                                         SRPT_VM_MODULES, SRPT_KERNEL_CHROOT
#   tools/kernels.sh build SERIES [MAKEARG...]
#                                         ib_srpt.ko and srp_ibcm_ini.ko from
#                                         this tree (default MAKEARG: W=1)
#                                         into build/kernels/RELEASE/
#   tools/kernels.sh source SERIES        that kernel's linux-source tarball
#   tools/kernels.sh root SERIES          the Debian 13 root filesystem the
#                                         VM tests boot trixie's kernels with
#                                         ($SRPT_VM_ROOTS/trixie, made once
#                                         by mmdebstrap); empty for bpo-6.12
#   tools/kernels.sh vmenv SERIES         what tools/vm/vmtest needs to boot
#                                         SERIES (SRPT_KERNEL=SERIES), as
#                                         export lines; builds the modules
#                                         when a source is newer
#   tools/kernels.sh qemu                 bookworm-backports' QEMU, unpacked
#                                         into $SRPT_QEMU_CACHE (see
#                                         qemu_ensure); prints its root, which
#                                         tools/check.sh gives vmtest as
#                                         SRPT_VM_QEMU
#
# SERIES:
#   host         the host's kernel headers (Debian 12's 6.1): build only
#   bpo-6.12     bookworm-backports 6.12: built on the host (gcc-12)
#   trixie-6.12  Debian 13's 6.12 (trixie, trixie-security)
#   trixie-bpo   the newest 7.x of trixie-backports
#
# Cache ($SRPT_KERNELS_CACHE, /var/cache/ib_srpt/kernels):
#   RELEASE/            the packages unpacked (dpkg-deb -x): boot/ or
#                       usr/lib/modules/RELEASE/vmlinuz, the modules with
#                       depmod -b run on them, usr/src/linux-headers-RELEASE
#                       (KDIR; its Makefile points into the cache);
#                       info: what was fetched and where it is
#   SERIES -> RELEASE   the release a series resolved to
#   debs/  apt/         the packages, the private apt state
# Trixie's kernels are built with gcc-14 and their kbuild helpers need
# Debian 13's libc: they build in a Debian 13 chroot made by mmdebstrap
# (--variant=apt) in $SRPT_KERNELS_CHROOT (/var/cache/ib_srpt/chroot/trixie)
# with the compiler, pahole, kmod and the kbuild packages' own dependencies
# installed and the headers unpacked at their real paths; proc is mounted
# for objtool during a build only.
# Sparse (a build with C=1 or C=2) on 7.x: the kernel's Makefile runs sparse
# only when scripts/checker-valid.sh says it parses __typeof_unqual__,
# which 7.x's headers use under __CHECKER__.  Debian's linux-kbuild package
# lacks that script (the build then says "sparse is not available or not up
# to date" and checks nothing): it is taken from the series' own
# linux-source into the chroot's kbuild scripts.  Debian 13's sparse
# (0.6.4) fails that check, so the build's CHECK is Debian unstable's
# sparse (0.6.5~rc1 or later; it needs only libc), unpacked from its
# package into the chroot's /opt/sparse-unstable and fetched with a
# private apt state of its own ($cache/apt-unstable).
#
# A series fetched once stays as it is: a second run is a no-op, with no
# network access.  SRPT_KERNELS_REFRESH=1 looks for a newer kernel of each
# series named.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SRPT_KERNELS_CACHE:-/var/cache/ib_srpt/kernels}
chroot_dir=${SRPT_KERNELS_CHROOT:-/var/cache/ib_srpt/chroot/trixie}
root_dir=${SRPT_VM_ROOTS:-/var/cache/ib_srpt/root}/trixie
mirror=${SRPT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${SRPT_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
all_series="bpo-6.12 trixie-6.12 trixie-bpo"

die() { echo "kernels.sh: $*" >&2; exit 1; }
say() { echo "kernels.sh: $*" >&2; }

# series_info SERIES: sets suites (the archive suites searched), vpat (the
# versions of linux-image-amd64 accepted, a shell pattern) and in_chroot.
series_info() {
	case $1 in
	bpo-6.12) suites="bookworm-backports"; vpat="6.12.*"; in_chroot=0 ;;
	trixie-6.12) suites="trixie trixie-security"; vpat="6.12.*"; in_chroot=1 ;;
	trixie-bpo) suites="trixie-backports"; vpat="[7-9].*"; in_chroot=1 ;;
	*) die "unknown series '$1' (host $all_series)" ;;
	esac
}

# The private apt state: every suite of every series in one sources.list.
aptdir=$cache/apt
apt_opts() {
	echo "-q -o Dir::State=$aptdir/state -o Dir::Cache=$aptdir/cache" \
		"-o Dir::Etc::SourceList=$aptdir/sources.list" \
		"-o Dir::Etc::SourceParts=$aptdir/sources.list.d" \
		"-o Dir::Etc::Preferences=$aptdir/preferences" \
		"-o Dir::Etc::PreferencesParts=$aptdir/preferences.d" \
		"-o APT::Architecture=amd64 -o APT::Architectures=amd64" \
		"-o APT::Sandbox::User=root"
}
# shellcheck disable=SC2046 # apt_opts is a list of words
apt_cache() { apt-cache $(apt_opts) "$@"; }
# shellcheck disable=SC2046
apt_get() { apt-get $(apt_opts) "$@"; }

# apt_state: the directories of the private apt state $aptdir, its
# sources.list from standard input, no preferences.
apt_state() {
	mkdir -p "$aptdir/state/lists/partial" "$aptdir/cache/archives/partial" \
		"$aptdir/sources.list.d" "$aptdir/preferences.d"
	cat >"$aptdir/sources.list"
	: >"$aptdir/preferences"
}

apt_updated=0
apt_update() {
	[ $apt_updated = 0 ] || return 0
	{
		for s in bookworm-backports trixie trixie-backports; do
			echo "deb [signed-by=$keyring] $mirror $s main"
		done
		echo "deb [signed-by=$keyring] $security trixie-security main"
	} | apt_state
	say "apt-get update (private state in $aptdir)"
	apt_get update >/dev/null || die "apt-get update failed"
	apt_updated=1
}

# newest_version SUITES PATTERN [PACKAGE]: the newest version matching
# PATTERN of PACKAGE (linux-image-amd64) in SUITES.
newest_version() {
	apt_cache madison "${3:-linux-image-amd64}" | while IFS='|' read -r _ v src; do
		v=$(echo "$v" | tr -d ' ')
		# shellcheck disable=SC2254 # the pattern is meant to match
		case $v in $2) ;; *) continue ;; esac
		for s in $1; do
			case $src in *" $s/main "*) echo "$v" ;; esac
		done
	done | sort -V | tail -n 1
}

# depends PKG VERSION: the first alternative of each Depends, names only.
depends() {
	apt_cache show "$1=$2" | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',' '\n' | sed 's/|.*//;s/(.*//;s/:any//;s/ //g' | grep . || true
}

# closure VERSION ABI PKG...: PKG and every package of the same kernel build
# (its name holds ABI) they depend on.
closure() {
	_v=$1 _abi=$2
	shift 2
	_set=" $* "
	_todo="$*"
	while [ -n "$_todo" ]; do
		_next=
		for _p in $_todo; do
			for _d in $(depends "$_p" "$_v"); do
				case $_d in *"$_abi"*) ;; *) continue ;; esac
				case $_d in *-unsigned) continue ;; esac
				case $_set in *" $_d "*) continue ;; esac
				_set="$_set$_d "
				_next="$_next $_d"
			done
		done
		_todo=$_next
	done
	echo "$_set"
}

# external_depends VERSION ABI PKG...: what the headers and kbuild packages
# among PKG need from the distribution (compiler, libraries, pahole), for
# the chroot; not the image's initramfs generator.
external_depends() {
	_v=$1 _abi=$2
	shift 2
	for _p; do
		case $_p in linux-headers-*|linux-kbuild-*|linux-base-*) ;; *) continue ;; esac
		depends "$_p" "$_v"
	done | grep -v -e "$_abi" -e '^linux-' | sort -u
}

deb_file() {
	# apt-get download encodes the ':' of an epoch as %3a
	find "$cache/debs" -name "${1}_$(echo "$2" | sed 's/:/%3a/')_*.deb" | head -n 1
}

# load SERIES: release, version, packages, external, vmlinuz, modules, kdir,
# chroot and cc from the info file fetch wrote.
load() {
	_i=$cache/$1/info
	[ -f "$_i" ] || die "$1 is not fetched"
	release=$(sed -n 's/^release=//p' "$_i")
	version=$(sed -n 's/^version=//p' "$_i")
	packages=$(sed -n 's/^packages=//p' "$_i")
	external=$(sed -n 's/^external=//p' "$_i")
	vmlinuz=$(sed -n 's/^vmlinuz=//p' "$_i")
	modules=$(sed -n 's/^modules=//p' "$_i")
	kdir=$(sed -n 's/^kdir=//p' "$_i")
	chroot=$(sed -n 's/^chroot=//p' "$_i")
	cc=$(sed -n 's/^cc=//p' "$_i")
}

download() {
	mkdir -p "$cache/debs"
	for _p in $2; do
		[ -z "$(deb_file "$_p" "$1")" ] || continue
		say "downloading $_p $1"
		(cd "$cache/debs" && apt_get download "$_p=$1" >/dev/null) ||
			die "apt-get download $_p=$1 failed"
	done
}

# debian13_ensure DIR VARIANT PKG...: a Debian 13 tree made by mmdebstrap
# (once) in DIR, with PKG... installed (those missing are added later with
# the tree's own apt-get).
debian13_ensure() {
	_dir=$1 _variant=$2
	shift 2
	if [ ! -f "$_dir/.complete" ]; then
		command -v mmdebstrap >/dev/null ||
			die "mmdebstrap missing (apt-get install mmdebstrap)"
		say "mmdebstrap --variant=$_variant trixie into $_dir"
		rm -rf "$_dir"
		mkdir -p "$(dirname "$_dir")"
		mmdebstrap --variant="$_variant" --keyring="$keyring" \
			--include="$(echo "$*" | tr ' ' ,)" \
			trixie "$_dir" \
			"deb $mirror trixie main" \
			"deb $mirror trixie-backports main" \
			"deb $security trixie-security main" >&2 ||
			die "mmdebstrap failed"
		touch "$_dir/.complete"
	fi
	_missing=
	for _p; do
		# shellcheck disable=SC2016 # a dpkg-query format
		chroot "$_dir" dpkg-query -W -f='${Status}\n' "$_p" 2>/dev/null |
			grep -q 'install ok installed' || _missing="$_missing $_p"
	done
	[ -n "$_missing" ] || return 0
	say "installing into $_dir:$_missing"
	# shellcheck disable=SC2086 # a list of package names
	chroot "$_dir" sh -c "apt-get -q update >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends $_missing" >&2 ||
		die "apt-get install in $_dir failed"
}

# The Debian 13 build chroot (created once), with chroot_base and PKG...
# installed.  perl: 6.12's W=1 runs scripts/kernel-doc on external modules;
# sparse: C=1.
chroot_base="make binutils kmod xz-utils dwarves perl sparse"
chroot_ensure() {
	# shellcheck disable=SC2086 # a list of package names
	debian13_ensure "$chroot_dir" apt $chroot_base "$@"
}

# The Debian 13 root filesystem the VM tests boot trixie's kernels with
# (tools/vm/vmtest, SRPT_VM_ROOT): what the tests run in the guest (the
# guest side of tools/install-deps.sh) and, for DKMS in the guest (t-dkms),
# what the series' headers need to build a module (PKG..., as for the
# chroot).  The headers themselves, the modules, the checkout and its
# build/ come from the host at their own paths (vmtest shares them).
# minbase: Priority required too (mawk, which the tests' awk is).
# openssl: DKMS makes its module signing key with it (without it, DKMS
# 3.2 installs the module unsigned; Debian 12's host has it, and so does a
# Debian 13 system with ca-certificates).
root_base="python3 kmod iproute2 procps util-linux findutils diffutils file
	bsdextrautils xz-utils
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils infiniband-diags
	srptools fio sg3-utils dmsetup targetcli-fb python3-rtslib-fb dbus
	dkms gcc make binutils perl openssl"
root_ensure() {
	# shellcheck disable=SC2086 # a list of package names
	debian13_ensure "$root_dir" minbase $root_base "$@"
}

# fetch SERIES: resolve, download, unpack, depmod; a no-op once done.
fetch() {
	series_info "$1"
	if [ -L "$cache/$1" ] && [ -f "$cache/$(readlink "$cache/$1")/.complete" ] &&
		[ "${SRPT_KERNELS_REFRESH:-0}" = 0 ]; then
		return 0
	fi
	apt_update
	ver=$(newest_version "$suites" "$vpat")
	[ -n "$ver" ] || die "$1: no linux-image-amd64 $vpat in $suites"
	img=$(depends linux-image-amd64 "$ver" | grep '^linux-image-' | head -n 1)
	rel=${img#linux-image-}
	abi=${rel%-amd64}
	dir=$cache/$rel
	if [ ! -f "$dir/.complete" ]; then
		pkgs=$(closure "$ver" "$abi" "linux-image-$rel" "linux-headers-$rel")
		download "$ver" "$pkgs"
		say "unpacking $rel into $dir"
		rm -rf "$dir"
		mkdir -p "$dir"
		for p in $pkgs; do
			dpkg-deb -x "$(deb_file "$p" "$ver")" "$dir"
		done
		# Merged /usr: depmod -b looks for BASE/lib/modules.
		[ -e "$dir/lib" ] || ln -s usr/lib "$dir/lib"
		kdir=$dir/usr/src/linux-headers-$rel
		# The headers include the common part by its absolute path.
		sed -i "s,^include /usr/src/,include $dir/usr/src/," "$kdir/Makefile"
		depmod -b "$dir" "$rel" || die "depmod -b $dir $rel failed"
		vmlinuz=
		for f in "$dir/boot/vmlinuz-$rel" "$dir/usr/lib/modules/$rel/vmlinuz"; do
			[ ! -f "$f" ] || vmlinuz=$f
		done
		[ -n "$vmlinuz" ] || die "$rel: no vmlinuz in the packages"
		cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$kdir/.config")
		{
			echo "series=$1"
			echo "version=$ver"
			echo "release=$rel"
			echo "packages=$(echo "$pkgs" | xargs)"
			# shellcheck disable=SC2086
			echo "external=$(external_depends "$ver" "$abi" $pkgs | tr '\n' ' ' | sed 's/ $//')"
			echo "vmlinuz=$vmlinuz"
			echo "modules=$dir/lib/modules/$rel"
			echo "kdir=$kdir"
			echo "chroot=$in_chroot"
			echo "cc=$cc"
		} >"$dir/info"
		touch "$dir/.complete"
	fi
	ln -sfn "$rel" "$cache/$1"
}

# chroot_headers SERIES: the chroot with the series' headers in place.
chroot_headers() {
	load "$1"
	# shellcheck disable=SC2086 # a list of package names
	chroot_ensure $external
	[ ! -f "$chroot_dir/usr/src/linux-headers-$release/.config" ] || return 0
	say "unpacking the headers of $release into the chroot"
	for p in $packages; do
		case $p in linux-headers-*|linux-kbuild-*|linux-base-*) ;; *) continue ;; esac
		dpkg-deb -x "$(deb_file "$p" "$version")" "$chroot_dir"
	done
}

# source_tarball SERIES: the series' linux-source tarball, fetched once
# into the cache directory of its release.
source_tarball() {
	fetch "$1"
	load "$1"
	_src=linux-source-$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
	if [ ! -f "$cache/$release/usr/src/$_src.tar.xz" ]; then
		apt_update
		download "$version" "$_src"
		dpkg-deb --fsys-tarfile "$(deb_file "$_src" "$version")" |
			tar -x -C "$cache/$release" "./usr/src/$_src.tar.xz" ||
			die "unpacking $_src.tar.xz failed"
	fi
	echo "$cache/$release/usr/src/$_src.tar.xz"
}

# unstable_sparse: Debian unstable's sparse, unpacked into the chroot
# (/opt/sparse-unstable) once; its path there.
unstable_sparse() {
	_us=/opt/sparse-unstable
	if [ ! -x "$chroot_dir$_us/usr/bin/sparse" ]; then
		(
			aptdir=$cache/apt-unstable
			echo "deb [signed-by=$keyring] $mirror unstable main" | apt_state
			mkdir -p "$aptdir/debs"
			say "apt-get update (Debian unstable, for sparse; private state in $aptdir)"
			apt_get update >/dev/null || die "apt-get update (unstable) failed"
			rm -f "$aptdir"/debs/sparse_*.deb
			(cd "$aptdir/debs" && apt_get download sparse >/dev/null) ||
				die "apt-get download sparse (unstable) failed"
			rm -rf "${chroot_dir:?}$_us"
			mkdir -p "$chroot_dir$_us"
			dpkg-deb -x "$aptdir"/debs/sparse_*.deb "$chroot_dir$_us" ||
				die "unpacking unstable's sparse failed"
			say "unstable's sparse $(dpkg-deb -f "$aptdir"/debs/sparse_*.deb Version) in $chroot_dir$_us"
		) || return 1
	fi
	echo "$_us/usr/bin/sparse"
}

# sparse_check SERIES: for a build with C= in the chroot, the make argument
# that names a sparse the series' Makefile accepts (CHECK=..., or nothing
# when the chroot's own sparse does), after putting the Makefile's
# scripts/checker-valid.sh in place; says why when there is none (the
# build then runs without sparse, and says so in its log).
sparse_check() {
	load "$1"
	_mk=$(sed -n 's/^include //p' "$chroot_dir/usr/src/linux-headers-$release/Makefile")
	grep -q 'scripts/checker-valid\.sh' "$chroot_dir$_mk" 2>/dev/null || return 0
	_scripts=$(chroot "$chroot_dir" readlink -f "/usr/src/linux-headers-$release/scripts")
	if [ ! -f "$chroot_dir$_scripts/checker-valid.sh" ]; then
		_tar=$(source_tarball "$1") || return 0
		_top=$(basename "$_tar" .tar.xz)
		say "scripts/checker-valid.sh of $_top into the chroot's $_scripts"
		_new=$chroot_dir$_scripts/checker-valid.sh.new
		if ! { tar -xJf "$_tar" -O "$_top/scripts/checker-valid.sh" >"$_new" &&
			chmod 0755 "$_new" && mv "$_new" "${_new%.new}"; }; then
			rm -f "$_new"
			say "no scripts/checker-valid.sh in $_tar: $release builds without sparse"
			return 0
		fi
	fi
	_valid() { [ "$(chroot "$chroot_dir" "$_scripts/checker-valid.sh" "$1" -m64 2>/dev/null)" = 1 ]; }
	! _valid sparse || return 0
	_sp=$(unstable_sparse) || _sp=
	if [ -n "$_sp" ] && _valid "$_sp"; then
		echo "CHECK=$_sp"
		return 0
	fi
	say "neither Debian 13's sparse nor unstable's passes $release's scripts/checker-valid.sh: it builds without sparse"
}

# vmenv SERIES: what tools/vm/vmtest needs to boot SERIES with this tree's
# modules, as "export NAME='VALUE'" lines (SRPT_KERNEL, see vmtest): the
# kernel and its modules, ib_srpt.ko and srp_ibcm_ini.ko built for it (again
# only when a source is newer than the last build), and for trixie's
# kernels the Debian 13 root and the cache directory of the release, which
# the guest sees at the same path (its headers, for DKMS in the guest).
# Nothing for "host": vmtest's defaults are the host's kernel and root.
vmenv() {
	[ "$1" != host ] || return 0
	fetch "$1"
	load "$1"
	out=$top/build/kernels/$release
	stale=
	if [ -f "$out/ib_srpt.ko" ] && [ -f "$out/srp_ibcm_ini.ko" ]; then
		# shellcheck disable=SC3013 # dash and bash have -nt
		stale=$(cd "$top" && module_sources | while IFS= read -r f; do
			[ ! "$f" -nt "$out/ib_srpt.ko" ] || echo "$f"
		done)
	else
		stale="(not built)"
	fi
	if [ -n "$stale" ]; then
		say "building for $release: $(echo "$stale" | xargs)"
		nice -n 19 "$0" build "$1" >&2 || die "the build for $release failed ($out/build.log)"
	fi
	r=$(vm_root "$1")
	echo "export SRPT_VM_KERNEL='$vmlinuz'"
	echo "export SRPT_VM_MODULES='$modules'"
	echo "export SRPT_KO='$out/ib_srpt.ko'"
	echo "export SRPT_IBCM_KO='$out/srp_ibcm_ini.ko'"
	[ -z "$r" ] || echo "export SRPT_VM_ROOT='$r'"
	echo "export SRPT_VM_SHARE='$cache/$release'"
	# 6.12 and 7.x under multi-threaded TCG: an "Oops: int3" at a
	# static-branch site (sched_clock_cpu+0x9) 1.5 s into boot, before any
	# module, panicked one of four boots of the 7.3.4 CI set on 2026-12-06
	# and, that evening, one boot of the 6.12.95 set (text patching
	# racing the other vCPU's stale translation; never seen on 6.1): one
	# host thread for both vCPUs unless SRPT_VM_TCG_THREAD says otherwise.
	# The cause, 2026-12-07: QEMU 7.2's TCG translates guest code without
	# the page lock, so a vCPU translating a site while another writes it
	# keeps the old INT3 for good (tools/int3-race/ reproduces it on
	# 6.12.95, multi-threaded only; Documentation/testing.rst).
	# bookworm-backports' QEMU (10.0.2 on 2026-12-07, SRPT_VM_QEMU from
	# tools/check.sh) takes the page lock before it translates: the
	# reproducer saw no stale INT3 in 14,000 flips on 6.12.95 and 7.3.4,
	# against 1092 of 2000 with 7.2, so only the host's QEMU gets one
	# thread.
	case ${SRPT_VM_QEMU:-host}:$release in
	host:6.[1-9][0-9].* | host:[7-9].*) echo "export SRPT_VM_TCG_THREAD='${SRPT_VM_TCG_THREAD:-single}'" ;;
	esac
}

# vm_root SERIES: the Debian 13 root with what the series' headers need;
# empty for a series that boots with the host's root (bpo-6.12).
vm_root() {
	fetch "$1"
	load "$1"
	[ "$chroot" = 1 ] || return 0
	# shellcheck disable=SC2086 # a list of package names
	root_ensure $external
	echo "$root_dir"
}

# qemu_ensure: the QEMU the VM tests boot with (tools/check.sh), fetched
# with the private apt state: bookworm-backports' qemu-system-x86 with its
# -common and -data packages and the seabios it needs (newer than Debian
# 12's: trixie's), unpacked into $qemu_cache/VERSION/root; prints that
# root.  Its libraries are Debian 12's, all on the host with its own
# qemu-system-x86 (install-deps.sh).  Why not the host's QEMU 7.2: its
# multi-threaded TCG can run a stale translation of code another vCPU
# has just patched (tools/int3-race/; it is why 6.12 and later boot with
# one TCG thread on it), and bookworm-backports' runs the VM tests
# faster (Documentation/testing.rst, 2026-12-07 evening).  A version
# fetched once is kept, no network access then, unless
# SRPT_KERNELS_REFRESH=1.
qemu_cache=${SRPT_QEMU_CACHE:-/var/cache/ib_srpt/qemu}
qemu_ensure() {
	_q=$(find "$qemu_cache" -mindepth 4 -maxdepth 4 -path '*/root/usr/bin' 2>/dev/null | sort -V | tail -n 1)
	if [ -n "$_q" ] && [ "${SRPT_KERNELS_REFRESH:-0}" != 1 ]; then
		echo "${_q%/usr/bin}"
		return 0
	fi
	apt_update
	_v=$(newest_version bookworm-backports '*' qemu-system-x86)
	[ -n "$_v" ] || die "no qemu-system-x86 in bookworm-backports"
	_sv=$(newest_version trixie '*' seabios)
	[ -n "$_sv" ] || die "no seabios in trixie"
	_d=$qemu_cache/$_v
	if [ ! -x "$_d/root/usr/bin/qemu-system-x86_64" ]; then
		say "downloading QEMU $_v (bookworm-backports), seabios $_sv (trixie)"
		rm -rf "$_d/debs" "$_d/root.tmp"
		mkdir -p "$_d/debs" "$_d/root.tmp"
		(cd "$_d/debs" && apt_get download "qemu-system-x86=$_v" "qemu-system-common=$_v" \
			"qemu-system-data=$_v" "seabios=$_sv" >/dev/null) ||
			die "apt-get download of QEMU $_v failed"
		for _f in "$_d"/debs/*.deb; do
			dpkg-deb -x "$_f" "$_d/root.tmp" || die "dpkg-deb -x $_f failed"
		done
		rm -rf "$_d/root"
		mv "$_d/root.tmp" "$_d/root"
		rm -rf "$_d/debs"
	fi
	_missing=$(ldd "$_d/root/usr/bin/qemu-system-x86_64" | awk '/not found/ { print $1 }' | xargs)
	[ -z "$_missing" ] || die "QEMU $_v needs libraries the host lacks: $_missing"
	echo "$_d/root"
}

# As the Makefile picks it: the newest kernel with headers installed.
host_release() {
	find /lib/modules -mindepth 2 -maxdepth 2 -name build 2>/dev/null |
		sed 's,/lib/modules/,,;s,/build,,' | sort -V | tail -n 1
}

list() {
	echo "# kernels in $cache"
	host=$(host_release)
	echo "host: ${host:-none}${host:+ (KDIR=/lib/modules/$host/build, built on the host)}"
	for s in $all_series; do
		if [ ! -f "$cache/$s/.complete" ]; then
			echo "$s: not fetched"
			continue
		fi
		load "$s"
		echo "$s: $release ($version, $cc)"
		echo "    KDIR=$kdir"
		echo "    SRPT_VM_KERNEL=$vmlinuz"
		echo "    SRPT_VM_MODULES=$modules ($(find "$modules" -name '*.ko*' | wc -l) modules)"
		[ "$chroot" = 0 ] || echo "    built in $chroot_dir$(
			[ -f "$chroot_dir/usr/src/linux-headers-$release/.config" ] || echo " (headers not yet there)")"
	done
	echo "sizes:"
	du -sh "$cache" "$chroot_dir" 2>/dev/null | sed 's/^/    /'
}

# module_sources: the files of this tree the modules are built from (what
# DKMS gets, MODULE_SRC, and the IB CM test initiator), relative to $top.
module_sources() {
	# shellcheck disable=SC2016 # a make rule
	printf 'kernels-src:\n\t@echo $(MODULE_SRC)\n' |
		make -s --no-print-directory -C "$top" -f Makefile -f - kernels-src |
		tr ' ' '\n'
	(cd "$top" && find tools/ibcm-initiator -type f ! -name '*.o' ! -name '*.ko' \
		! -name '*.mod*' ! -name '.*' ! -name Module.symvers ! -name modules.order)
}

# build SERIES [MAKEARG...]: both modules from a copy of this tree, in
# build/kernels/RELEASE/ (the copy, the .ko files and build.log).
build() {
	s=$1
	shift
	[ $# -gt 0 ] || set -- W=1
	prefix=
	if [ "$s" = host ]; then
		rel=$(host_release)
		[ -n "$rel" ] || die "no kernel headers on the host"
		kdir=/lib/modules/$rel/build
		out=$top/build/kernels/$rel
		src=$out/src
	else
		fetch "$s"
		load "$s"
		rel=$release
		out=$top/build/kernels/$rel
		src=$out/src
	fi
	rm -rf "$out"
	mkdir -p "$out/src/tools"
	# What DKMS gets (MODULE_SRC), plus the IB CM test initiator.
	# shellcheck disable=SC2016 # a make rule
	srcs=$(printf 'kernels-src:\n\t@echo $(MODULE_SRC)\n' |
		make -s --no-print-directory -C "$top" -f Makefile -f - kernels-src)
	# shellcheck disable=SC2086 # a list of file names
	(cd "$top" && cp $srcs "$out/src/") || die "copying the sources failed"
	cp -r "$top/tools/ibcm-initiator" "$out/src/tools/"
	if [ "$s" != host ] && [ "$chroot" = 1 ]; then
		chroot_headers "$s"
		# per checkout: another tree may build the same release at once
		src=/build$top/$rel
		kdir=/usr/src/linux-headers-$rel
		prefix="chroot $chroot_dir"
		rm -rf "${chroot_dir:?}$src"
		mkdir -p "$(dirname "$chroot_dir$src")"
		cp -r "$out/src" "$chroot_dir$src"
		if ! mountpoint -q "$chroot_dir/proc"; then
			mount -t proc proc "$chroot_dir/proc"
			trap 'umount "$chroot_dir/proc"' EXIT INT TERM
		fi
	fi
	# C=1 or C=2: a sparse that the series' Makefile accepts (sparse_check).
	check=
	case " $* " in
	*" C="*) [ -z "$prefix" ] || check=$(sparse_check "$s") ;;
	esac
	say "building for $rel: make $*${check:+ $check} modules (ib_srpt, then tools/ibcm-initiator)"
	rc=0
	ini=tools/ibcm-initiator
	# shellcheck disable=SC2086 # prefix is empty or "chroot DIR"; check one word or none
	{
		$prefix make -C "$src" KVER="$rel" KDIR="$kdir" "$@" $check modules || rc=1
		$prefix make -C "$kdir" M="$src/$ini" "$@" $check modules || rc=1
	} >"$out/build.log" 2>&1
	root=
	[ -z "$prefix" ] || root=$chroot_dir
	cp "$root$src/ib_srpt.ko" "$root$src/$ini/srp_ibcm_ini.ko" "$out/" 2>/dev/null || rc=1
	n=$(grep -c -E 'warning:|error:|WARNING:' "$out/build.log" || true)
	echo "$rel: $([ $rc = 0 ] && echo built || echo FAILED), $n warning/error lines (log: $out/build.log)"
	grep -E 'warning:|error:|WARNING:' "$out/build.log" || true
	return $rc
}

cmd=${1:-fetch}
case $cmd in
fetch) shift $(($# > 0 ? 1 : 0)) ;;
list|kdir|env|vmenv|root|build|source|qemu) shift ;;
*) cmd=fetch ;;
esac
[ "$(id -u)" = 0 ] || [ "$cmd" = list ] || die "run as root (dpkg-deb, depmod, chroot)"
# One kernels.sh at a time changes the cache and the chroot (make
# check-kernels-ci builds the next kernel while the VM tests of the one
# before run): a lock on the cache, taken once (a build vmenv starts is
# a child of the holder, SRPT_KERNELS_LOCKED set), given back on exit.
if [ "$cmd" != list ] && [ -z "${SRPT_KERNELS_LOCKED:-}" ]; then
	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	export SRPT_KERNELS_LOCKED=1
fi

case $cmd in
fetch)
	# shellcheck disable=SC2086 # a list of series
	[ $# -gt 0 ] || set -- $all_series
	for s; do fetch "$s"; done
	for s; do
		series_info "$s"
		[ "$in_chroot" = 0 ] || chroot_headers "$s"
	done
	list
	;;
list) list ;;
kdir)
	fetch "$1"
	sed -n 's/^kdir=//p' "$cache/$1/info"
	;;
env)
	fetch "$1"
	load "$1"
	echo "KVER=$release"
	echo "KDIR=$kdir"
	echo "SRPT_VM_KERNEL=$vmlinuz"
	echo "SRPT_VM_MODULES=$modules"
	[ "$chroot" = 0 ] || echo "SRPT_KERNEL_CHROOT=$chroot_dir"
	;;
build) build "$@" ;;
root) vm_root "$1" ;;
vmenv) vmenv "$1" ;;
source) source_tarball "$1" ;;
qemu) qemu_ensure ;;
esac

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# intree.sh: the driver in each Debian kernel's own source tree (issue 25):
# the kernel's drivers/infiniband/ulp/srpt replaced by "make kernel-patch",
# then built with "make M=drivers/infiniband/ulp/srpt" and Debian's config.
#
#   tools/intree.sh available SERIES     exit 0 when the series' source is
#                                        there, else print why not, exit 1
#   tools/intree.sh info SERIES          rel, root (the chroot or empty),
#                                        icache, modules (the kernel's own,
#                                        as the host sees them): KEY=VALUE
#   tools/intree.sh prepare SERIES       the prepared tree (cached); prints
#                                        its path as the host sees it
#   tools/intree.sh build SERIES PATCH   apply PATCH to the prepared tree
#                                        and build; ib_srpt.ko, its compiler
#                                        command line (ib_srpt.o.cmd), the
#                                        logs and times in
#                                        build/intree/RELEASE/
#
# SERIES as in tools/kernels.sh: host (the newest kernel with headers
# installed, Debian 12's 6.1, source /usr/src/linux-source-X.Y.tar.xz),
# bpo-6.12, trixie-6.12, trixie-bpo (fetched by "tools/kernels.sh fetch",
# source by "tools/kernels.sh source SERIES"; nothing is fetched here).
#
# A prepared tree is the source tarball unpacked, with what Debian's own
# build of that kernel left in its headers package: .config,
# .kernelvariables (KERNELRELEASE, CC), Module.symvers (modversions) and,
# where the headers have it, vmlinux (BTF of modules); then "make
# olddefconfig modules_prepare".  It does not depend on the patch: it is
# kept in $SRPT_INTREE_CACHE (/var/cache/ib_srpt/intree)/RELEASE/, keyed by
# the checksums of those inputs and the compiler's version, with the
# kernel's own srpt directory in srpt.orig/, which every build puts back
# before applying the patch and after building.  Trixie's kernels are
# prepared and built in the Debian 13 chroot of tools/kernels.sh (gcc-14),
# their cache at the same path inside it; proc is mounted there for objtool
# during a run only.  Heavy steps run under nice -n 19.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kcache=${SRPT_KERNELS_CACHE:-/var/cache/ib_srpt/kernels}
chroot_dir=${SRPT_KERNELS_CHROOT:-/var/cache/ib_srpt/chroot/trixie}
icache=${SRPT_INTREE_CACHE:-/var/cache/ib_srpt/intree}
jobs=${SRPT_INTREE_JOBS:-$(nproc)}
srpt=drivers/infiniband/ulp/srpt
# What modules_prepare needs beyond the chroot tools/kernels.sh makes.
chroot_pkgs="gcc flex bison bc libelf-dev libssl-dev python3 openssl rustc rust-src bindgen"

die() { echo "intree.sh: $*" >&2; exit 1; }
say() { echo "intree.sh: $*" >&2; }

# series SERIES: rel, hdr (the headers, as the host sees them), tarball and
# root (the chroot, or empty), or why_not when the source is missing.
series() {
	why_not=
	root=
	case $1 in
	host)
		rel=$(find /lib/modules -mindepth 2 -maxdepth 2 -name build 2>/dev/null |
			sed 's,/lib/modules/,,;s,/build,,' | sort -V | tail -n 1)
		[ -n "$rel" ] || { why_not="no kernel headers in /lib/modules"; return 0; }
		hdr=$(readlink -f "/lib/modules/$rel/build")
		modules=/lib/modules/$rel
		tarball=/usr/src/linux-source-$(echo "$rel" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/').tar.xz
		[ -f "$tarball" ] ||
			why_not="$tarball missing (apt-get install $(basename "$tarball" .tar.xz))"
		;;
	bpo-6.12|trixie-6.12|trixie-bpo)
		info=$kcache/$1/info
		if [ ! -f "$info" ]; then
			why_not="$1 not fetched, nor its source (tools/kernels.sh source $1 fetches both)"
			return 0
		fi
		rel=$(sed -n 's/^release=//p' "$info")
		hdr=$(sed -n 's/^kdir=//p' "$info")
		modules=$(sed -n 's/^modules=//p' "$info")
		tarball=$kcache/$rel/usr/src/linux-source-$(echo "$rel" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/').tar.xz
		[ -f "$tarball" ] ||
			why_not="the source of $rel is not fetched (tools/kernels.sh source $1)"
		[ "$(sed -n 's/^chroot=//p' "$info")" = 0 ] || root=$chroot_dir
		;;
	*) die "unknown series '$1' (host bpo-6.12 trixie-6.12 trixie-bpo)" ;;
	esac
	tree=$icache/$rel
}

# in_root CMD...: CMD in the series' userspace (the host or the chroot),
# niced, in the prepared tree's linux/.
in_root() {
	if [ -n "$root" ]; then
		# shellcheck disable=SC2016 # expanded by the inner sh
		chroot "$root" sh -c 'cd "$1" && shift && exec nice -n 19 "$@"' sh "$tree/linux" "$@"
	else
		(cd "$tree/linux" && nice -n 19 "$@")
	fi
}

mounted_proc=0
chroot_ready() {
	[ -n "$root" ] || return 0
	[ -f "$root/.complete" ] || die "no Debian 13 chroot in $root (tools/kernels.sh fetch trixie-6.12 makes it)"
	missing=
	for p in $chroot_pkgs; do
		# shellcheck disable=SC2016 # a dpkg-query format
		chroot "$root" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		say "installing into the chroot:$missing"
		# shellcheck disable=SC2086 # a list of package names
		chroot "$root" sh -c "apt-get -q update >/dev/null &&
			DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends $missing" >&2 ||
			die "apt-get install in the chroot failed"
	fi
	if ! mountpoint -q "$root/proc"; then
		mount -t proc proc "$root/proc"
		mounted_proc=1
	fi
}
cleanup() {
	[ "$mounted_proc" = 0 ] || umount "$root/proc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The kernel's own srpt directory back in place.
restore() {
	rm -rf "${root}${tree:?}/linux/$srpt"
	cp -a "$root$tree/srpt.orig" "$root$tree/linux/$srpt"
}

# key: what the prepared tree is made of.
key() {
	sha256sum "$tarball" | cut -d' ' -f1
	for f in .config .kernelvariables Module.symvers vmlinux; do
		[ ! -f "$hdr/$f" ] || echo "$f $(sha256sum "$hdr/$f" | cut -d' ' -f1)"
	done
	# The compiler .kernelvariables names, as make sees it.
	in_root sh -c "make -s -f .kernelvariables -f - cc <<'EOF'
cc:
	@\$(CC) --version | head -n 1
EOF"
	echo "recipe 1"
}

# lock: one run at a time on a prepared tree.
lock() {
	mkdir -p "$root$icache"
	exec 9>"$root$icache/$rel.lock"
	flock 9
}

prepare() {
	h=$root$tree
	lock
	chroot_ready
	if [ -f "$h/.complete" ] && [ -d "$h/linux" ] && key >"$h/key.now" 2>&1 &&
		cmp -s "$h/key" "$h/key.now"; then
		restore
		say "$rel: prepared tree cached in $h"
		echo "$h"
		return 0
	fi
	say "$rel: preparing $h from $(basename "$tarball")"
	t0=$(date +%s)
	rm -rf "$h"
	mkdir -p "$h/linux"
	nice -n 19 tar -xf "$tarball" -C "$h/linux" --strip-components=1 ||
		die "unpacking $tarball failed"
	for f in .config .kernelvariables Module.symvers vmlinux; do
		[ ! -f "$hdr/$f" ] || cp "$hdr/$f" "$h/linux/"
	done
	[ -f "$h/linux/.config" ] || die "$hdr has no .config"
	cp -a "$h/linux/$srpt" "$h/srpt.orig"
	key >"$h/key" 2>&1 || die "$rel: no compiler ($(cat "$h/key"))"
	t1=$(date +%s)
	in_root make -j"$jobs" olddefconfig modules_prepare >"$h/prepare.log" 2>&1 || {
		tail -n 30 "$h/prepare.log" >&2
		die "$rel: make olddefconfig modules_prepare failed (log: $h/prepare.log)"
	}
	t2=$(date +%s)
	# Debian's config as it was: olddefconfig changed no option.  What
	# Kconfig finds out about the tools (their versions, what they
	# support: a rustc in PATH, for one) may differ from Debian's build
	# machine; config.diff keeps that, and an option it changed shows.
	# RUST_IS_AVAILABLE is such a finding (scripts/rust_is_available.sh):
	# Debian built 6.12.118 without a Rust toolchain, the chroot has one
	# (7.x's config needs it), and CONFIG_RUST stays as Debian set it.
	toolvars='CONFIG_[A-Z0-9_]*_VERSION(_TEXT)?=|CONFIG_(CC|AS|LD|RUSTC|TOOLS)_(HAS|SUPPORTS|CAN|IS)_|CONFIG_RUST_IS_AVAILABLE='
	grep '^CONFIG_' "$hdr/.config" | sort >"$h/config.debian"
	grep '^CONFIG_' "$h/linux/.config" | sort >"$h/config.tree"
	diff "$h/config.debian" "$h/config.tree" >"$h/config.diff" || true
	if grep '^[<>]' "$h/config.diff" | grep -v -E "^[<>] ($toolvars)" >&2; then
		die "$rel: olddefconfig changed Debian's config (above; $h/config.diff)"
	fi
	echo "unpack $((t1 - t0)) s, olddefconfig modules_prepare $((t2 - t1)) s" >"$h/times"
	touch "$h/.complete"
	say "$rel: prepared in $((t2 - t0)) s ($(cat "$h/times"))"
	echo "$h"
}

build() {
	patch=$(readlink -f "$1")
	[ -f "$patch" ] || die "no patch $1"
	prepare >/dev/null
	h=$root$tree
	out=$top/build/intree/$rel
	rm -rf "$out"
	mkdir -p "$out"
	restore
	t0=$(date +%s)
	(cd "$h/linux" && patch -p1 -F0 --no-backup-if-mismatch <"$patch") >"$out/patch.log" 2>&1 || {
		cat "$out/patch.log" >&2
		restore
		die "$rel: the patch does not apply (log: $out/patch.log)"
	}
	rc=0
	in_root make -j"$jobs" M="$srpt" >"$out/build.log" 2>&1 || rc=1
	t1=$(date +%s)
	cp "$h/linux/$srpt/ib_srpt.ko" "$out/" 2>/dev/null || rc=1
	# The compiler's command line: which features the Makefile's tests found.
	cp "$h/linux/$srpt/.ib_srpt.o.cmd" "$out/ib_srpt.o.cmd" 2>/dev/null || rc=1
	restore
	n=$(grep -c -E 'warning:|error:|WARNING:' "$out/build.log" || true)
	echo "build $((t1 - t0)) s" >"$out/times"
	[ ! -f "$h/times" ] || echo "prepared: $(cat "$h/times")" >>"$out/times"
	echo "$rel: applied, $([ $rc = 0 ] && echo built || echo FAILED), $n warning/error lines, $((t1 - t0)) s (log: $out/build.log)"
	grep -E 'warning:|error:|WARNING:' "$out/build.log" || true
	return $rc
}

[ $# -ge 2 ] || die "usage: $0 available|info|prepare|build SERIES [PATCH]"
cmd=$1
series "$2"
case $cmd in
available)
	[ -z "$why_not" ] || { echo "$why_not"; exit 1; }
	[ "$(id -u)" = 0 ] || { echo "needs root (writes $icache; chroot)"; exit 1; }
	;;
info)
	[ -z "$why_not" ] || die "$why_not"
	printf 'rel=%s\nroot=%s\nicache=%s\nmodules=%s\n' "$rel" "$root" "$icache" "$modules"
	;;
prepare|build)
	[ -z "$why_not" ] || die "$why_not"
	[ "$(id -u)" = 0 ] || die "run as root (writes $icache; chroot)"
	if [ "$cmd" = build ]; then
		[ $# = 3 ] || die "build: name the patch (make kernel-patch)"
		build "$3"
	else
		prepare
	fi
	;;
*) die "unknown command '$cmd'" ;;
esac

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: issue 25's "Oops: int3" reproducer (int3_race.c says what it does).
#
#   tools/int3-race/run.sh [SERIES [multi|single|build [PARAM=VALUE...]]]
#
# Builds int3_race.ko for SERIES (host, the default: Debian 12's 6.1;
# bpo-6.12, trixie-6.12, trixie-bpo as tools/kernels.sh has them; trixie's
# in its Debian 13 chroot, whose headers "tools/kernels.sh build SERIES"
# unpacked) into build/int3-race/RELEASE/, then boots that kernel once
# through tools/vm/vmtest (it takes the machine-wide VM lock) with QEMU's
# TCG multi-threaded (the default here) or single-threaded (build: no
# boot), and runs
# int3-race.t in the guest: it loads the module with the PARAMs (rounds,
# seconds, jitter_us) and prints the counts as TAP.  Its last check, "no
# INT3 executed after text_poke_bp() replaced it", failing is the
# reproduction; it is not part of make check (a race: a pass proves
# nothing, and the result depends on QEMU, not on this project's code).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
series=${1:-host}
[ $# -eq 0 ] || shift
mode=${1:-multi}
[ $# -eq 0 ] || shift
case $mode in
multi|single|build) ;;
*) echo "run.sh: TCG mode '$mode': multi, single (or build: no boot)" >&2; exit 2 ;;
esac

prefix='' croot=''
if [ "$series" = host ]; then
	rel=$(find /lib/modules -mindepth 2 -maxdepth 2 -name build 2>/dev/null |
		sed 's,/lib/modules/,,;s,/build,,' | sort -V | tail -n 1)
	[ -n "$rel" ] || { echo "run.sh: no kernel headers on the host" >&2; exit 1; }
	kdir=/lib/modules/$rel/build
else
	env=$("$top/tools/kernels.sh" env "$series")
	rel=$(echo "$env" | sed -n 's/^KVER=//p')
	kdir=$(echo "$env" | sed -n 's/^KDIR=//p')
	croot=$(echo "$env" | sed -n 's/^SRPT_KERNEL_CHROOT=//p')
fi
out=$top/build/int3-race/$rel
rm -rf "$out"
mkdir -p "$out/src"
cp "$top/tools/int3-race/Kbuild" "$top/tools/int3-race/int3_race.c" "$out/src/"
src=$out/src
if [ -n "$croot" ]; then
	kdir=/usr/src/linux-headers-$rel
	[ -d "$croot$kdir" ] || {
		echo "run.sh: no $kdir in $croot: run tools/kernels.sh build $series once" >&2
		exit 1
	}
	src=/build$top/int3-race-$rel
	rm -rf "${croot:?}$src"
	mkdir -p "$(dirname "$croot$src")"
	cp -r "$out/src" "$croot$src"
	prefix="chroot $croot"
	if ! mountpoint -q "$croot/proc"; then
		mount -t proc proc "$croot/proc"
		trap 'umount "$croot/proc"' EXIT INT TERM
	fi
fi
# shellcheck disable=SC2086 # prefix is empty or "chroot DIR"
if ! $prefix make -C "$kdir" M="$src" W=1 modules >"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	exit 1
fi
cp "$croot$src/int3_race.ko" "$out/"
echo "$*" >"$out/args"
[ "$mode" != build ] || { echo "run.sh: built $out/int3_race.ko" >&2; exit 0; }
echo "run.sh: $rel, TCG thread=$mode, int3_race.ko ${*:-(default parameters)}" >&2
if [ "$series" = host ]; then
	SRPT_VM_TCG_THREAD=$mode "$top/tools/vm/vmtest" "$top/tools/int3-race/int3-race.t"
else
	SRPT_KERNEL=$series SRPT_VM_TCG_THREAD=$mode \
		"$top/tools/vm/vmtest" "$top/tools/int3-race/int3-race.t"
fi

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh [--dir|--config]: the debug kernel of "make check-debug" (KASAN, UBSAN,
# lockdep, kmemleak, debugobjects, atomic-sleep checks) from Debian's
# linux-source-6.1: x86_64_defconfig with debug.config merged in, every
# option of the fragment checked in the final .config.
#
# The result is cached outside the git tree, in a directory named by the
# source package's version and a hash of the fragment:
#
#   $SRPT_DEBUG_KERNEL_CACHE/<version>-<hash>/   (/var/cache/ib_srpt/debug-kernel)
#     bzImage          the kernel (vmtest: SRPT_VM_KERNEL)
#     lib/modules/REL  its modules, stripped (vmtest: SRPT_VM_MODULES)
#     build/           the build tree (KDIR for external modules)
#     release          REL, the kernel release (6.1.N-srpt-debug)
#     done             written last: the cache is complete
#
# tools/debug-kernel/patches/*.patch (fixes to the kernel's own code that
# would otherwise fill the debug reports, each explained in its header) are
# applied to the source in name order; the cache counts as complete only
# for the set of patches it was built with (patches.sum), and a new patch
# rebuilds incrementally.
#
# With the cache complete this is a no-op.  An interrupted build resumes
# (make is incremental).  --dir prints the cache directory and exits;
# --config writes and checks the .config, then stops.  The
# build runs under "nice -n 19" with SRPT_DEBUG_KERNEL_JOBS (2) jobs: it
# shares the machine with timing-sensitive VM tests.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug.config
pkg=linux-source-6.1
tarball=/usr/src/$pkg.tar.xz
root=${SRPT_DEBUG_KERNEL_CACHE:-/var/cache/ib_srpt/debug-kernel}
jobs=${SRPT_DEBUG_KERNEL_JOBS:-2}

die() { echo "debug-kernel: $*" >&2; exit 1; }

ver=$(dpkg-query -W -f='${Version}' $pkg 2>/dev/null) ||
	die "$pkg is not installed (tools/install-deps.sh installs it)"
[ -f "$tarball" ] || die "no $tarball (reinstall $pkg)"
hash=$({ echo "$pkg $ver"; cat "$frag"; } | sha256sum | cut -c1-12)
dir=$root/$ver-$hash

case ${1:-} in
--dir) echo "$dir"; exit 0 ;;
--config|"") ;;
*) die "usage: $0 [--dir|--config]" ;;
esac

patches=$(find "$here/patches" -name '*.patch' 2>/dev/null | sort)
# shellcheck disable=SC2086
psum=$(cat /dev/null $patches | sha256sum | cut -c1-12)
cache_complete() {
	[ -f "$dir/done" ] && [ "$(cat "$dir/patches.sum" 2>/dev/null)" = "$psum" ]
}

if cache_complete; then
	echo "debug-kernel: cached: $dir ($(cat "$dir/release"))"
	exit 0
fi

mkdir -p "$dir"
# One build per cache directory at a time.
exec 8>"$dir/.lock"
flock 8
cache_complete && { echo "debug-kernel: cached: $dir"; exit 0; }
rm -f "$dir/done"

src=$dir/build
if [ ! -f "$src/.extracted" ]; then
	echo "debug-kernel: extracting $tarball ($pkg $ver)"
	rm -rf "$src"
	mkdir -p "$src"
	nice -n 19 tar -xJf "$tarball" -C "$src" --strip-components=1
	touch "$src/.extracted"
fi

# Each patch once: one that reverses cleanly is in already.
for p in $patches; do
	if patch -d "$src" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1; then
		continue
	fi
	echo "debug-kernel: applying ${p##*/}"
	patch -d "$src" -p1 -s -f -N <"$p" || die "${p##*/} does not apply"
done

kmake() { nice -n 19 make -C "$src" -j"$jobs" "$@"; }

# The config: defconfig, the fragment merged in, Kconfig's defaults for the
# rest.  Rewritten only when it changes, so a resumed build stays
# incremental.
new=$dir/config.new
(cd "$src" && env -u KCONFIG_CONFIG scripts/kconfig/merge_config.sh -m -O "$dir" \
	arch/x86/configs/x86_64_defconfig "$frag" >"$dir/merge.log" 2>&1) ||
	{ cat "$dir/merge.log" >&2; die "merge_config.sh failed"; }
# merge_config.sh -O writes $dir/.config.
mv "$dir/.config" "$new"
kmake -s KCONFIG_CONFIG="$new" olddefconfig >>"$dir/merge.log" 2>&1 ||
	{ cat "$dir/merge.log" >&2; die "olddefconfig failed"; }
rm -f "$new.old"

# Every option of the fragment must have survived: merge_config.sh and
# olddefconfig silently drop what lacks a dependency.
missing=0
while IFS= read -r line; do
	case $line in
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$new"; then
			echo "debug-kernel: $opt should be off: $(grep "^$opt=" "$new")" >&2
			missing=1
		fi
		;;
	CONFIG_*=m)
		opt=${line%%=*}
		if ! grep -qx "$opt=[my]" "$new"; then
			echo "debug-kernel: $opt=m wanted, .config has: $(grep "^$opt=\|^# $opt " "$new" || echo nothing)" >&2
			missing=1
		fi
		;;
	CONFIG_*=*)
		if ! grep -qxF "$line" "$new"; then
			opt=${line%%=*}
			echo "debug-kernel: $line wanted, .config has: $(grep "^$opt=\|^# $opt " "$new" || echo nothing)" >&2
			missing=1
		fi
		;;
	esac
done <"$frag"
[ $missing -eq 0 ] || die "options of $frag missing from the final .config (see above)"

if ! cmp -s "$new" "$src/.config"; then
	cp "$new" "$src/.config"
fi
rm -f "$new"
rel=$(kmake -s kernelrelease)
[ "${1:-}" != --config ] || { echo "debug-kernel: $src/.config checked ($rel)"; exit 0; }
case $rel in
*-srpt-debug) ;;
*) die "unexpected kernel release '$rel'" ;;
esac

echo "debug-kernel: building $rel in $src (nice -n 19, -j$jobs; log: $dir/build.log)"
start=$(date +%s)
kmake bzImage modules >"$dir/build.log" 2>&1 ||
	{ tail -n 40 "$dir/build.log" >&2; die "kernel build failed (log: $dir/build.log)"; }
rm -rf "${dir:?}/lib"
kmake INSTALL_MOD_PATH="$dir" INSTALL_MOD_STRIP=1 modules_install >>"$dir/build.log" 2>&1 ||
	{ tail -n 20 "$dir/build.log" >&2; die "modules_install failed"; }
cp "$src/arch/x86/boot/bzImage" "$dir/bzImage"
[ -z "$(find "$dir/lib/modules/$rel" -name 'ib_srpt.ko*')" ] ||
	die "the build has an in-tree ib_srpt.ko (CONFIG_INFINIBAND_SRPT must be off)"
echo "$rel" >"$dir/release"
echo "$psum" >"$dir/patches.sum"
touch "$dir/done"
echo "debug-kernel: built $rel in $(( ($(date +%s) - start) / 60 )) min: $dir"

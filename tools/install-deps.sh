#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian 12 package that building, testing and the VM harness
# of ib_srpt need.  Idempotent: packages already present are left alone and
# "apt-get update" only runs when something is missing.
set -eu

PKGS="build-essential kmod bc flex bison libelf-dev libssl-dev dwarves
      linux-image-amd64 linux-headers-amd64 linux-source-6.1 xz-utils
      sparse perl python3
      qemu-system-x86 busybox-static cpio
      targetcli-fb python3-rtslib-fb dbus
      rdma-core ibverbs-utils rdmacm-utils libibverbs-dev librdmacm-dev
      libibumad-dev
      infiniband-diags srptools
      fio sg3-utils iproute2 util-linux dmsetup
      clang llvm libclang-rt-14-dev patch
      debhelper dh-dkms dkms lintian shellcheck python3-docutils pyflakes3
      linux-perf python3-matplotlib
      mmdebstrap debian-archive-keyring"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing; run as root" >&2
	exit 1
fi

echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkinitrd.sh KVER OUT [MODDIR]: a tiny initramfs (busybox-static and the
# modules that mount the host root over 9p with a tmpfs overlay), then
# switch_root into it and run the guest script named by srpt.init= on the
# kernel command line.
# srpt.root=DIR: the root is the host's DIR (a Debian 13 root, vmtest's
# SRPT_VM_ROOT) instead of the host's /, and each directory of
# srpt.share=P1,P2,... (parents before children) is the host's own at the
# same path, with an overlay of its own: the checkout, its build/, the
# kernel's modules and headers.
# MODDIR (default /lib/modules/KVER) holds the kernel's modules; those
# built in (the debug kernel's) are simply not found.
set -eu
kver=$1 out=$2
mods=${3:-/lib/modules/$kver}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib/modules" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/newroot" "$tmp/host" "$tmp/rw"
cp /bin/busybox "$tmp/bin/busybox"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci \
	 netfs fscache 9pnet 9pnet_virtio 9p overlay; do
	f=$(find "$mods/kernel" -name "$m.ko*" | head -n 1)
	[ -n "$f" ] && cp "$f" "$tmp/lib/modules/"
done
cat >"$tmp/init" <<'EOI'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay; do
	for f in /lib/modules/$m.ko*; do [ -e "$f" ] && insmod "$f"; done
done
arg() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" /proc/cmdline; }
# The host's root is read-only here and nothing a test reads from it
# changes while the guest runs, so the guest caches it (cache=loose:
# lookups, attributes and pages stay in the guest instead of a round trip
# to QEMU each, with messages of up to 500 KiB): t-io 104 -> 72 s,
# t-targetcli 88 -> 66 s on 6.1 (Documentation/testing.rst).  vmtest's
# SRPT_VM_9P (srpt.9p=) replaces these options, e.g. cache=none.
o9p=$(arg srpt.9p)
mount -t 9p -o "trans=virtio,version=9p2000.L,ro,${o9p:-cache=loose,msize=512000}" hostroot /host
mount -t tmpfs tmpfs /rw; mkdir -p /rw/upper /rw/work
root=$(arg srpt.root)
mount -t overlay overlay -o lowerdir=/host$root,upperdir=/rw/upper,workdir=/rw/work /newroot
i=0
for p in $(arg srpt.share | tr , ' '); do
	i=$((i + 1))
	mkdir -p /rw/share$i/upper /rw/share$i/work /newroot$p
	mount -t overlay overlay -o lowerdir=/host$p,upperdir=/rw/share$i/upper,workdir=/rw/share$i/work /newroot$p
done
mkdir -p /newroot/results
mount -t 9p -o trans=virtio,version=9p2000.L results /newroot/results
init=$(arg srpt.init)
umount /proc /sys; umount /dev
exec switch_root /newroot "$init"
EOI
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkinitrd.sh KVER OUT [MODDIR]: a tiny initramfs (busybox-static and the
# modules that mount the host root over 9p with a tmpfs overlay), then
# switch_root into it and run the guest script named by srpt.init= on the
# kernel command line.
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
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot /host
mount -t tmpfs tmpfs /rw; mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot
mkdir -p /newroot/results
mount -t 9p -o trans=virtio,version=9p2000.L results /newroot/results
init=$(sed -n 's/.*srpt.init=\([^ ]*\).*/\1/p' /proc/cmdline)
umount /proc /sys; umount /dev
exec switch_root /newroot "$init"
EOI
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"

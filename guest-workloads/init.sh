#!/bin/busybox sh
# vmscale guest /init: mount the basics, fetch the run script, run it, power off.
# The script comes from QEMU's fw_cfg (opt/vmscale/run) or gem5's m5 readfile.
export PATH=/bin:/sbin
busybox mount -t proc proc /proc
busybox mount -t sysfs sysfs /sys
busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
busybox mount -t tmpfs tmpfs /tmp
# The m5 mode, read once before a checkpoint: a restored run pays for every process it
# starts (a fork and an exec with cold caches, ~2 ms simulated), and the mode cannot change.
mode=$(m5 mode)
echo "VMSCALE-BOOTED cpus=$(busybox nproc) kernel=$(busybox uname -r) m5=$mode"

# gem5 boot-once flow: checkpoint after boot, then take the per-run script.
if busybox grep -q "vmscale.checkpoint=1" /proc/cmdline; then
	echo "VMSCALE-CHECKPOINT"
	m5 checkpoint
fi

fwcfg=/sys/firmware/qemu_fw_cfg/by_name/opt/vmscale/run/raw
if [ -r "$fwcfg" ]; then
	busybox cat "$fwcfg" > /tmp/run.sh
elif [ "$mode" != off ]; then
	m5 readfile > /tmp/run.sh
fi
if [ -s /tmp/run.sh ]; then
	VMSCALE_M5=$mode sh /tmp/run.sh
else
	echo "VMSCALE-ERROR no run script (neither fw_cfg opt/vmscale/run nor m5 readfile)"
fi
echo "VMSCALE-HALT"
busybox sync
[ "$mode" != off ] && m5 exit
busybox poweroff -f

# SPDX-License-Identifier: GPL-2.0
# R2 with Debian's real LXC (cgroup v2): a busybox container whose config
# allows 195 but not the uvm major, NVIDIA nodes bind-mounted. Inside, the
# uvm nodes fail with EPERM; pagetrail records one denial per open with
# the container init's host pid and cgroup; `pagetrail devices
# --lxc-config` diagnoses it per node from the config; with its line added
# (the devpath form, which LXC resolves to the node's major:minor at start)
# and the container restarted, the nodes cuInit needs open, and only the
# one left out (nvidia-uvm-tools: optional, not asked for) is denied.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 19

R=/tmp/r2
CG=/sys/fs/cgroup
dfield() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# ct_start: start container r2 from $R/config, wait for its /result
ct_start() {
	rm -f $R/rootfs/result
	lxc-start -n r2 -f $R/config -d -l DEBUG -o $R/lxc.log
	local rc=$? i=0
	while [ $rc = 0 ] && [ ! -e $R/rootfs/result ] && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	[ -e $R/rootfs/result ] && return 0
	note "lxc-start rc=$rc; lxc.log:"
	grep -E 'ERROR|WARN' $R/lxc.log | head -n 40 >&2
	return 1
}
ct_stop() { lxc-stop -n r2 -k; }

command -v lxc-start > /dev/null || bail "no lxc-start in the guest (runvm -t lxc)"
insmod /pt/modules/nvsim.ko
UVM=$(awk '$2 == "nvidia-uvm" { print $1 }' /proc/devices)
mknod -m 666 /dev/nvidia0 c 195 0 && mknod -m 666 /dev/nvidiactl c 195 255 &&
	mknod -m 666 /dev/nvidia-uvm c "$UVM" 0 && mknod -m 666 /dev/nvidia-uvm-tools c "$UVM" 1
ok $? "nvsim loaded, nodes made (uvm at $UVM)"
insmod /pt/modules/pagetrail.ko target=nosuchdriver devcg=1 $PT_LAYOUT_595
ok $? "pagetrail loads with devcg=1"

mkdir -p $R/rootfs/bin $R/rootfs/dev $R/rootfs/proc $R/rootfs/sys $R/rootfs/tmp \
	/var/lib/lxc /run/lxc /var/log/lxc
cp /bin/busybox /pt/bin/devcg_bpf $R/rootfs/bin/
ln -sf busybox $R/rootfs/bin/sh
cat > $R/config <<EOF
# R2's shape (Proxmox privileged container, cgroup v2), in LXC's syntax
lxc.uts.name = r2
lxc.rootfs.path = dir:$R/rootfs
lxc.net.0.type = empty
lxc.apparmor.profile = unconfined
lxc.seccomp.profile =
lxc.autodev = 1
lxc.tty.max = 0
lxc.pty.max = 1
lxc.console.path = none
lxc.mount.auto = proc:mixed sys:ro
lxc.cgroup2.devices.deny = a
lxc.cgroup2.devices.allow = c 1:3 rwm
lxc.cgroup2.devices.allow = c 1:5 rwm
lxc.cgroup2.devices.allow = c 1:7 rwm
lxc.cgroup2.devices.allow = c 1:8 rwm
lxc.cgroup2.devices.allow = c 1:9 rwm
lxc.cgroup2.devices.allow = c 5:0 rwm
lxc.cgroup2.devices.allow = c 5:1 rwm
lxc.cgroup2.devices.allow = c 5:2 rwm
lxc.cgroup2.devices.allow = c 136:* rwm
lxc.cgroup2.devices.allow = c 195:* rwm
lxc.mount.entry = /dev/nvidia0 dev/nvidia0 none bind,optional,create=file
lxc.mount.entry = /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
lxc.mount.entry = /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
lxc.mount.entry = /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file
lxc.init.cmd = /bin/devcg_bpf open -o /result --hold /dev/nvidia0 /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-uvm-tools
EOF

ct_start
ok $? "lxc-start: the container runs (init opens the nodes)"
cat $R/rootfs/result >&2
is "$(cut -d' ' -f2,4 $R/rootfs/result | tr '\n' ' ')" \
	"/dev/nvidia0 ok /dev/nvidiactl ok /dev/nvidia-uvm err=EPERM /dev/nvidia-uvm-tools err=EPERM " \
	"inside: 195 opens, the uvm nodes fail with EPERM (mode 0666)"
P=$(lxc-info -n r2 -p -H 2>/dev/null)
[ -n "$P" ] || P=$(head -n1 $CG/lxc.payload.r2/cgroup.procs 2>/dev/null)
CGP=$(sed -n 's/^0:://p' /proc/$P/cgroup)
diag "container init: host pid $P, cgroup $CGP"
grep '^id=' $PT/denials > /tmp/lxc.den
cat $PT/denials >&2
grep -v ' comm=devcg_bpf ' /tmp/lxc.den | while read -r l; do diag "LXC itself: $l"; done
grep ' comm=devcg_bpf ' /tmp/lxc.den > /tmp/lxc.mine
is "$(wc -l < /tmp/lxc.mine)" 2 "exactly one denial per denied open in the container (2)"
is "$(while read -r l; do echo "$(dfield pid "$l") $(dfield dev "$l") $(dfield name "$l") $(dfield access "$l") $(dfield path "$l")"; done < /tmp/lxc.mine | tr '\n' '|')" \
	"$P $UVM:0 nvidia-uvm rw /dev/nvidia-uvm|$P $UVM:1 nvidia-uvm rw /dev/nvidia-uvm-tools|" \
	"each: the init's host pid, device, name, access, node path"
L=$(head -n1 /tmp/lxc.mine)
is "$(dfield source "$L") $(dfield cgroup "$L")" "bpf $CGP" "denied by LXC's BPF device program, in the container's cgroup"
like "$CGP" "lxc.payload.r2" "that cgroup is LXC's payload cgroup"

# One command from the config.
pagetrail devices --lxc-config $R/config > /tmp/lxc.dev
is "$?" 1 "pagetrail devices --lxc-config: exit 1"
cat /tmp/lxc.dev >&2
# Per node, as LXC's program decides it: 195:* admits nvidiactl and
# nvidia0; nothing admits nvidia-uvm (cuInit needs it) or uvm-tools
# (profilers only: optional).
is "$(grep -E '^  (ok|MISSING|OPTIONAL) +c [0-9]+:[0-9]+ ' /tmp/lxc.dev | awk '{ print $1, $3, $4 }' | tr '\n' '|')" \
	"ok 195:255 /dev/nvidiactl|ok 195:0 /dev/nvidia0|MISSING $UVM:0 /dev/nvidia-uvm|OPTIONAL $UVM:1 /dev/nvidia-uvm-tools|" \
	"per node: nvidiactl, nvidia0 admitted; nvidia-uvm missing; uvm-tools optional"
like "$(grep "^  MISSING  c $UVM:0 " /tmp/lxc.dev)" "nvidia-uvm: not admitted: opens fail with EPERM, cuInit returns 999" \
	"nvidia-uvm: EPERM, cuInit 999"
is "$(grep -c '^  ok       c 195:[0-9]* .*admitted by line 22: lxc.cgroup2.devices.allow = c 195:\* rwm$' /tmp/lxc.dev)" 2 \
	"both 195 nodes admitted by line 22"
# For plain LXC the line to add is the devpath form for the node cuInit
# needs (no hard-coded dynamic major); the optional uvm-tools is not asked.
FIX=$(sed -n 's/^  add: //p' /tmp/lxc.dev)
is "$FIX" "lxc.cgroup2.devices.allow = /dev/nvidia-uvm rw" "the line to add: the devpath form"
like "$(pagetrail denials | sed -n '/(devcg_bpf)/{n;p}' | head -n1)" "would be admitted by: dev0: /dev/nvidia-uvm \(Proxmox; the next free devN\) or lxc.cgroup2.devices.allow = /dev/nvidia-uvm rw \(LXC\)" \
	"pagetrail denials names the entries that admit the denied node (devN, devpath)"

ct_stop
echo "$FIX" >> $R/config
N0=$(grep '^id=' $PT/denials | grep -c ' comm=devcg_bpf ')
ct_start
ok $? "restarted with the corrected config"
pagetrail devices --lxc-config $R/config > /tmp/lxc.fixed
is "$?:$(grep -cE '^  (MISSING|STALE)' /tmp/lxc.fixed)" "0:0" "corrected config: exit 0, nothing missing"
cat /tmp/lxc.fixed >&2
# LXC stat()s /dev/nvidia-uvm at start: the rule is c $UVM:0 rw, that node only.
is "$(cut -d' ' -f2,4 $R/rootfs/result | tr '\n' ' ')" \
	"/dev/nvidia0 ok /dev/nvidiactl ok /dev/nvidia-uvm ok /dev/nvidia-uvm-tools err=EPERM " \
	"the nodes cuInit needs open in the container; uvm-tools (not asked for) still EPERM"
is "$(grep '^id=' $PT/denials | grep ' comm=devcg_bpf ' | tail -n +$((N0 + 1)) | while read -r l; do dfield dev "$l"; done | tr '\n' ' ')" \
	"$UVM:1 " "one new denial: uvm-tools, the minor the devpath rule does not name"
ct_stop
diag "all denials: $(grep -c '^id=' $PT/denials)"
rmmod pagetrail
ok $? "rmmod pagetrail"
nvsim_rmmod
for n in nvidia0 nvidiactl nvidia-uvm nvidia-uvm-tools; do rm -f /dev/$n; done
done_testing

# SPDX-License-Identifier: GPL-2.0
# Prediction versus reality, under Debian's LXC in the guest. Two Proxmox
# container files: 101 passes the NVIDIA nodes as devN entries (Proxmox VE
# 8.1+; nvidia-uvm-tools with deny-write=1), 102 has only the base config
# (common.conf) and bind-mounts the nodes. `pagetrail devices` reads each
# Proxmox file and says per node whether the policy admits a read-write
# open. Each container is then started from the LXC config pve-container's
# update_lxc_config writes for that file (the base include, one rule per
# devN from a stat() at start, the node made and bind-mounted by its hooks,
# then the file's lxc.* lines); its init opens every node read-write, as
# cuInit does, and each open must get what pagetrail said: ok or EPERM.
# While each container runs, `pagetrail devices --attached` reads the device
# program the kernel has in effect for its cgroup (bpf(2), as bpftool
# cgroup show does) and runs it on each node: that too must match the opens.
# Last, 102 with pagetrail's corrected lines applied (devN entries instead
# of the bind mounts) opens the nodes cuInit needs.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 29

R=/tmp/pv
CG=/sys/fs/cgroup
NODES="/dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm /dev/nvidia-uvm-tools"
dfield() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# pve_lxc ID: $R/ID/config, the LXC config pve-container's update_lxc_config
# (src/PVE/LXC.pm) writes for $R/ID.conf: lxc.include of <ostype>.common.conf
# (here $R/common.conf, which has common.conf's device lines), per devN entry
# "lxc.cgroup2.devices.allow = c MAJ:MIN rw" from a stat() now, or "r" and
# "lxc.cgroup2.devices.deny = c MAJ:MIN w" with deny-write=1; the node its
# prestart hook makes under passthrough/ (mode= or 0660) and its autodev hook
# bind-mounts into /dev; then the file's lxc.* lines (key in column 1); then
# what this guest needs to run the busybox init that opens $NODES.
pve_lxc() {
	local id=$1 d=$R/$1 spec path perm maj min mode
	rm -rf $d
	mkdir -p $d/rootfs/bin $d/rootfs/dev $d/rootfs/proc $d/rootfs/sys $d/passthrough/dev
	cp /bin/busybox /pt/bin/devcg_bpf $d/rootfs/bin/
	{
		echo "lxc.include = $R/common.conf"
		sed -n 's/^dev[0-9]*: *//p' $R/$id.conf | while IFS= read -r spec; do
			path=${spec%%,*}
			maj=$((0x$(stat -c %t "$path"))) min=$((0x$(stat -c %T "$path")))
			perm=rw
			case ",$spec," in *,deny-write=1,*) perm=r ;; esac
			mode=$(echo ",$spec," | sed -n 's/.*,mode=\([0-7]*\),.*/\1/p')
			echo "lxc.cgroup2.devices.allow = c $maj:$min $perm"
			[ $perm = r ] && echo "lxc.cgroup2.devices.deny = c $maj:$min w"
			mknod -m "${mode:-0660}" $d/passthrough$path c $maj $min
			echo "lxc.mount.entry = $d/passthrough$path ${path#/} none bind,create=file 0 0"
		done
		sed -n 's/^\(lxc\.[a-z0-9.]*\): */\1 = /p' $R/$id.conf
		cat <<EOF
lxc.uts.name = ct$id
lxc.rootfs.path = dir:$d/rootfs
lxc.net.0.type = empty
lxc.apparmor.profile = unconfined
lxc.seccomp.profile =
lxc.autodev = 1
lxc.tty.max = 0
lxc.pty.max = 1
lxc.console.path = none
lxc.mount.auto = proc:mixed sys:ro
lxc.init.cmd = /bin/devcg_bpf open -o /result --hold $NODES
EOF
	} > $d/config
}

# ct_run ID [CONF]: start container ctID from $R/ID/config, wait for its
# init's /result; while it runs, pagetrail devices --attached on its cgroup
# into $R/ID/attached.dev (and with --lxc-config CONF into differs.dev);
# stop it. $P is the init's host pid.
ct_run() {
	local d=$R/$1 rc i=0
	rm -f $d/rootfs/result
	lxc-start -n ct$1 -f $d/config -d -l DEBUG -o $d/lxc.log
	rc=$?
	while [ $rc = 0 ] && [ ! -e $d/rootfs/result ] && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	P=$(head -n1 $CG/lxc.payload.ct$1/cgroup.procs 2>/dev/null)
	# the init's own cgroup: what is in effect there is what it runs under
	C=$CG$(sed -n 's/^0:://p' /proc/$P/cgroup 2>/dev/null)
	pagetrail devices --attached $C > $d/attached.dev 2>&1
	cat $d/attached.dev >&2
	if [ -n "${2:-}" ]; then
		pagetrail devices --lxc-config "$2" --attached $C > $d/differs.dev 2>&1
		cat $d/differs.dev >&2
	fi
	lxc-stop -n ct$1 -k
	cat $d/rootfs/result >&2
	[ -e $d/rootfs/result ] && return 0
	note "lxc-start rc=$rc; lxc.log:"
	grep -E 'ERROR|WARN' $d/lxc.log | head -n 40 >&2
	return 1
}

# predicted FILE: per node of $NODES, "PATH ok" where pagetrail's output
# says the policy admits it, "PATH err=EPERM" where it says not admitted
predicted() {
	local n
	for n in $NODES; do
		awk -v n="$n" '$1 ~ /^(ok|MISSING|OPTIONAL)$/ && $2 == "c" && $4 == n {
			print n, ($1 == "ok" ? "ok" : /not admitted/ ? "err=EPERM" : "?:" $1) }' "$1"
	done | tr '\n' ' '
}
# kernel_says FILE: the same from the KERNEL lines of --attached: the
# program in effect run on each node
kernel_says() {
	local n
	for n in $NODES; do
		awk -v n="$n" '$1 == "KERNEL" && $2 == "c" && $4 == n {
			print n, (/ admitted / ? "ok" : / denied by program id / ? "err=EPERM" : "?") }' "$1"
	done | tr '\n' ' '
}
actual() { cut -d' ' -f2,4 $R/$1/rootfs/result | tr '\n' ' '; }
# denied ID: the denials the module recorded for container ctID's init,
# as "MAJ:MIN source" each
denied() { grep '^id=' $PT/denials | grep " pid=$P .* comm=devcg_bpf " | while read -r l; do
	echo "$(dfield dev "$l") $(dfield source "$l")"; done | tr '\n' ' '; }

command -v lxc-start > /dev/null || bail "no lxc-start in the guest (runvm -t lxc)"
insmod /pt/modules/nvsim.ko
U=$(awk '$2 == "nvidia-uvm" { print $1 }' /proc/devices)
mknod -m 666 /dev/nvidia0 c 195 0 && mknod -m 666 /dev/nvidiactl c 195 255 &&
	mknod -m 666 /dev/nvidia-uvm c "$U" 0 && mknod -m 666 /dev/nvidia-uvm-tools c "$U" 1
ok $? "nvsim loaded, nodes made (nvidia-uvm at $U)"
insmod /pt/modules/pagetrail.ko target=nosuchdriver devcg=1 $PT_LAYOUT_595
ok $? "pagetrail loads with devcg=1"
mkdir -p $R /var/lib/lxc /run/lxc /var/log/lxc

# The device lines of LXC's shipped common.conf (the same in Debian's 5.0.2
# and 6.0): every Proxmox container includes it. No NVIDIA device in it.
cat > $R/common.conf <<EOF
lxc.cgroup.devices.deny = a
lxc.cgroup.devices.allow = c *:* m
lxc.cgroup.devices.allow = b *:* m
lxc.cgroup.devices.allow = c 1:3 rwm
lxc.cgroup.devices.allow = c 1:5 rwm
lxc.cgroup.devices.allow = c 1:7 rwm
lxc.cgroup.devices.allow = c 5:0 rwm
lxc.cgroup.devices.allow = c 5:1 rwm
lxc.cgroup.devices.allow = c 5:2 rwm
lxc.cgroup.devices.allow = c 1:8 rwm
lxc.cgroup.devices.allow = c 1:9 rwm
lxc.cgroup.devices.allow = c 136:* rwm
lxc.cgroup.devices.allow = c 10:229 rwm
lxc.cgroup2.devices.deny = a
lxc.cgroup2.devices.allow = c *:* m
lxc.cgroup2.devices.allow = b *:* m
lxc.cgroup2.devices.allow = c 1:3 rwm
lxc.cgroup2.devices.allow = c 1:5 rwm
lxc.cgroup2.devices.allow = c 1:7 rwm
lxc.cgroup2.devices.allow = c 5:0 rwm
lxc.cgroup2.devices.allow = c 5:1 rwm
lxc.cgroup2.devices.allow = c 5:2 rwm
lxc.cgroup2.devices.allow = c 1:8 rwm
lxc.cgroup2.devices.allow = c 1:9 rwm
lxc.cgroup2.devices.allow = c 136:* rwm
lxc.cgroup2.devices.allow = c 10:229 rwm
EOF

# 101: devN entries. pve-container writes c 195:0 rw, c 195:255 rw, c U:0 rw
# and for deny-write c U:1 r plus a deny of w, which in allow-list mode LXC
# leaves out (it equals no earlier allow): U:1 admits reads only, and a
# read-write open of nvidia-uvm-tools is denied. The node, not the major.
cat > $R/101.conf <<EOF
arch: amd64
hostname: devn
ostype: debian
dev0: /dev/nvidia0
dev1: /dev/nvidiactl
dev2: /dev/nvidia-uvm,mode=0666
dev3: /dev/nvidia-uvm-tools,deny-write=1
EOF
E101="/dev/nvidiactl ok /dev/nvidia0 ok /dev/nvidia-uvm ok /dev/nvidia-uvm-tools err=EPERM "
pagetrail devices --lxc-config $R/101.conf > $R/101.dev
is "$?" 0 "101 (devN): pagetrail devices: exit 0, nothing breaks CUDA init"
cat $R/101.dev >&2
is "$(predicted $R/101.dev)" "$E101" "101: predicted per node: the three cuInit nodes admitted, uvm-tools (read only) not"
pve_lxc 101
cat $R/101/config >&2
pagetrail devices --lxc-config $R/101/config > $R/101/lxc.dev
cat $R/101/lxc.dev >&2
is "$(predicted $R/101/lxc.dev)" "$E101" "101: the same per node from the LXC config pve-container writes"
ct_run 101
ok $? "101: the container starts, its init opens each node read-write"
is "$(actual 101)" "$E101" "101: in the container: the three cuInit nodes open, uvm-tools EPERM"
is "$(actual 101)" "$(predicted $R/101.dev)" "101: prediction = reality, node by node"
is "$(denied 101)" "$U:1 bpf " "101: one denial, nvidia-uvm-tools, by LXC's BPF program"
is "$(kernel_says $R/101/attached.dev)" "$(actual 101)" "101: the program in effect (read back, run on each node) = reality"

# 102: only the base config; the nodes bind-mounted (R2 without the allow
# line). common.conf admits no NVIDIA node: every open is denied.
cat > $R/102.conf <<EOF
arch: amd64
hostname: base
ostype: debian
lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file
lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file
EOF
E102="/dev/nvidiactl err=EPERM /dev/nvidia0 err=EPERM /dev/nvidia-uvm err=EPERM /dev/nvidia-uvm-tools err=EPERM "
pagetrail devices --lxc-config $R/102.conf > $R/102.dev
is "$?" 1 "102 (base only): pagetrail devices: exit 1, CUDA init would fail"
cat $R/102.dev >&2
is "$(predicted $R/102.dev)" "$E102" "102: predicted per node: none admitted"
is "$(grep -c '^  MISSING  c ' $R/102.dev)" 3 "102: the three cuInit nodes are MISSING (uvm-tools is optional)"
pve_lxc 102
pagetrail devices --lxc-config $R/102/config > $R/102/lxc.dev
cat $R/102/lxc.dev >&2
is "$(predicted $R/102/lxc.dev)" "$E102" "102: the same per node from the LXC config pve-container writes"
ct_run 102 $R/101.conf
ok $? "102: the container starts, its init opens each node read-write"
is "$(actual 102)" "$E102" "102: in the container: every node EPERM (mode 0666)"
is "$(actual 102)" "$(predicted $R/102.dev)" "102: prediction = reality, node by node"
is "$(denied 102)" "195:255 bpf 195:0 bpf $U:0 bpf $U:1 bpf " "102: one denial per open, each by LXC's BPF program"
is "$(kernel_says $R/102/attached.dev)" "$(actual 102)" "102: the program in effect (read back, run on each node) = reality"
# 101's config admits the three cuInit nodes; 102's running program denies
# them: --attached says where config and kernel differ.
is "$(grep '^  DIFFERS ' $R/102/differs.dev | awk '{ print $4 }' | tr '\n' ' ')" "/dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm " \
	"101's config against 102's running program: nvidiactl, nvidia0, nvidia-uvm differ"

# 102 with the corrected lines applied: the bind mounts of the nodes cuInit
# needs removed, devN entries added (pve-container then makes the nodes and
# one rule each). uvm-tools is optional: still bind-mounted, still denied.
sed -n 's/^  remove line \([0-9]*\): .*/-e \1d/p' $R/102.dev > $R/102.rm
sed -n 's/^  add: //p' $R/102.dev > $R/102.add
is "$(sed 's/^-e \([0-9]*\)d$/\1/' $R/102.rm | tr '\n' ' ')" "4 5 6 " "fix: remove the bind mounts of nvidia0, nvidiactl, nvidia-uvm (lines 4-6)"
is "$(sed 's/^dev[0-9]*: //' $R/102.add | sort | tr '\n' ' ')" "/dev/nvidia-uvm /dev/nvidia0 /dev/nvidiactl " \
	"fix: a devN entry for each node cuInit needs, no hard-coded major"
is "$(sed 's/:.*//' $R/102.add | sort | tr '\n' ' ')" "dev0 dev1 dev2 " "fix: devN numbered from dev0"
sed -i $(cat $R/102.rm) $R/102.conf
cat $R/102.add >> $R/102.conf
cat $R/102.conf >&2
E102F="/dev/nvidiactl ok /dev/nvidia0 ok /dev/nvidia-uvm ok /dev/nvidia-uvm-tools err=EPERM "
pagetrail devices --lxc-config $R/102.conf > $R/102f.dev
is "$?" 0 "102 corrected: exit 0"
cat $R/102f.dev >&2
is "$(predicted $R/102f.dev)" "$E102F" "102 corrected: predicted: the cuInit nodes admitted, uvm-tools not"
pve_lxc 102
ct_run 102
ok $? "102 corrected: the container starts"
is "$(actual 102)" "$(predicted $R/102f.dev)" "102 corrected: prediction = reality, node by node"
is "$(denied 102)" "$U:1 bpf " "102 corrected: the only denial is nvidia-uvm-tools"
is "$(kernel_says $R/102/attached.dev)" "$(actual 102)" "102 corrected: the program in effect = reality"

rmmod pagetrail
nvsim_rmmod
for n in nvidia0 nvidiactl nvidia-uvm nvidia-uvm-tools; do rm -f /dev/$n; done
done_testing

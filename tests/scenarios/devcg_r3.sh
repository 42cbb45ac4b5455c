# SPDX-License-Identifier: GPL-2.0
# R3 end to end: the container config allowed 195, 504 and 507 (nvidia-uvm
# and nvidia-caps before the kernel upgrade); after it nvidia-uvm is 509,
# nvidia-caps 237, nvidia-caps-imex-channels 238. nvsim plays both sides;
# `pagetrail devices --lxc-config` decides per node: nvidia-uvm (509:0) is
# missing, nvidia-caps and IMEX are optional (cuInit does not open them),
# 504 and 507 are stale; the fix is a devN entry for nvidia-uvm (Proxmox
# stat()s it at every start and makes the node, so the bind mount goes)
# instead of a hard-coded major. With it applied (the cgroup v2 device
# program LXC builds from what pve-container writes) the container's task
# opens nvidia-uvm; nvidia-uvm-tools, not asked for, stays denied.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 29

CG=/sys/fs/cgroup
in_cg() { sh -c 'echo $$ > "$0"; exec "$@"' "$@"; }
major_of() { awk -v n="$1" '$2 == n { print $1 }' /proc/devices; }
# devn_lines FILE DIR: what pve-container writes for FILE's devN entries
# (update_lxc_config in src/PVE/LXC.pm: per entry the node stat()ed now,
# "lxc.cgroup2.devices.allow = c MAJ:MIN rw", or "r" plus a deny of "w"
# with deny-write=1), and the node its prestart hook makes under DIR and
# its autodev hook bind-mounts into /dev (here an lxc.mount.entry)
devn_lines() {
	local spec path perm maj min mode
	sed -n 's/^dev[0-9]*: *//p' "$1" | while IFS= read -r spec; do
		path=${spec%%,*}
		maj=$((0x$(stat -c %t "$path"))) min=$((0x$(stat -c %T "$path")))
		perm=rw
		case ",$spec," in *,deny-write=1,*) perm=r ;; esac
		mode=$(echo ",$spec," | sed -n 's/.*,mode=\([0-7]*\),.*/\1/p')
		echo "lxc.cgroup2.devices.allow = c $maj:$min $perm"
		[ $perm = r ] && echo "lxc.cgroup2.devices.deny = c $maj:$min w"
		mkdir -p "$2${path%/*}"
		rm -f "$2$path"
		mknod -m "${mode:-0660}" "$2$path" c $maj $min
		echo "lxc.mount.entry = $2$path ${path#/} none bind,create=file 0 0"
	done
}
# allow_rules FILE: the allow rules LXC gets from a Proxmox config: its
# devN entries' and its own lxc.cgroup2.devices.allow lines
allow_rules() {
	devn_lines "$1" /tmp/r3/passthrough | sed -n 's/^lxc\.cgroup2\.devices\.allow = //p'
	sed -n 's/^lxc\.cgroup2\.devices\.allow *[:=] *\(.*\)$/\1/p' "$1"
}
# char_major_name MAJOR: the character device that has MAJOR now, if any
char_major_name() { awk -v m="$1" '/^Block/ { exit } $1 == m { print $2 }' /proc/devices; }
dfield() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# lxc_r3: run container r3 once under Debian's LXC with the devN entries
# and lxc.* lines of /tmp/r3/129.conf, as pve-container hands them to LXC;
# its init opens
# nvidia0 and nvidia-uvm into /result; $P is its host pid
R=/tmp/r3ct
lxc_r3() {
	local i=0
	mkdir -p $R/rootfs/bin $R/rootfs/dev $R/rootfs/proc $R/rootfs/sys /var/lib/lxc /run/lxc
	cp /bin/busybox /pt/bin/devcg_bpf $R/rootfs/bin/
	{
		cat <<EOF
lxc.uts.name = r3
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
lxc.cgroup2.devices.allow = c 136:* rwm
lxc.init.cmd = /bin/devcg_bpf open -o /result --hold /dev/nvidia0 /dev/nvidia-uvm
EOF
		devn_lines /tmp/r3/129.conf $R/passthrough
		sed -n 's/^\(lxc\.[a-z0-9.]*\): */\1 = /p' /tmp/r3/129.conf
	} > $R/config
	rm -f $R/rootfs/result
	lxc-start -n r3 -f $R/config -d -l DEBUG -o $R/lxc.log || return 1
	while [ ! -e $R/rootfs/result ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
	P=$(head -n1 $CG/lxc.payload.r3/cgroup.procs 2>/dev/null)
	lxc-stop -n r3 -k
	[ -e $R/rootfs/result ] && return 0
	grep ERROR $R/lxc.log | head -n 20 >&2
	return 1
}
have_lxc=0
command -v lxc-start > /dev/null && have_lxc=1
# attach_from CGROUP CONFIG: the device program LXC builds from the config
attach_from() {
	local cg=$1 f=$2 r
	set --
	while IFS= read -r r; do set -- "$@" "$r"; done <<EOF
$(allow_rules "$f")
EOF
	devcg_bpf attach "$cg" "$@"
}

# Before the upgrade.
insmod /pt/modules/nvsim.ko uvm_major=504 caps_major=507
ok $? "before: nvsim with nvidia-uvm at 504, nvidia-caps at 507"
mkdir -p /tmp/r3
cat > /tmp/r3/129.conf <<EOF
arch: amd64
hostname: cuda129
memory: 65536
lxc.cgroup2.devices.allow: c 195:* rwm
lxc.cgroup2.devices.allow: c 504:* rwm
lxc.cgroup2.devices.allow: c 507:* rwm
lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
EOF
mknod -m 666 /dev/nvidia0 c 195 0 && mknod -m 666 /dev/nvidiactl c 195 255 &&
	mknod -m 666 /dev/nvidia-uvm c 504 0 && mknod -m 666 /dev/nvidia-uvm-tools c 504 1
pagetrail devices --lxc-config /tmp/r3/129.conf > /tmp/r3/before.out
rc=$?
cat /tmp/r3/before.out >&2
# Every node by 195:* or 504:*, nvidia-caps by 507:*; IMEX (dynamic, not
# in the file) is optional.
is "$rc:$(grep -E '^  ok +c ' /tmp/r3/before.out | awk '{ print $3 }' | tr '\n' ' ')" \
	"0:195:255 195:0 504:0 504:1 507:* " "before: exit 0; nvidiactl, nvidia0, both uvm nodes and nvidia-caps admitted"
nvsim_rmmod

# The upgrade: other drivers now hold the old dynamic majors' neighbours.
if insmod /pt/modules/nvsim.ko uvm_major=509 caps_major=237 imex_major=238 2>/dev/null; then
	ok 0 "after: nvsim with nvidia-uvm 509, nvidia-caps 237, imex 238 (R3's numbers)"
else
	insmod /pt/modules/nvsim.ko dev_pad=3
	ok $? "after: 237/238 are taken in this guest; dynamic majors shifted by dev_pad=3"
fi
U=$(major_of nvidia-uvm) C=$(major_of nvidia-caps) I=$(major_of nvidia-caps-imex-channels)
diag "after the upgrade: nvidia-uvm $U, nvidia-caps $C, nvidia-caps-imex-channels $I"
isnt "$U" 504 "nvidia-uvm moved"

# The node left from before: stale, and the open says why.
pagetrail devices > /tmp/r3/nodes.out
is "$?" 1 "pagetrail devices: exit 1 (a node CUDA needs is stale)"
cat /tmp/r3/nodes.out >&2
# 504 is no NVIDIA major now (another driver could take it): not opened.
like "$(grep ' /dev/nvidia-uvm ' /tmp/r3/nodes.out)" "c 504:0 .*STALE: nvidia-uvm is at major $U now \(mknod /dev/nvidia-uvm c $U 0\) not opened: its major is not a registered NVIDIA major" \
	"stale node: the old major, the new one, the mknod; not opened (504 is no NVIDIA major now)"
like "$(grep ' /dev/nvidia0 ' /tmp/r3/nodes.out)" "c 195:0 +0666 +nvidia,nvidiactl|c 195:0 +0666 +nvidia .*open: ok" \
	"nvidia0: 195:0, mode 0666, registered, opens"
rm -f /dev/nvidia-uvm /dev/nvidia-uvm-tools
pagetrail devices > /tmp/r3/nodes2.out
like "$(grep '/dev/nvidia-uvm ' /tmp/r3/nodes2.out)" "MISSING: nvidia-uvm is registered at $U; make it: mknod -m 666 /dev/nvidia-uvm c $U 0" \
	"absent node: MISSING with the mknod to run"
mknod -m 666 /dev/nvidia-uvm c "$U" 0 && mknod -m 666 /dev/nvidia-uvm-tools c "$U" 1
pagetrail devices > /tmp/r3/nodes3.out
is "$?" 0 "nodes re-made from /proc/devices: exit 0"

# The one command for R3.
pagetrail devices --lxc-config /tmp/r3/129.conf > /tmp/r3/after.out
is "$?" 1 "pagetrail devices --lxc-config: exit 1, CUDA init would fail"
cat /tmp/r3/after.out >&2
# Per node: 195:* still admits nvidiactl and nvidia0; nothing admits
# nvidia-uvm's node $U:0, which cuInit opens.
is "$(grep -o '^  MISSING  c [0-9]*:[0-9*]*' /tmp/r3/after.out | awk '{ print $3 }' | tr '\n' ' ')" \
	"$U:0 " "only nvidia-uvm ($U:0) is missing"
like "$(grep "^  MISSING  c $U:0 " /tmp/r3/after.out)" "/dev/nvidia-uvm +nvidia-uvm: not admitted: opens fail with EPERM, cuInit returns 999" \
	"the uvm node breaks cuInit"
# uvm-tools (profilers), nvidia-caps (MIG) and IMEX channels are not
# opened by cuInit: optional, not missing.
is "$(grep -o '^  OPTIONAL c [0-9]*:[0-9*]*' /tmp/r3/after.out | awk '{ print $3 }' | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "$U:1" "$C:*" "$I:*" | sort | tr '\n' ' ')" "uvm-tools, nvidia-caps ($C) and IMEX ($I) are optional"
# 504 and 507: stale where no character device has the major now, "now
# grants X" where another driver took it (reviewed then, not removed).
EXP_OLD= EXP_RM=
for l in 5:504 6:507; do
	if [ -n "$(char_major_name ${l#*:})" ]; then
		EXP_OLD="${EXP_OLD}NOWGRANTS line ${l%:*}: c ${l#*:}:*|"
	else
		EXP_OLD="${EXP_OLD}STALE line ${l%:*}: c ${l#*:}:*|"
		EXP_RM="$EXP_RM${l%:*} "
	fi
done
is "$(grep -E '^  (STALE|NOWGRANTS) +line [0-9]+: lxc.cgroup2.devices.allow: c [0-9]+:\*' /tmp/r3/after.out |
	sed 's/^  \([A-Z]*\) *\(line [0-9]*:\) lxc.cgroup2.devices.allow: \(c [0-9]*:\*\).*/\1 \2 \3/' | tr '\n' '|')" \
	"$EXP_OLD" "504 (line 5) and 507 (line 6): old dynamic majors"
# The fix in Proxmox syntax: a devN entry for the node cuInit needs (the
# file has none: dev0); Proxmox makes that node, so its bind mount (line
# 8) goes, and so do the stale lines.
is "$(sed -n 's/^  remove line \([0-9]*\): .*/\1/p' /tmp/r3/after.out | tr '\n' ' ')" "${EXP_RM}8 " \
	"remove the stale lines and line 8 (the bind mount of /dev/nvidia-uvm)"
grep '^  add: ' /tmp/r3/after.out | sed 's/^  add: //' > /tmp/r3/add.lines
is "$(cat /tmp/r3/add.lines | tr '\n' '|')" "dev0: /dev/nvidia-uvm|" \
	"the corrected line, in Proxmox syntax: dev0 for nvidia-uvm, no hard-coded major"

# The container as configured: uvm denied, recorded, explained.
insmod /pt/modules/pagetrail.ko target=nosuchdriver devcg=1 $PT_LAYOUT_595
ok $? "pagetrail loads with devcg=1"
mkdir -p $CG/lxc.payload.129
attach_from $CG/lxc.payload.129 /tmp/r3/129.conf >&2
in_cg $CG/lxc.payload.129/cgroup.procs devcg_bpf open /dev/nvidia0 /dev/nvidia-uvm > /tmp/r3/ct.out
is "$(cut -d' ' -f4 /tmp/r3/ct.out | tr '\n' ' ')" "ok err=EPERM " "stale policy: nvidia0 opens, nvidia-uvm EPERM"
pagetrail denials > /tmp/r3/den.out
cat /tmp/r3/den.out >&2
like "$(grep '^#1 ' /tmp/r3/den.out)" "denied rw c $U:0 \(nvidia-uvm\) /dev/nvidia-uvm: BPF device policy of cgroup /lxc.payload.129" \
	"the denial: uvm's new major, its name, the container's cgroup"
like "$(sed -n '/^#1 /{n;p}' /tmp/r3/den.out)" "would be admitted by: dev0: /dev/nvidia-uvm \(Proxmox; the next free devN\) or lxc.cgroup2.devices.allow = /dev/nvidia-uvm rw \(LXC\)" \
	"and the entries that admit it (devN, devpath: never the dynamic major $U)"

# The same in a real container.
if [ $have_lxc = 1 ]; then
	lxc_r3
	ok $? "R3 in LXC: the container starts with the stale config"
	is "$(cut -d' ' -f4 $R/rootfs/result | tr '\n' ' ')" "ok err=EPERM " "R3 in LXC: nvidia0 opens, nvidia-uvm EPERM"
	L=$(grep '^id=' $PT/denials | grep " pid=$P ")
	is "$(echo "$L" | grep -c .) $(dfield dev "$L") $(dfield source "$L") $(dfield cgroup "$L")" \
		"1 $U:0 bpf /lxc.payload.r3" "R3 in LXC: one denial, uvm's new major, LXC's program, the container's cgroup"
else
	for i in 1 2 3; do ok 0 "# SKIP no LXC in the guest (runvm -t lxc)"; done
fi

# Apply the corrected lines, restart (a new cgroup, a new program).
sed -i $(sed -n 's/^  remove line \([0-9]*\): .*/-e \1d/p' /tmp/r3/after.out) /tmp/r3/129.conf
cat /tmp/r3/add.lines >> /tmp/r3/129.conf
cat /tmp/r3/129.conf >&2
pagetrail devices --lxc-config /tmp/r3/129.conf > /tmp/r3/fixed.out
is "$?:$(grep -cE '^  (MISSING|STALE)' /tmp/r3/fixed.out)" "0:0" "corrected config: exit 0, no finding"
mkdir -p $CG/lxc.payload.129b
attach_from $CG/lxc.payload.129b /tmp/r3/129.conf >&2
N0=$(grep -c '^id=' $PT/denials)
in_cg $CG/lxc.payload.129b/cgroup.procs devcg_bpf open /dev/nvidia0 /dev/nvidiactl /dev/nvidia-uvm \
	/dev/nvidia-uvm-tools > /tmp/r3/ct2.out
# dev0 admits nvidia-uvm's node, c $U:0 rw, not the major: uvm-tools
# (optional, not asked for) stays denied.
is "$(cut -d' ' -f4 /tmp/r3/ct2.out | tr '\n' ' ')" "ok ok ok err=EPERM " \
	"after the fix the container opens nvidia0, nvidiactl, nvidia-uvm; uvm-tools EPERM"
is "$(grep '^id=' $PT/denials | tail -n +$((N0 + 1)) | field dev | tr '\n' ' ')" "$U:1 " \
	"and the only denial is uvm-tools ($U:1)"
if [ $have_lxc = 1 ]; then
	lxc_r3
	ok $? "R3 in LXC: restarted with the corrected lines"
	is "$(cut -d' ' -f4 $R/rootfs/result | tr '\n' ' ')" "ok ok " "R3 in LXC: the container opens nvidia-uvm"
	is "$(grep '^id=' $PT/denials | grep -c " pid=$P ")" 0 "R3 in LXC: no denial"
else
	for i in 1 2 3; do ok 0 "# SKIP no LXC in the guest (runvm -t lxc)"; done
fi

rmmod pagetrail
rmdir $CG/lxc.payload.129 $CG/lxc.payload.129b
nvsim_rmmod
for n in nvidia0 nvidiactl nvidia-uvm nvidia-uvm-tools; do rm -f /dev/$n; done
done_testing

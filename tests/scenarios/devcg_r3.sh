# SPDX-License-Identifier: GPL-2.0
# R3 end to end: the container config allowed 195, 504 and 507 (nvidia-uvm
# and nvidia-caps before the kernel upgrade); after it nvidia-uvm is 509,
# nvidia-caps 237, nvidia-caps-imex-channels 238. nvsim plays both sides;
# `pagetrail devices --lxc-config` names what is missing and stale and
# prints the lines; with them applied (the cgroup v2 device program LXC
# builds from the config) the container's task opens the node.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 27

CG=/sys/fs/cgroup
in_cg() { sh -c 'echo $$ > "$0"; exec "$@"' "$@"; }
major_of() { awk -v n="$1" '$2 == n { print $1 }' /proc/devices; }
# allow_rules FILE: the allow lines of an LXC/Proxmox config as rules
allow_rules() { sed -n 's/^lxc\.cgroup2\.devices\.allow *[:=] *\(.*\)$/\1/p' "$1"; }
dfield() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# lxc_r3: run container r3 once under Debian's LXC with the lxc.* lines of
# /tmp/r3/129.conf, as pve-container hands them to LXC; its init opens
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
is "$(grep -c '^  MISSING  c \(195\|504\|507\):' /tmp/r3/before.out)" 0 "before: 195, 504, 507 are all admitted"
rmmod nvsim

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
like "$(grep ' /dev/nvidia-uvm ' /tmp/r3/nodes.out)" "c 504:0 .*STALE: nvidia-uvm is at major $U now \(mknod /dev/nvidia-uvm c $U 0\) open: ENXIO: no driver is registered at 504:0" \
	"stale node: the old major, the new one, the mknod, ENXIO explained"
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
is "$(grep -o '^  MISSING  c [0-9]*' /tmp/r3/after.out | awk '{ print $3 }' | sort -n | tr '\n' ' ')" \
	"$(printf '%s\n' "$U" "$C" "$I" | sort -n | tr '\n' ' ')" "names $U, $C and $I as missing"
like "$(grep "^  MISSING  c $U:" /tmp/r3/after.out)" "nvidia-uvm +not allowed: opens fail with EPERM, cuInit returns 999" \
	"the uvm major breaks cuInit"
is "$(grep -o '^  STALE    line [0-9]*: lxc.cgroup2.devices.allow: c [0-9]*:\*' /tmp/r3/after.out | sed 's/^  STALE    //' | tr '\n' '|')" \
	"line 5: lxc.cgroup2.devices.allow: c 504:*|line 6: lxc.cgroup2.devices.allow: c 507:*|" \
	"504 (line 5) and 507 (line 6) are stale"
grep '^  add: ' /tmp/r3/after.out | sed 's/^  add: //' > /tmp/r3/add.lines
is "$(cat /tmp/r3/add.lines | sort | tr '\n' '|')" \
	"$(for m in $U $C $I; do echo "lxc.cgroup2.devices.allow: c $m:* rwm"; done | sort | tr '\n' '|')" \
	"the corrected lines, in Proxmox syntax"

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
like "$(sed -n '/^#1 /{n;p}' /tmp/r3/den.out)" "lxc.cgroup2.devices.allow = c $U:\* rwm" "and the line that admits it"

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
sed -i '/c 504:\* rwm/d;/c 507:\* rwm/d' /tmp/r3/129.conf
cat /tmp/r3/add.lines >> /tmp/r3/129.conf
pagetrail devices --lxc-config /tmp/r3/129.conf > /tmp/r3/fixed.out
is "$?:$(grep -cE '^  (MISSING|STALE)' /tmp/r3/fixed.out)" "0:0" "corrected config: exit 0, no finding"
mkdir -p $CG/lxc.payload.129b
attach_from $CG/lxc.payload.129b /tmp/r3/129.conf >&2
N0=$(grep -c '^id=' $PT/denials)
in_cg $CG/lxc.payload.129b/cgroup.procs devcg_bpf open /dev/nvidia0 /dev/nvidiactl /dev/nvidia-uvm \
	/dev/nvidia-uvm-tools > /tmp/r3/ct2.out
is "$(cut -d' ' -f4 /tmp/r3/ct2.out | tr '\n' ' ')" "ok ok ok ok " "after the fix the container opens the uvm nodes"
is "$(grep -c '^id=' $PT/denials)" "$N0" "and nothing is denied"
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
rmmod nvsim
for n in nvidia0 nvidiactl nvidia-uvm nvidia-uvm-tools; do rm -f /dev/$n; done
done_testing

# SPDX-License-Identifier: GPL-2.0
# Device-cgroup denials: a cgroup v2 BPF device program (what LXC generates
# for R2's config: 195 allowed, the uvm major not) and the cgroup v1 devices
# controller. Exactly one record per denied open with its device, name,
# access, task and cgroup; allowed opens record nothing; off by default;
# the major filter; the tracepoint; pagetrail denials.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 42

CG=/sys/fs/cgroup
D=$PT/denials
# in_cg PROCS-FILE CMD...: run CMD as a task that first joins that cgroup
in_cg() { sh -c 'echo $$ > "$0"; exec "$@"' "$@"; }
# dfield KEY LINE: one key=value of a denials line
dfield() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
denials() { grep '^id=' $D; }
ndenials() { denials | wc -l; }

insmod /pt/modules/nvsim.ko
ok $? "nvsim loads with NVIDIA's device families"
UVM=$(awk '$2 == "nvidia-uvm" { print $1 }' /proc/devices)
diag "/proc/devices: $(grep nvidia /proc/devices | tr '\n' ' ')"
is "$(awk '$2 == "nvidia" || $2 == "nvidiactl" { print $1 }' /proc/devices | tr '\n' ' ')" "195 195 " \
	"nvidia and nvidiactl are registered on 195"
mknod -m 666 /dev/nvidia0 c 195 0 && mknod -m 666 /dev/nvidiactl c 195 255 &&
	mknod -m 666 /dev/nvidia-uvm c "$UVM" 0 && mknod -m 666 /dev/nvidia-uvm-tools c "$UVM" 1
ok $? "nodes made from /proc/devices (uvm at $UVM), as nvidia-modprobe does"
insmod /pt/modules/pagetrail.ko target=nosuchdriver $PT_LAYOUT_595
ok $? "pagetrail loads"
is "$(kv devcg $PT/control)" 0 "recording denials is off by default"

# R2's policy as LXC builds it for cgroup v2: deny all, allow the listed.
mkdir -p $CG/r2
devcg_bpf attach $CG/r2 'c 195:* rwm' 'c 1:3 rwm' 'c 1:5 rwm' >&2
ok $? "BPF device program attached to $CG/r2 (195, null, zero allowed)"
in_cg $CG/r2/cgroup.procs devcg_bpf open /dev/nvidia-uvm > /tmp/off.out
is "$(ndenials)" 0 "while off, a denied open records nothing"

echo devcg=1 > $PT/control
ok $? "control: devcg=1"
is "$(kv devcg $PT/control)" 1 "control shows devcg=1"
in_cg $CG/r2/cgroup.procs devcg_bpf open /dev/nvidia0 /dev/nvidiactl /dev/nvidia-uvm \
	/dev/nvidia-uvm-tools /dev/nvidia-uvm > /tmp/r2.out
cat /tmp/r2.out >&2
P=$(sed -n '1s/.* pid=\([0-9]*\).*/\1/p' /tmp/r2.out)
is "$(cut -d' ' -f2,4 /tmp/r2.out | tr '\n' ' ')" \
	"/dev/nvidia0 ok /dev/nvidiactl ok /dev/nvidia-uvm err=EPERM /dev/nvidia-uvm-tools err=EPERM /dev/nvidia-uvm err=EPERM " \
	"inside: 195 opens, the uvm nodes fail with EPERM though mode is 0666"
cat $D >&2
is "$(ndenials)" 3 "exactly one denial per denied open (3), none for the 2 allowed"
is "$(denials | while read -r l; do echo "$(dfield dev "$l") $(dfield path "$l")"; done | tr '\n' ' ')" \
	"$UVM:0 /dev/nvidia-uvm $UVM:1 /dev/nvidia-uvm-tools $UVM:0 /dev/nvidia-uvm " \
	"each denial: major:minor and the node's path, in order"
L=$(denials | head -n1)
is "$(dfield pid "$L") $(dfield tgid "$L") $(dfield comm "$L")" "$P $P devcg_bpf" "the task: pid, tgid, comm"
is "$(dfield type "$L") $(dfield name "$L") $(dfield access "$L") $(dfield err "$L")" \
	"c nvidia-uvm rw -1" "char device, registered name, read+write, -EPERM"
is "$(dfield source "$L") $(dfield cgroup "$L")" "bpf /r2" "denied by the BPF program of cgroup /r2"
is "$(dfield cgroup_id "$L")" "$(stat -c %i $CG/r2)" "cgroup id is the cgroup directory's inode"
is "$(denials | grep -vc "pid=$P ")" 0 "no other task was denied"

# The ring: role deny, major/minor/access/errno in the documented fields.
grep 'role=deny' $PT/events > /tmp/deny.ev
is "$(wc -l < /tmp/deny.ev)" 3 "three deny records in events"
E=$(head -n1 /tmp/deny.ev)
is "$(dfield pid "$E") $(dfield alloc "$E") $(dfield idx "$E") $(dfield ret "$E") $(dfield aux "$E")" \
	"$P $UVM 0 -1 0x20206" "record: pid, alloc=major, idx=minor, ret=errno, aux=rw|char<<8|bpf<<16"
is "$(printf '%d' 0x$(dfield token "$E"))" "$(stat -c %i $CG/r2)" "record: token = cgroup id"

# Allowed opens only: nothing.
for i in 1 2 3 4 5; do
	in_cg $CG/r2/cgroup.procs devcg_bpf open /dev/nvidia0 /dev/nvidiactl > /dev/null
done
is "$(ndenials)" 3 "ten allowed opens add nothing"

# mknod of a denied device: access m, the path mknod named.
rm -f /tmp/uvm.node
in_cg $CG/r2/cgroup.procs mknod /tmp/uvm.node c "$UVM" 0 2>/dev/null
isnt $? 0 "mknod of the uvm major is denied"
L=$(denials | tail -n1)
is "$(dfield dev "$L") $(dfield access "$L") $(dfield path "$L") $(dfield comm "$L")" \
	"$UVM:0 m /tmp/uvm.node mknod" "mknod denial: access m, the path given, comm mknod"

# The major filter.
echo devcg_major=195 > $PT/control
ok $? "control: devcg_major=195"
in_cg $CG/r2/cgroup.procs devcg_bpf open /dev/nvidia-uvm > /dev/null
is "$(ndenials)" 4 "filtered to 195: a uvm denial is not recorded"
echo devcg_major=all > $PT/control
in_cg $CG/r2/cgroup.procs devcg_bpf open /dev/nvidia-uvm > /dev/null
is "$(ndenials)" 5 "devcg_major=all: recorded again"
echo devcg_major=x > $PT/control 2>/dev/null
isnt $? 0 "devcg_major=x is refused"

# The tracepoint, with the strings.
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
echo > $T/trace
echo 1 > $T/events/pagetrail/devcg_deny/enable
ok $? "pagetrail:devcg_deny exists and enables"
in_cg $CG/r2/cgroup.procs devcg_bpf open /dev/nvidia-uvm-tools > /tmp/tp.out
Q=$(sed -n 's/.* pid=\([0-9]*\).*/\1/p' /tmp/tp.out)
cat $D > /dev/null # opening denials waits for the strings
sleep 1
TL=$(grep devcg_deny $T/trace | tail -n1)
diag "$TL"
like "$TL" "pid=$Q tgid=$Q comm=devcg_bpf type=c dev=$UVM:1 name=nvidia-uvm access=rw err=-1 source=bpf cgroup_id=[0-9]+ cgroup=/r2 path=/dev/nvidia-uvm-tools" \
	"devcg_deny: task, device, name, access, errno, source, cgroup, path"
echo 0 > $T/events/pagetrail/devcg_deny/enable

# pagetrail denials: the cgroup and the line that would have admitted it.
pagetrail denials > /tmp/pd.out
is "$?" 1 "pagetrail denials: exit 1 when denials were recorded"
cat /tmp/pd.out >&2
like "$(grep "^#1 " /tmp/pd.out)" "pid $P \(devcg_bpf\) denied rw c $UVM:0 \(nvidia-uvm\) /dev/nvidia-uvm: BPF device policy of cgroup /r2" \
	"pagetrail denials: who, what, which policy"
like "$(sed -n '/^#1 /{n;p}' /tmp/pd.out)" "would be admitted by: dev0: /dev/nvidia-uvm \(Proxmox; the next free devN\) or lxc.cgroup2.devices.allow = /dev/nvidia-uvm rw \(LXC\)" \
	"pagetrail denials: the node as a devN entry or LXC's devpath form"

# Off again: the probes are gone.
echo devcg=0 > $PT/control
in_cg $CG/r2/cgroup.procs devcg_bpf open /dev/nvidia-uvm > /dev/null
is "$(ndenials)" 6 "devcg=0: no more records (still 6)"

# cgroup v1 devices controller, where the kernel still has it.
mkdir -p /tmp/v1
if mount -t cgroup -o devices devices /tmp/v1 2>/dev/null; then
	echo reset > $PT/control
	echo devcg=1 > $PT/control
	mkdir /tmp/v1/r2v1 && echo a > /tmp/v1/r2v1/devices.deny &&
		echo 'c 195:* rwm' > /tmp/v1/r2v1/devices.allow
	ok $? "v1: cgroup r2v1 denies all but 195"
	in_cg /tmp/v1/r2v1/cgroup.procs devcg_bpf open /dev/nvidiactl /dev/nvidia-uvm > /tmp/v1.out
	cat /tmp/v1.out >&2
	V=$(sed -n '1s/.* pid=\([0-9]*\).*/\1/p' /tmp/v1.out)
	is "$(cut -d' ' -f2,4 /tmp/v1.out | tr '\n' ' ')" "/dev/nvidiactl ok /dev/nvidia-uvm err=EPERM " \
		"v1: 195 opens, uvm EPERM"
	is "$(ndenials)" 1 "v1: exactly one denial"
	L=$(denials)
	is "$(dfield pid "$L") $(dfield dev "$L") $(dfield name "$L") $(dfield access "$L")" \
		"$V $UVM:0 nvidia-uvm rw" "v1: task, device, name, access"
	is "$(dfield source "$L") $(dfield cgroup "$L") $(dfield path "$L")" "v1 /r2v1 /dev/nvidia-uvm" \
		"v1: denied by the v1 controller of /r2v1, node path"
	like "$(pagetrail denials | sed -n '/^#1 /{n;p}')" "lxc.cgroup.devices.allow = c $UVM:\* rwm" \
		"v1: pagetrail denials names the v1 allow line"
	echo $$ > /tmp/v1/cgroup.procs
	rmdir /tmp/v1/r2v1
	umount /tmp/v1
else
	for i in 1 2 3 4 5 6; do ok 0 "# SKIP no cgroup v1 devices controller in $(uname -r)"; done
fi

echo devcg=0 > $PT/control
rmmod pagetrail
ok $? "rmmod pagetrail with denials kept"
rmdir $CG/r2
nvsim_rmmod
ok $? "rmmod nvsim"
for n in nvidia0 nvidiactl nvidia-uvm nvidia-uvm-tools; do rm -f /dev/$n; done
dmesg | grep -q 'devcg: recording device-cgroup denials (major -1, source v1 and bpf)'
ok $? "the log says what was planted"
done_testing

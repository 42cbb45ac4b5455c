# SPDX-License-Identifier: GPL-2.0
# Device-cgroup denials whose strings and rate the denied task controls.
# Its comm, the node path it names and a cgroup name with a blank reach
# the devcg_deny trace escaped: one line per denial, no forged field. A
# task looping on a denied open records a burst of denials, then only
# counts repeats: the driver's history stays in the flight recorder.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 18

CG=/sys/fs/cgroup
D=$PT/denials
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
NL='
'
# in_cg PROCS-FILE CMD...: run CMD as a task that first joins that cgroup
in_cg() { sh -c 'echo $$ > "$0"; exec "$@"' "$@"; }
dfield() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
denials() { grep '^id=' $D; }

insmod /pt/modules/nvsim.ko && pt_load ring_kb=64
ok $? "nvsim, and pagetrail attached with a 64 KiB ring per CPU (overwrite)"
UVM=$(awk '$2 == "nvidia-uvm" { print $1 }' /proc/devices)
mknod -m 666 /dev/nvidia-uvm c "$UVM" 0 &&
	mknod -m 666 "/dev/uvm${NL}pid=1 cgroup=x" c "$UVM" 0
ok $? "uvm nodes, one named with a newline and fields"
# The kernel names a task after the file it executed: a link named so.
ln -s "$(command -v devcg_bpf)" "/tmp/x${NL}id=7 y"
R4="$CG/r4 id=9"
mkdir -p "$R4" && devcg_bpf attach "$R4" 'c 195:* rwm' >&2
ok $? "BPF device program on a cgroup named with a blank and a field"

echo devcg=1 > $PT/control
echo > $T/trace
echo 1 > $T/events/pagetrail/devcg_deny/enable
in_cg "$R4/cgroup.procs" "/tmp/x${NL}id=7 y" open "/dev/uvm${NL}pid=1 cgroup=x" > /dev/null
cat $D > /tmp/den.txt # opening denials waits for the strings
sleep 1
echo 0 > $T/events/pagetrail/devcg_deny/enable
grep -v '^#' $T/trace > /tmp/tp.txt
cat /tmp/tp.txt >&2
is "$(grep -c . /tmp/tp.txt)" 1 "one denial, one trace line"
TL=$(cat /tmp/tp.txt)
like "$TL" ' comm=x_id_7_y type=c ' "trace: comm sanitised as in ring records"
like "$TL" ' cgroup=/r4\\040id\\0759 path=' "trace: cgroup blank and '=' octal escaped"
like "$TL" ' path=/dev/uvm\\012pid\\0751\\040cgroup\\075x$' "trace: path newline, '=' and blank escaped, the line ends there"
L=$(grep '^id=' /tmp/den.txt)
is "$(dfield comm "$L") $(dfield cgroup "$L") $(dfield path "$L")" \
	'x_id_7_y /r4\040id=9 /dev/uvm\012pid=1\040cgroup=x' \
	"denials: the same strings, escaped for its own line"
is "$(grep -c . /tmp/den.txt)" 2 "denials: summary and one line"

# The flood: the driver's history first, then a task looping on a denied open.
echo reset > $PT/control
cuinit --gens 1 > /dev/null
echo detach > $PT/control
before=$(kv ring_buffered)
cmp_ok "$before" -gt 100 "the driver's history is in the ring ($before records)"
mkdir -p $CG/r5 && devcg_bpf attach $CG/r5 'c 195:* rwm' >&2
yes /dev/nvidia-uvm | head -n 3000 > /tmp/flood.list
t0=$(date +%s)
in_cg $CG/r5/cgroup.procs xargs devcg_bpf open < /tmp/flood.list > /tmp/flood.out
secs=$(( $(date +%s) - t0 + 1 ))
is "$(grep -c 'err=EPERM' /tmp/flood.out)" 3000 "3000 denied opens (${secs} s)"
cat $D > /tmp/den.txt
S=$(head -n1 /tmp/den.txt)
diag "$S"
kept=$(dfield denials "$S")
cmp_ok "$kept" -ge 32 "a burst of 32 denials is recorded ($kept)"
cmp_ok "$kept" -le $((32 + secs)) "then about one a second"
rep=$(dfield repeats "$S")
is "$(( kept + ${rep:-0} ))" 3000 "the rest are counted as repeats, none lost"
L=$(grep '^id=' /tmp/den.txt | tail -n1)
cmp_ok "$(dfield repeats "$L")" -gt 0 "the newest like denial counts the repeats"
cat $PT/events > /tmp/ev.txt
deny=$(grep -c 'role=deny' /tmp/ev.txt)
others=$(grep -vc 'role=deny' /tmp/ev.txt)
diag "ring: $before driver records before, now $others driver and $deny deny records"
is "$deny" "$kept" "one ring record per recorded denial"
cmp_ok "$others" -ge $((before - 32 - secs)) "the driver's history is still in the ring"

echo devcg=0 > $PT/control
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
rmdir "$R4" $CG/r5
rm -f /dev/nvidia-uvm "/dev/uvm${NL}pid=1 cgroup=x" "/tmp/x${NL}id=7 y"
done_testing

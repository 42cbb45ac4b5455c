#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pagetrail devices / denials on fixtures: R3's stale allow-list, correct
# configs, malformed input (an error naming line and column, exit 2, never a
# crash, also under ASan/UBSan), the denials file, --json.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-devices}
mkdir -p "$out"
F=$TOP/tests/fixtures/devcg
PD=$F/proc-devices.r3-after

make -C "$TOP" progs > "$out/make.log" 2>&1
ok $? "pagetrail builds"
PT=$TOP/build/progs/pagetrail
# The same sources with ASan and UBSan: malformed input must not crash.
gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -DPT_NO_TRACECMD -I"$TOP/include" \
	-I"$TOP/tools/pagetrail" $(pkg-config --cflags json-c) -o "$out/pagetrail-asan" \
	"$TOP"/tools/pagetrail/*.c $(pkg-config --libs json-c) 2> "$out/asan-build.log"
ok $? "pagetrail builds with ASan and UBSan"

dev() { "$PT" devices --proc-devices "$PD" "$@"; }

# R3: 195, 504, 507 allowed; after the upgrade uvm is 509, caps 237, imex 238.
r3=$(dev --lxc-config "$F/r3-129.conf"); rc=$?
is "$rc" 1 "R3: exit 1, CUDA init would fail"
is "$(grep -o '^  MISSING  c [0-9]*' <<< "$r3" | awk '{print $3}' | tr '\n' ' ')" "237 238 509 " \
	"R3: names 237, 238 and 509 as missing"
like "$(grep 'c 509:' <<< "$r3")" "nvidia-uvm .*cuInit returns 999" "R3: 509 is nvidia-uvm and breaks cuInit"
is "$(grep '^  STALE' <<< "$r3")" \
"$(printf '%s\n' '  STALE    line 11: lxc.cgroup2.devices.allow: c 504:* rwm: no device has this major now (an old dynamic major)' \
	'  STALE    line 12: lxc.cgroup2.devices.allow: c 507:* rwm: no device has this major now (an old dynamic major)')" \
	"R3: 504 (line 11) and 507 (line 12) are stale"
is "$(sed -n '/^corrected lines/,/^then/p' <<< "$r3")" "$(cat <<EOT
corrected lines for $F/r3-129.conf:
  remove line 11: lxc.cgroup2.devices.allow: c 504:* rwm
  remove line 12: lxc.cgroup2.devices.allow: c 507:* rwm
  add: lxc.cgroup2.devices.allow: c 237:* rwm
  add: lxc.cgroup2.devices.allow: c 238:* rwm
  add: lxc.cgroup2.devices.allow: c 509:* rwm
then restart the container (the policy is built at start)
EOT
)" "R3: the corrected lines, in the file's own (Proxmox) syntax"
like "$(grep 'c 195:' <<< "$r3")" "ok .*admitted by line 10" "R3: 195 is admitted by line 10"
! grep -q 'pre-upgrade\|999:' <<< "$r3"
ok $? "R3: the snapshot section after [pre-upgrade] is not the live config"

# Applying the corrected lines gives a config with no finding.
fixed=$(dev --lxc-config "$F/r3-129-fixed.conf"); rc=$?
is "$rc" 0 "R3 fixed: exit 0"
is "$(grep -cE '^  (MISSING|STALE|MOUNT)' <<< "$fixed")" 0 "R3 fixed: no finding"
is "$(grep -c '^  ok ' <<< "$fixed")" 4 "R3 fixed: four NVIDIA majors admitted (195, 237, 238, 509)"
crlf=$(dev --lxc-config "$F/crlf-good.conf"); rc=$?
is "$rc:$(grep -cE '^  (MISSING|STALE)' <<< "$crlf")" "0:0" "CRLF line ends: a correct config, no finding"

# R2: 195 allowed, uvm not.
r2=$(dev --lxc-config "$F/r2-lxc.conf"); rc=$?
is "$rc" 1 "R2: exit 1"
like "$(grep '^  MISSING  c 509' <<< "$r2")" "nvidia-uvm" "R2: the uvm major is missing"
like "$r2" "add: lxc.cgroup2.devices.allow = c 509:\* rwm" "R2: the fix in LXC's own syntax"

# cgroup v1 devices.list
v1=$(dev --devices-list "$F/stale-devices.list"); rc=$?
is "$rc" 1 "devices.list with a stale major: exit 1"
like "$v1" "STALE    line 3: c 504:\* rwm" "devices.list: line 3 (504) is stale"
like "$v1" "add: c 509:\* rwm" "devices.list: fix written as a devices.allow line"
good=$(dev --devices-list "$F/good-devices.list"); rc=$?
is "$rc:$(grep -cE '^  (MISSING|STALE)' <<< "$good")" "0:0" "a correct devices.list: exit 0, no finding"

# --json carries the same findings.
j=$(dev --lxc-config "$F/r3-129.conf" --json)
is "$(python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["allow_list"]["findings"]
print(sorted(x["major"] for x in f if x["kind"] == "missing"),
      sorted(x["major"] for x in f if x["kind"] == "stale"),
      d["allow_list"]["remove_lines"], d["breaks_cuda_init"])' <<< "$j")" \
	"[237, 238, 509] [504, 507] [11, 12] True" "--json: missing, stale, lines to remove, verdict"

# Malformed input: one clear error with line and column, exit 2.
bad() { # FILE OPTION EXPECTED-MESSAGE
	local got rc asan
	got=$("$PT" devices --proc-devices "$PD" "$2" "$F/$1" 2>&1 >/dev/null); rc=$?
	is "$rc: $got" "2: pagetrail devices: $F/$1:$3" "malformed $1: exit 2, '$3'"
	asan=$("$out/pagetrail-asan" devices --proc-devices "$PD" "$2" "$F/$1" 2>&1 >/dev/null)
	is "$?: $asan" "2: pagetrail devices: $F/$1:$3" "malformed $1 under ASan/UBSan: same error, no report"
}
bad bad-type.conf --lxc-config "3:29: device type must be a, b or c, not 'x'"
bad bad-major.conf --lxc-config "2:33: expected ':' between major and minor"
bad bad-access.conf --lxc-config "2:38: access letters are r, w and m, not 'x'"
bad no-separator.conf --lxc-config "3:29: expected '=' (LXC) or ':' (Proxmox) after the key"
bad no-minor.conf --lxc-config "1:34: expected ':' between major and minor"
bad major-range.conf --lxc-config "1:30: major out of range (0..4095)"
bad short-mount.conf --lxc-config "2:19: lxc.mount.entry needs SOURCE TARGET FSTYPE OPTIONS"
bad long-line.conf --lxc-config "1:4096: line longer than 4095 characters"
bad garbage.conf --lxc-config "1:277: NUL byte in the line"
bad bad-devices.list --devices-list "3:12: access letters are r, w and m, not 'z'"
"$PT" devices --lxc-config /nonexistent/x.conf > /dev/null 2>&1
is "$?" 2 "a config that cannot be read: exit 2"

# --root: a container rootfs with a node left from before the upgrade.
R=$out/rootfs
rm -rf "$R" && mkdir -p "$R/dev/nvidia-caps"
if mknod -m 666 "$R/dev/nvidia-uvm" c 504 0 2>/dev/null; then
	mknod -m 666 "$R/dev/nvidia-caps/nvidia-cap1" c 237 1
	mknod -m 000 "$R/dev/nvidia-uvm-tools" c 509 1
	n=$(dev --root "$R"); rc=$?
	is "$rc" 1 "--root with a stale uvm node: exit 1"
	like "$(grep "$R/dev/nvidia-uvm " <<< "$n")" "c 504:0 +0666 +\(no driver\) +STALE: nvidia-uvm is at major 509 now \(mknod $R/dev/nvidia-uvm c 509 0\)" \
		"--root: the stale node, its old and new major, the mknod"
	like "$(grep "nvidia-uvm " <<< "$n")" "open: ENXIO: no driver is registered at 504:0" "--root: ENXIO explained"
	like "$(grep "nvidia-uvm-tools " <<< "$n")" "c 509:1 +0000 +nvidia-uvm +mode gives others no access" \
		"--root: mode 000 (R2's uvm-tools) is named"
	like "$(grep "nvidia-cap1 " <<< "$n")" "c 237:1 +0666 +nvidia-caps " "--root: nodes under nvidia-caps/ are checked"
	ln -s /nonexistent/nvidia0 "$R/dev/nvidia0"
	like "$(dev --root "$R" | grep 'nvidia0 ')" "dangling link: open: ENOENT: it points to a node that does not exist" \
		"--root: a dangling link is ENOENT, explained"
	rm -f "$R/dev/nvidia0"
	like "$(grep 'nvidiactl ' <<< "$n")" "MISSING: nvidiactl is registered at 195; make it: mknod -m 666 $R/dev/nvidiactl c 195 255" \
		"--root: a node the driver registered but nobody made"
	is "$(dev --root "$R" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([(n["path"].rsplit("/", 1)[1], n["major"], n["minor"], n["stale"]) for n in d["nodes"]], d["breaks_cuda_init"])')" \
		"[('nvidia-uvm', 504, 0, True), ('nvidia-uvm-tools', 509, 1, False), ('nvidia-cap1', 237, 1, False)] True" \
		"--root --json: nodes with major, minor, stale"
else
	for i in 1 2 3 4 5 6 7 8; do ok 0 "# SKIP mknod not permitted here"; done
fi

# denials: each with its cgroup and the line that would have admitted it.
d=$("$PT" denials --file "$F/denials.txt"); rc=$?
is "$rc" 1 "denials recorded: exit 1"
is "$(grep -c '^#' <<< "$d")" 2 "two denials printed"
like "$(grep '^#1 ' <<< "$d")" "pid 345 \(devcg_bpf\) denied rw c 509:0 \(nvidia-uvm\) /dev/nvidia-uvm: BPF device policy of cgroup /lxc.payload.r2" \
	"denial 1: task, access, device, name, node, policy and cgroup"
like "$(sed -n '/^#1 /{n;p}' <<< "$d")" "would be admitted by: lxc.cgroup2.devices.allow = c 509:\* rwm" \
	"denial 1 (BPF): the cgroup2 allow line"
like "$(grep '^#2 ' <<< "$d")" "\(my app\) .*v1 devices policy of cgroup /ct one" "denial 2: escaped blanks in comm and cgroup undone"
like "$(sed -n '/^#2 /{n;p}' <<< "$d")" "lxc.cgroup.devices.allow = c 509:\* rwm .*/ct one/devices.allow" \
	"denial 2 (v1): the v1 allow line and the devices.allow to write"
is "$("$PT" denials --file "$F/denials.txt" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["denials"]
print([(x["pid"], x["major"], x["minor"], x["name"], x["access"], x["source"], x["cgroup"]) for x in d])')" \
	"[(345, 509, 0, 'nvidia-uvm', 'rw', 'bpf', '/lxc.payload.r2'), (350, 509, 1, 'nvidia-uvm', 'rw', 'v1', '/ct one')]" \
	"denials --json: pid, device, name, access, source, cgroup"
printf 'devcg=1 major=-1 denials=0 kept=0 ring_only=0 no_cgroup=0 no_name=0 source_unknown_marks=0\n' > "$out/none.txt"
none=$("$PT" denials --file "$out/none.txt"); rc=$?
is "$rc:$(tail -n1 <<< "$none")" "0:no device-cgroup denial recorded" "no denial: exit 0 and says so"
summary

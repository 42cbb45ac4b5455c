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
# Expected verdicts follow LXC 6.0 / pve-container (see the fixture README).
r3=$(dev --lxc-config "$F/r3-129.conf"); rc=$?
is "$rc" 1 "R3: exit 1, CUDA init would fail"
is "$(grep -o '^  MISSING  c [0-9]*:[0-9]*' <<< "$r3" | awk '{print $3}' | tr '\n' ' ')" "509:0 " \
	"R3: per node: only nvidia-uvm (509:0) is missing; 237/238 are optional"
like "$(grep '^  OPTIONAL c 237:' <<< "$r3")" "nvidia-caps .*cuInit does not need it" "R3: nvidia-caps is optional"
is "$(grep '^  STALE' <<< "$r3")" \
"$(printf '%s\n' '  STALE    line 11: lxc.cgroup2.devices.allow: c 504:* rwm: no device has this major now (an old dynamic major)' \
	'  STALE    line 12: lxc.cgroup2.devices.allow: c 507:* rwm: no device has this major now (an old dynamic major)')" \
	"R3: 504 (line 11) and 507 (line 12) are stale"
is "$(sed -n '/^corrected lines/,/^then/p' <<< "$r3")" "$(cat <<EOT
corrected lines for $F/r3-129.conf:
  remove line 11: lxc.cgroup2.devices.allow: c 504:* rwm
  remove line 12: lxc.cgroup2.devices.allow: c 507:* rwm
  remove line 15: lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
  add: dev0: /dev/nvidia-uvm
then restart the container (the policy is built at start)
EOT
)" "R3: the corrected lines: a devN entry (stat()ed at every start), never a hard-coded dynamic major"
like "$(grep 'c 195:255' <<< "$r3")" "ok .*admitted by line 10" "R3: nvidiactl (195:255) is admitted by line 10"
like "$(grep '^  NOTE' <<< "$r3")" "line 18: \[pre-upgrade\] starts a snapshot section" "R3: the snapshot section is named, not read"
! grep -q '999:' <<< "$r3"
ok $? "R3: the rule in [pre-upgrade] is not the live config"
like "$(grep '^  MOUNT' <<< "$r3")" "line 15: /dev/nvidia-uvm \(c 509:0\) is bind-mounted but its device is denied" \
	"R3: MOUNT finding from the config alone (fixture resolution)"

fixed=$(dev --lxc-config "$F/r3-129-fixed.conf"); rc=$?
is "$rc:$(grep -cE '^  (MISSING|STALE|MOUNT)' <<< "$fixed")" "0:0" "R3 fixed (hard-coded 509): exit 0, no finding"
like "$fixed" "NOTE     line 4: .*hard-codes nvidia-uvm's dynamic major 509.*a devN entry" "R3 fixed: the hard-coded dynamic major is named"
crlf=$(dev --lxc-config "$F/crlf-good.conf"); rc=$?
is "$rc:$(grep -cE '^  (MISSING|STALE)' <<< "$crlf")" "0:0" "CRLF line ends: a correct config, no finding"

# R2: 195 allowed, uvm not; plain LXC: the devpath form is the fix.
r2=$(dev --lxc-config "$F/r2-lxc.conf"); rc=$?
is "$rc" 1 "R2: exit 1"
like "$(grep '^  MISSING  c 509:0' <<< "$r2")" "nvidia-uvm" "R2: nvidia-uvm 509:0 is missing"
like "$r2" "add: lxc.cgroup2.devices.allow = /dev/nvidia-uvm rw" "R2: the fix in LXC's devpath form"

# verdict V FILE [PROC] [ARGS...]: exit status and the per-node lines
v() { local f=$1 p=${2:-$PD}; shift; [ $# -gt 0 ] && shift; "$PT" devices --proc-devices "$p" --lxc-config "$F/$f" "$@"; }
nodes() { grep -oE '^  (ok|MISSING|OPTIONAL) +c [0-9]+:[0-9]+ ' | awk '{print $1"="$3}' | tr '\n' ' '; }
check() { # FILE EXPECTED-EXIT EXPECTED-NODES WHY [PROC [ARGS]]
	local f=$1 x=$2 n=$3 why=$4 got rc
	shift 4
	got=$(v "$f" "$@"); rc=$?
	is "$rc $(nodes <<< "$got")" "$x $n" "$f: $why"
	last=$got
}
ALL="ok=195:255 ok=195:0 ok=509:0 ok=509:1 "
UVM_NO="ok=195:255 ok=195:0 MISSING=509:0 OPTIONAL=509:1 "
check sem-bare-a-resets.conf 1 "$UVM_NO" "a bare 'deny a' empties the list before it (509:0 gone)"
like "$last" "RULE     line 3: .*dropped: the bare 'a' rule on line 4" "sem-bare-a-resets: line 3 dropped by line 4"
check sem-deny-dropped.conf 0 "$ALL" "a deny equal to no allow is left out in allow-list mode"
like "$last" "line 4: .*ignored: in allow-list mode" "sem-deny-dropped: the deny is named as ignored"
check sem-deny-flips.conf 1 "$UVM_NO" "a deny equal to an earlier allow flips it"
like "$last" "line 3: .*turned into a deny by line 4" "sem-deny-flips: line 3 flipped by line 4"
check sem-deny-letters.conf 0 "ok=195:255 ok=195:0 ok=509:0 OPTIONAL=509:1 " "'wr' is not 'rw': the deny equals nothing and is left out"
check sem-readmit.conf 0 "ok=195:255 ok=195:0 ok=509:0 OPTIONAL=509:1 " "a later allow re-admits after a flip"
like "$last" "ok +c 509:0 .*admitted by line 5" "sem-readmit: admitted by line 5"
check sem-clear-allows.conf 1 "$UVM_NO" "an empty lxc.cgroup2.devices.allow clears earlier allows"
like "$last" "line 3: empty value: clears 13 earlier cgroup2 allow rules \(LXC's base config's included\)" \
	"sem-clear-allows: 12 base allows and line 2 cleared"
check sem-access-four.conf 0 "ok=195:255 ok=195:0 ok=509:0 OPTIONAL=509:1 " "letters beyond three are not read ('rwmx', 'rwwz')"
check long-line.conf 1 "MISSING=195:255 MISSING=195:0 MISSING=509:0 OPTIONAL=509:1 " "'rrrr...' (5000 letters) is 'rrr': read only"
like "$last" "admits less than read-write" "long-line: read-only is named"
check sem-devpath.conf 0 "ok=195:255 ok=195:0 ok=509:0 OPTIONAL=509:1 " "the devpath form is valid, resolved at start"
check sem-a-star.conf 0 "$ALL" "'a *:* rwm' is an ordinary rule matching every device, not a bare 'a'"
check pve-base-only.conf 1 "MISSING=195:255 MISSING=195:0 MISSING=509:0 OPTIONAL=509:1 " \
	"no device rules: the base config's allow-list grants nothing NVIDIA"
like "$(sed -n '/^corrected/,/^then/p' <<< "$last" | grep add: | tr '\n' ' ')" "add: dev0: /dev/nvidiactl +add: dev1: /dev/nvidia0 +add: dev2: /dev/nvidia-uvm" \
	"pve-base-only: corrected with devN entries"
check pve-devn.conf 0 "$ALL" "Proxmox devN entries: per-node rules"
like "$last" "ok +c 509:0 +/dev/nvidia-uvm +admitted by line 7: dev2: /dev/nvidia-uvm,gid=44,mode=0666 \(c 509:0 rw, stat\(\)ed at start\)" \
	"pve-devn: the node admitted by its devN line"
check pve-devn-deny-write.conf 1 "ok=195:255 ok=195:0 MISSING=509:0 OPTIONAL=509:1 " "deny-write=1 admits r only; its 'w' deny is left out"
check pve-unpriv-devn.conf 1 "MISSING=195:255 MISSING=195:0 ok=509:0 OPTIONAL=509:1 " \
	"unprivileged: userns.conf empties the base; one devN makes an allow-list of one node"
check pve-unpriv-mounts.conf 0 "$ALL" "unprivileged, no rules: the list is empty, LXC attaches no program"
like "$last" "no device program" "pve-unpriv-mounts: says no program is attached"
check pve-v1-keys.conf 1 "MISSING=195:255 MISSING=195:0 MISSING=509:0 OPTIONAL=509:1 " "v1 keys are ignored on a cgroup2 host"
like "$last" "line 4: .*ignored: cgroup v1 key; this host runs cgroup2 only" "pve-v1-keys: the ignored key is named"
like "$last" "^cgroup: unified" "the hierarchy is said"
check pve-v1-keys.conf 0 "ok=195:255 ok=195:0 ok=509:0 ok=509:1 " "v1 keys apply on a legacy host" "$PD" --cgroup legacy
check pve-ignored-keys.conf 1 "$UVM_NO" "keys Proxmox drops (unknown lxc key, leading blank) do not count"
like "$last" "line 5: lxc.cgroups2.devices.allow: Proxmox does not accept" "pve-ignored-keys: the dropped key is named"
check pve-pending.conf 1 "$UVM_NO" "[pve:pending] is not the live config"
check pve-now-grants.conf 0 "ok=195:255 ok=195:0 ok=509:0 OPTIONAL=509:1 " "a stale major now hidraw's"
like "$last" "NOWGRANTS line 7: .*major 244 now belongs to hidraw" "pve-now-grants: 'now grants hidraw'"
like "$last" "review line 7:" "pve-now-grants: reviewed, not removed"
! grep -q "remove line 7" <<< "$last"
ok $? "pve-now-grants: not in the remove lines"
check lxc-no-uvm-loaded.conf 1 "ok=195:255 ok=195:0 " "nvidia-uvm not loaded on the host" "$F/proc-devices.no-uvm"
like "$last" "HOST .*has not loaded nvidia_uvm.*modprobe nvidia-uvm.*nvidia-modprobe -u -c=0" "no-uvm: says how to load it"
like "$last" "UNKNOWN  line 3: .*not called stale" "no-uvm: its allow line is not called stale"
! grep -q "STALE" <<< "$last"
ok $? "no-uvm: nothing is STALE"
check lxc-optional.conf 0 "ok=195:255 ok=195:0 ok=509:0 OPTIONAL=509:1 " "caps, nvlink, nvswitch, nvidia-fs are optional" "$F/proc-devices.optional"
! grep -q "^corrected" <<< "$last"
ok $? "optional families stay out of the corrected lines"

# lxc.include is followed; one that cannot be read is named.
printf 'lxc.include = /usr/share/lxc/config/common.conf\nlxc.include = %s\nlxc.include = %s/nonexistent.conf\n' \
	"$F/include-nvidia.conf" "$out" > "$out/include.conf"
inc=$("$PT" devices --proc-devices "$PD" --lxc-config "$out/include.conf"); rc=$?
is "$rc $(nodes <<< "$inc")" "0 ok=195:255 ok=195:0 ok=509:0 OPTIONAL=509:1 " "lxc.include is followed"
like "$inc" "line 3: lxc.include = $out/nonexistent.conf not read" "an include that cannot be read is named"

# --json carries every finding the text shows.
j=$(dev --lxc-config "$F/r3-129.conf" --json)
is "$(python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["allow_list"]["findings"]
print(sorted((x["major"], x["minor"]) for x in f if x["kind"] == "missing"),
      sorted(x["major"] for x in f if x["kind"] == "stale"),
      [x["line"] for x in f if x["kind"] == "mount"],
      d["allow_list"]["remove_lines"], d["allow_list"]["add"], d["breaks_cuda_init"])' <<< "$j")" \
	"[(509, 0)] [504, 507] [15, 16] [11, 12, 15] ['dev0: /dev/nvidia-uvm'] True" "--json: missing, stale, MOUNT, removals, devN fix, verdict"
is "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["allow_list"]["findings"]))' <<< "$j")" \
	"$(grep -cE '^  (ok|MISSING|OPTIONAL|STALE|MOUNT|NOTE|RULE|HOST|DEV|UNKNOWN|NOWGRANTS) ' <<< "$r3")" "--json: as many findings as the text"

# Malformed input: one clear error with line and column, exit 2.
bad() { # FILE OPTION EXPECTED-MESSAGE
	local got rc asan
	got=$("$PT" devices --proc-devices "$PD" "$2" "$F/$1" 2>&1 >/dev/null); rc=$?
	is "$rc: $got" "2: pagetrail devices: $F/$1:$3" "malformed $1: exit 2, '$3'"
	asan=$("$out/pagetrail-asan" devices --proc-devices "$PD" "$2" "$F/$1" 2>&1 >/dev/null)
	is "$?: $asan" "2: pagetrail devices: $F/$1:$3" "malformed $1 under ASan/UBSan: same error, no report"
}
R="(LXC refuses to start the container)"
bad bad-type.conf --lxc-config "3:29: device type must be a, b or c, not 'x' $R"
bad bad-major.conf --lxc-config "2:33: expected ':' between major and minor $R"
bad bad-access.conf --lxc-config "2:38: access letters are r, w and m, not 'x' $R"
bad no-separator.conf --lxc-config "3:29: expected '=' (LXC) or ':' (Proxmox) after the key"
bad no-minor.conf --lxc-config "1:34: expected ':' between major and minor $R"
bad major-range.conf --lxc-config "1:31: major out of range (LXC reads an int) $R"
bad bad-devpath-deny.conf --lxc-config "2:28: device type must be a, b or c, not '/' $R"
bad bad-devpath-mode.conf --lxc-config "3:44: expected access letters after the path $R"
bad short-mount.conf --lxc-config "2:19: lxc.mount.entry needs SOURCE TARGET FSTYPE OPTIONS"
bad garbage.conf --lxc-config "1:277: NUL byte in the line (a binary file?)"
bad not-a-config.txt --lxc-config "2:1: not a container config: no lxc.* key and no Proxmox key (arch:, rootfs:, devN:, ...)"
bad bad-devices.list --devices-list "3:12: access letters are r, w and m, not 'z'"
got=$("$PT" devices --proc-devices "$PD" --lxc-config "$F" 2>&1 >/dev/null); rc=$?
is "$rc: $got" "2: pagetrail devices: $F:1:1: a directory, not a file" "a directory as config: exit 2, named"
got=$("$PT" devices --proc-devices "$F/r2-lxc.conf" --lxc-config "$F/r2-lxc.conf" 2>&1 >/dev/null); rc=$?
is "$rc: $got" "2: pagetrail devices: $F/r2-lxc.conf:1:1: not a /proc/devices: no 'Character devices:' section" \
	"--proc-devices without 'Character devices:': exit 2, named"
"$PT" devices --lxc-config /nonexistent/x.conf > /dev/null 2>&1
is "$?" 2 "a config that cannot be read: exit 2"

# cgroup v1 devices.list
v1=$(dev --devices-list "$F/stale-devices.list"); rc=$?
is "$rc" 1 "devices.list with a stale major: exit 1"
like "$v1" "STALE    line 3: c 504:\* rwm" "devices.list: line 3 (504) is stale"
like "$v1" "add: c 509:0 rw" "devices.list: fix per node, as a devices.allow line"
good=$(dev --devices-list "$F/good-devices.list"); rc=$?
is "$rc:$(grep -cE '^  (MISSING|STALE)' <<< "$good")" "0:0" "a correct devices.list: exit 0, no finding"

# --root: confined to the root, no opens unless --open.
is "$("$PT" devices --proc-devices "$PD" --root /nonexistent/root 2>&1 >/dev/null; echo "rc=$?")" \
	"pagetrail devices: --root /nonexistent/root: No such file or directory
rc=2" "--root that does not exist: exit 2"
is "$("$PT" devices --proc-devices "$PD" --root "$F/r2-lxc.conf" 2>&1 >/dev/null; echo "rc=$?")" \
	"pagetrail devices: --root $F/r2-lxc.conf: not a directory
rc=2" "--root that is a file: exit 2"
rm -f "$out/loop" && ln -s loop "$out/loop"
is "$("$PT" devices --proc-devices "$PD" --root "$out/loop" 2>&1 >/dev/null; echo "rc=$?")" \
	"pagetrail devices: --root $out/loop: a symbolic link loop
rc=2" "--root that loops: exit 2"
R=$out/rootfs
rm -rf "$R" && mkdir -p "$R/dev/nvidia-caps"
: > "$R/dev/nvidia-uvm"
ln -s /etc/hostname "$R/dev/nvidiactl"
n=$(dev --root "$R"); rc=$?
is "$rc" 1 "--root with a regular file at nvidia-uvm: exit 1"
like "$(grep "$R/dev/nvidia-uvm " <<< "$n")" "NOT A NODE: a regular file where nvidia-uvm's node should be \(what create=file leaves" \
	"--root: a regular file where a node should be is a failure"
like "$(grep "$R/dev/nvidiactl " <<< "$n")" "dangling link: open: ENOENT" \
	"--root: a link to /etc/hostname resolves inside the root (dangling), not to the host's file"
like "$n" "not opened: --open to open them" "--root: no opens by default"
rm -f "$R/dev/nvidia-uvm" "$R/dev/nvidiactl"
if mknod -m 666 "$R/dev/nvidia-uvm" c 504 0 2>/dev/null; then
	mknod -m 666 "$R/dev/nvidia-caps/nvidia-cap1" c 237 1
	mknod -m 000 "$R/dev/nvidia-uvm-tools" c 509 1
	mknod -m 666 "$R/dev/nvidia1" c 1 3
	n=$(dev --root "$R" --open); rc=$?
	is "$rc" 1 "--root --open with a stale uvm node: exit 1"
	like "$(grep "$R/dev/nvidia-uvm " <<< "$n")" "c 504:0 +0666 +\(no driver\) +STALE: nvidia-uvm is at major 509 now \(mknod $R/dev/nvidia-uvm c 509 0\)" \
		"--root: the stale node, its old and new major, the mknod"
	like "$(grep "nvidia-uvm " <<< "$n")" "not opened: its major is not a registered NVIDIA major" \
		"--root --open: a node at an unregistered major (504) is never opened"
	like "$(grep "nvidia1 " <<< "$n")" "c +1:3 .*not opened: its major is not a registered NVIDIA major" \
		"--root --open: /dev/nvidia1 made as c 1:3 (/dev/null) is never opened"
	like "$(grep "nvidia-uvm-tools " <<< "$n")" "c 509:1 +0000 +nvidia-uvm +mode gives others no access" \
		"--root: mode 000 (R2's uvm-tools) is named"
	like "$(grep "nvidia-cap1 " <<< "$n")" "c 237:1 +0666 +nvidia-caps " "--root: nodes under nvidia-caps/ are checked"
	like "$(grep 'nvidiactl ' <<< "$n")" "MISSING: nvidiactl is registered at 195; make it: mknod -m 666 $R/dev/nvidiactl c 195 255" \
		"--root: a node the driver registered but nobody made"
	is "$(dev --root "$R" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([(n["path"].rsplit("/", 1)[1], n.get("major"), n.get("minor"), n.get("stale")) for n in d["nodes"]], d["breaks_cuda_init"])')" \
		"[('nvidia-uvm', 504, 0, True), ('nvidia-uvm-tools', 509, 1, False), ('nvidia1', 1, 3, True), ('nvidia-cap1', 237, 1, False)] True" \
		"--root --json: nodes with major, minor, stale"
else
	for i in 1 2 3 4 5 6 7 8 9; do ok 0 "# SKIP mknod not permitted here"; done
fi

# --attached reads the kernel's programs for a cgroup v2 directory of this
# host (the guest scenario devcg_predict runs it on live containers): one
# line and exit 2 for what is not one, and never with a fixture.
a=$("$PT" devices --proc-devices "$PD" --attached /sys/fs/cgroup 2>&1); rc=$?
is "$rc:$a" "2:pagetrail devices: --attached reads this host's kernel: not with --proc-devices" \
	"--attached with --proc-devices: exit 2, says why"
a=$("$PT" devices --attached "$out/no-such-cgroup" 2>&1); rc=$?
is "$rc:$a" "2:pagetrail devices: --attached $out/no-such-cgroup: No such file or directory" \
	"--attached on a missing directory: exit 2, one line, nothing else printed"
a=$("$PT" devices --attached "$out" 2>&1); rc=$?
is "$rc:$a" "2:pagetrail devices: --attached $out: not a cgroup v2 directory (a running container's is under /sys/fs/cgroup)" \
	"--attached on a directory that is no cgroup: exit 2, one line"

# denials: each with its cgroup and the line that would have admitted it.
d=$("$PT" denials --file "$F/denials.txt"); rc=$?
is "$rc" 1 "denials recorded: exit 1"
is "$(grep -c '^#' <<< "$d")" 2 "two denials printed"
like "$(grep '^#1 ' <<< "$d")" "pid 345 \(devcg_bpf\) denied rw c 509:0 \(nvidia-uvm\) /dev/nvidia-uvm: BPF device policy of cgroup /lxc.payload.r2" \
	"denial 1: task, access, device, name, node, policy and cgroup"
like "$(sed -n '/^#1 /{n;p}' <<< "$d")" "would be admitted by: dev0: /dev/nvidia-uvm \(Proxmox; the next free devN\) or lxc.cgroup2.devices.allow = /dev/nvidia-uvm rw \(LXC\)" \
	"denial 1 (BPF): the node, as a devN entry or LXC's devpath form (never its dynamic major)"
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The IBT gate (scripts/ibt-gate) passes the module and refuses each way of
# calling through a kprobe-resolved address, and Kbuild stops on it. QEMU
# TCG cannot enforce CET-IBT, so this is what covers that class of crash.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-ibt_gate}
rm -rf "$out"; mkdir -p "$out/bad"

"$TOP/scripts/ibt-gate" "$TOP/module" "$TOP/include" > "$out/ok.log" 2>&1
ok $? "module/ and include/ pass the gate"

bad() {	# bad NAME CODE REASON: the gate refuses CODE, naming REASON
	printf '%s\n' "$2" > "$out/bad/$1.c"
	"$TOP/scripts/ibt-gate" "$out/bad/$1.c" > "$out/$1.log" 2>&1
	local rc=$?
	[ $rc = 1 ] && grep -q "$1.c:[0-9]*: $3" "$out/$1.log"
	ok $? "refused: $1 ($3)"
	rm -f "$out/bad/$1.c"
}
bad lookup 'static unsigned long (*lookup)(const char *); void f(void) { lookup = kallsyms_lookup_name; }' 'kallsyms_lookup_name'
bad fnptr_cast 'void f(unsigned long a) { ((int (*)(void))a)(); }' 'cast to a function pointer'
bad kp_addr 'void f(struct kprobe kp) { void *p = (void *)kp.addr; }' 'a kprobe address used'
bad rp_addr 'void f(struct kretprobe *rp) { g(rp->kp.addr); }' 'a kprobe address used'
printf '/* kallsyms_lookup_name in a comment is fine */\nint x; // (int (*)(void)) too\n' > "$out/bad/comment.c"
"$TOP/scripts/ibt-gate" "$out/bad/comment.c" > /dev/null 2>&1
ok $? "comments are not code"
rm -f "$out/bad/comment.c"

# The build itself stops: the pre-IBT-fix probes.c in a copy of the tree.
kv=$(stock_kernel 6.12)
if [ -n "$kv" ]; then
	src=$out/tree
	mkdir -p "$src/scripts"
	cp -r "$TOP/Kbuild" "$TOP/dkms.conf" "$TOP/module" "$TOP/include" "$src/"
	cp "$TOP/scripts/ibt-gate" "$src/scripts/"
	cat >> "$src/module/probes.c" <<'C'
static unsigned long (*pt_lookup_fn)(const char *name);
void pt_ibt_gate_fixture(struct kprobe kp) { pt_lookup_fn = (void *)kp.addr; }
C
	make -C "/lib/modules/$kv/build" M="$src" modules > "$out/build.log" 2>&1
	rc=$?
	[ $rc != 0 ] && grep -q "pagetrail IBT gate:.*probes.c" "$out/build.log"
	ok $? "Kbuild refuses to build pagetrail.ko with a call through kp.addr ($kv)"
	test ! -e "$src/pagetrail.ko"
	ok $? "and produced no module"
fi
summary

# SPDX-License-Identifier: GPL-2.0
# The stale-context fault on a driver whose mmap context holds a
# usage_count reference (595.71.05+, 610.x; nvidia-610.md D5): RM frees the
# allocation after the map ioctl, but the context's reference keeps the
# pages, so the mmap maps live pages, and the pages are released only when
# the mapping file closes, by the thread that closes it. pagetrail records
# no anomaly, the release comes after the mmap, and diagnose names the
# release and finds nothing: it does not call this Z2. nvsim models the
# release given at load (the 610 builds' default, else 595.71.05).
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 20

insmod /pt/modules/nvsim.ko
if ! grep -q 'holds a usage_count reference' /proc/driver/nvsim/version; then
	nvsim_rmmod && insmod /pt/modules/nvsim.ko release=595.71.05
fi
v=$(cat /proc/driver/nvsim/version)
diag "$v"
like "$v" "^NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  (595\.71\.05|610\.43\.02)  .*holds a usage_count reference" \
	"nvsim models a release whose mmap context holds a reference"
rel=$(echo "$v" | awk '{ print $10 }')
pt_load
ok $? "pagetrail loaded"
echo 1 > $P/fault_stale_context

for how in nozero pooled; do
	echo reset > $PT/control
	t0=$(nv context_refs_taken)
	d0=$(nv context_refs_dropped)
	cuinit --stale=$how > /tmp/cuinit.out
	pfn=$(grep '^free .*name=stale' /tmp/cuinit.out | field first_pfn)
	like "$(grep '^mmap .*name=stale' /tmp/cuinit.out)" "rc=0 errno=0" \
		"$how: the mmap through the context succeeds (the reference kept the pages)"
	is "$(($(nv context_refs_taken) - t0)) $(($(nv context_refs_dropped) - d0))" "1 1" \
		"$how: nvsim took one context reference and dropped it at the file's close"
	is "$(kv anomalies)" 0 "$how: no anomaly"
	pt_drain
	m=$(grep ' role=map ' /tmp/ev.txt | tail -n1)
	mseq=$(echo "$m" | field seq)
	mpid=$(echo "$m" | field pid)
	is "$(echo "$m" | field ret)" 0 "$how: the map record says 0"
	# The pages leave the allocation after the mmap, on the closing thread.
	case $how in
	nozero) r=$(grep " role=free cause=direct pfn=$pfn " /tmp/ev.txt | tail -n1) ;;
	pooled) r=$(grep " role=admit .* pfn=$pfn " /tmp/ev.txt | tail -n1) ;;
	esac
	diag "$how: map seq=$mseq pid=$mpid; release of $pfn: $r"
	isnt "$r" "" "$how: the release of $pfn is in the trail"
	ok $([ "$(echo "$r" | field seq)" -gt "${mseq:-0}" ]; echo $?) \
		"$how: it comes after the mmap (seq $(echo "$r" | field seq) > $mseq): the free moved to the close"
	is "$(echo "$r" | field pid)" "$mpid" "$how: by the thread that mapped and then closed the file"
	pagetrail diagnose > /tmp/d.txt
	rc=$?
	cat /tmp/d.txt >&2
	is "$rc $(grep -c '^finding' /tmp/d.txt)" "0 0" "$how: diagnose: no finding, exit 0"
done
like "$(grep '^driver:' /tmp/d.txt)" "^driver: $rel \(driver_version\): its mmap context holds a usage_count reference: Z2 is closed" \
	"diagnose names the release and says Z2 is closed there"
echo 0 > $P/fault_stale_context
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing

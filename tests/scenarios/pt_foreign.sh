# SPDX-License-Identifier: GPL-2.0
# R1 (Z8, foreign_put): a kernel thread outside the driver drops a reference
# on a pooled page. pagetrail must name that thread at the free (with its
# stack), then the take of the freed page and the zero-refcount insert on
# the same pfn, and the return chain -22 -> -EAGAIN.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 25

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
echo 1 > /sys/module/nvsim/parameters/fault_foreign_put
cuinit --foreign --seed 3 > /tmp/cuinit.out
ok $? "cuinit --foreign ran"
f=$(grep '^foreign ' /tmp/cuinit.out)
pfn=$(echo "$f" | field pfn)
fpid=$(echo "$f" | field pid)
diag "nvsim: $f"
cat $PT/anomalies > /tmp/anomalies
cp $PT/stats /tmp/stats
# With move_pages inlined (pt.nvsim=inline) a take's list comes from the
# chunk's state, and a page freed while pooled is on no list pagetrail
# knows of: that take's list is unknown ("-"), the detail the fallback loses.
list=clean
case "$(kv fallbacks $PT/control)" in *nv_mem_pool_move_pages*) list='(clean|-)' ;; esac
pt_drain
cat /tmp/anomalies >&2

a=$(anomaly FREE_WHILE_POOLED "$pfn")
diag "$a"
isnt "$a" "" "FREE_WHILE_POOLED on the foreign thread's pfn $pfn"
is "$(echo "$a" | field comm)" nvsim_foreign "named: the nvsim_foreign thread"
is "$(echo "$a" | field pid)" "$fpid" "with the pid nvsim reported"
is "$(echo "$a" | field cause)" foreign "outside any driver path"
is "$(echo "$a" | field state)" "pooled_clean->freed" "the page was on the clean list"
anomaly_block FREE_WHILE_POOLED "$pfn" > /tmp/free.block
grep -A20 '^  stack:' /tmp/free.block | grep -q '\[nvsim\]'
ok $? "its stack shows the nvsim code that dropped the reference"

t=$(anomaly TAKE_UNPOOLED "$pfn")
isnt "$t" "" "TAKE_UNPOOLED: the pool handed out the freed page"
is "$(echo "$t" | field comm)" cuinit "taken on cuinit's thread"
is "$(echo "$t" | field ref)" 0 "with refcount 0"

i=$(anomaly INSERT_ZERO_REF "$pfn")
diag "$i"
isnt "$i" "" "INSERT_ZERO_REF on the same pfn"
is "$(echo "$i" | field ref)" 0 "refcount sampled at insert: 0"
is "$(echo "$i" | field ret)" -22 "vm_insert_page returned -EINVAL"
is "$(echo "$i" | field comm)" cuinit "in cuinit's mmap"
is "$(echo "$i" | field gen)" "$(echo "$a" | field gen)" "same pool generation as the page freed while pooled"
isnt "$(echo "$i" | field alloc)" "0" "attributed to an allocation instance"
anomaly_block INSERT_ZERO_REF "$pfn" > /tmp/insert.block
grep -q "role=admit .*comm=cuinit" /tmp/insert.block
ok $? "history: admitted by cuinit"
grep -q "role=scrub .*comm=nv_mem_pool_scr" /tmp/insert.block
ok $? "history: scrubbed by the scrubber kthread"
grep -q "role=free cause=foreign .*pid=$fpid comm=nvsim_foreign" /tmp/insert.block
ok $? "history: freed by the foreign thread"
grep -Eq "role=take cause=$list .*comm=cuinit" /tmp/insert.block
ok $? "history: taken from the clean list by cuinit (list: $list)"

m=$(grep ' role=map ' /tmp/ev.txt | grep ' ret=-11 ')
is "$(echo "$m" | wc -l)" 1 "one driver mmap failed"
is "$(echo "$m" | field inner_ret) $(echo "$m" | field pfn)" "-22 $pfn" \
	"return chain: vm_insert_page -22 on $pfn -> nvidia_mmap -11"
is "$(nv last_insert_fail_pfn | xargs printf '0x%x')" "$pfn" "nvsim agrees on the failing pfn"
rmmod pagetrail && echo 0 > /sys/module/nvsim/parameters/fault_foreign_put && nvsim_rmmod
ok $? "unloaded"
done_testing

# SPDX-License-Identifier: GPL-2.0
# make demo: R1 reproduced and explained. cuinit drives nvsim like CUDA
# context init; a foreign kernel thread drops a reference on a pooled page;
# the next generation's mmap fails with EAGAIN. The report between the
# PT-REPORT markers is what scripts/demo prints: what the user saw, then
# the pagetrail command's own status, page history and diagnosis, read
# from one capture file. The TAP lines check the diagnosis against what
# nvsim says happened.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 8

say() { echo "$*" >> /tmp/report; }
insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768 2>/dev/null
ok $? "nvsim and pagetrail loaded ($(kv state $PT/control) to $(kv target $PT/control))"
echo 1 > /sys/module/nvsim/parameters/fault_foreign_put
cuinit --foreign --seed 3 > /tmp/cuinit.out
echo 0 > /sys/module/nvsim/parameters/fault_foreign_put
f=$(grep '^foreign ' /tmp/cuinit.out)
pfn=$(echo "$f" | field pfn)
pagetrail capture -o /tmp/r1.capture 2> /dev/null
ok $? "pagetrail capture -o /tmp/r1.capture"

say "== What the user saw (cuinit: the CUDA context-init pattern of R1) =="
grep '^mmap .*rc=-1' /tmp/cuinit.out | sed 's/^/  /' >> /tmp/report
dmesg | grep 'NVRM:' | sed 's/^/  kernel: /' >> /tmp/report
say ""
say "== \$ pagetrail status --from r1.capture =="
pagetrail status --from /tmp/r1.capture | grep -v ' planted=\| hooked=' >> /tmp/report
say ""
say "== \$ pagetrail history $pfn --from r1.capture =="
pagetrail history "$pfn" --from /tmp/r1.capture >> /tmp/report
say ""
say "== \$ pagetrail diagnose --from r1.capture =="
pagetrail diagnose --from /tmp/r1.capture > /tmp/diagnose.txt
cat /tmp/diagnose.txt >> /tmp/report

echo "PT-REPORT-BEGIN"
cat /tmp/report
echo "PT-REPORT-END"
z=$(grep '^finding [0-9]*: class=Z8 ' /tmp/diagnose.txt | head -n1)
is "$(echo "$z" | field rule)" Z8.foreign-put-on-pooled-page "diagnose: rule Z8 (foreign put on a pooled page)"
is "$(echo "$z" | field pfn)" "$pfn" "diagnose: the pfn nvsim's foreign thread put ($pfn)"
is "$(echo "$z" | field culprit)" "nvsim_foreign/$(echo "$f" | field pid)" "diagnose: the culprit thread nvsim reported"
grep -q "return chain: vm_insert_page(pfn $pfn) = -22 .* nvidia_mmap = -11 -> mmap(2) fails with EAGAIN" /tmp/diagnose.txt
ok $? "diagnose: the return chain -22 -> -EAGAIN on that pfn"
pagetrail timeline -o /tmp/r1.svg --from /tmp/r1.capture 2> /dev/null
grep -q "class='lane'>pfn $pfn<" /tmp/r1.svg
ok $? "timeline: a lane for $pfn"
echo "PT-FILE-BEGIN r1.svg"
cat /tmp/r1.svg
echo "PT-FILE-END"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded cleanly"
done_testing

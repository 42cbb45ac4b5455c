#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/pagetrail-load finds nvsim's layouts in DWARF on both kernels and
# falls back to the table of released NVIDIA layouts; bad input is refused.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-loader}
mkdir -p "$out"

param() { sed -n "s/^$1=//p" <<< "$2"; }

for k in 6.1 6.12; do
	kv=$(stock_kernel "$k")
	obj="$out/$k"
	"$TOP/scripts/build-modules" "$kv" "$obj" 2>/dev/null
	ok $? "$k: modules build"
	p=$("$TOP/scripts/pagetrail-load" --target nvsim --target-ko "$obj/ko/nvsim.ko" \
		--source dwarf --dry-run 2>&1)
	like "$p" "source=DWARF" "$k: the loader says it used DWARF"
	is "$(param nv_alloc_size "$p") $(param nv_alloc_usage_count "$p") $(param nv_alloc_usage_size "$p") $(param nv_alloc_pool_bit "$p")" \
		"112 16 8 203" "$k: nv_alloc_t size, usage_count (atomic64_t), flags.pool bit as in 595.45.04"
	is "$(param nv_alloc_num_pages "$p") $(param nv_alloc_order "$p") $(param nv_alloc_page_table "$p")" \
		"32 36 48" "$k: nv_alloc_t num_pages, order, page_table"
	is "$(param nv_pte_size "$p") $(param nv_entry_list_node "$p")" "16 8" \
		"$k: nvidia_pte_t size and entry list_node"
	case $k in
	6.1) is "$(param nv_pool_size "$p") $(param nv_pool_shrinker "$p")" "232 168" \
		"6.1: pool embeds its shrinker (pre-6.7) at 168, size 232" ;;
	6.12) is "$(param nv_pool_size "$p") $(param nv_pool_shrinker "$p")" "168 -1" \
		"6.12: pool has no embedded shrinker, size 168" ;;
	esac
done

p=$("$TOP/scripts/pagetrail-load" --target nvidia --source table --driver-version 590.44.01 --dry-run 2>&1)
like "$p" "source=table \(driver 590.44.01" "table: names the driver version"
is "$(param nv_alloc_pool_bit "$p") $(param nv_alloc_page_table "$p") $(param nv_alloc_usage_size "$p")" "171 40 4" \
	"table: 590.44.01 has a 32-bit usage_count, flags at 20/21 and page_table at 40"
p=$("$TOP/scripts/pagetrail-load" --target nvidia --source table --driver-version 595.45.04 --dry-run 2>&1)
is "$(param nv_alloc_pool_bit "$p") $(param nv_alloc_page_table "$p")" "203 48" \
	"table: 595.45.04 has flags at 24/25 and page_table at 48"
p=$("$TOP/scripts/pagetrail-load" --target nvidia --source table --driver-version 580.105.08 --dry-run 2>&1)
ok $([ $? -ne 0 ]; echo $?) "table: a driver without the pool is refused"
like "$p" "predates the page pool" "table: and says why"
p=$("$TOP/scripts/pagetrail-load" --target nosuch --source btf --dry-run 2>&1)
ok $([ $? -ne 0 ]; echo $?) "btf: a target without BTF is refused"
summary

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
	obj=$(modules_for "$kv" "$out/$k" 2>/dev/null)
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
# 595.58.03 to 610.x keep 595.45.04's structures (nvidia-610.md D9; the
# facts in tests/fixtures/nvidia), and the table knows them: no guess.
for v in 595.58.03 595.71.05 595.80 610.43.02; do
	p=$("$TOP/scripts/pagetrail-load" --target nvidia --source table --driver-version $v --dry-run 2>&1)
	like "$p" "source=table \(driver $v" "table: $v is a known release"
	is "$(param nv_alloc_size "$p") $(param nv_alloc_usage_count "$p") $(param nv_alloc_usage_size "$p") $(param nv_alloc_pool_bit "$p") $(param nv_alloc_num_pages "$p") $(param nv_alloc_order "$p") $(param nv_alloc_page_table "$p")" \
		"112 16 8 203 32 36 48" "table: $v has 595.45.04's nv_alloc_t (atomic64_t usage_count, flags at 24/25, page_table at 48)"
	ok $(! grep -q "newer than the layouts" <<< "$p"; echo $?) "table: $v is not treated as an unknown newer release"
done
p=$("$TOP/scripts/pagetrail-load" --target nvidia --source table --driver-version 615.10.01 --dry-run 2>&1)
ok $? "table: a release newer than 610.x still gets a layout"
like "$p" "615\.10\.01 is newer than the layouts this table knows.*assuming 595\.45\.04's, not measured" \
	"table: and says it is assumed, not measured"
p=$("$TOP/scripts/pagetrail-load" --target nvidia --source table --driver-version 580.105.08 --dry-run 2>&1)
ok $([ $? -ne 0 ]; echo $?) "table: a driver without the pool is refused"
like "$p" "predates the page pool" "table: and says why"
# Pool offsets follow the kernel's lock sizes, read from its BTF: a kernel
# BTF made from a small C file stands in for a production kernel and for
# one with CONFIG_DETECT_HUNG_TASK_BLOCKER (struct semaphore + 8 bytes).
fake_btf() { # NAME EXTRA-SEMAPHORE-MEMBER
	printf '%s\n' 'struct spinlock { int raw; }; typedef struct spinlock spinlock_t;' \
		"struct semaphore { spinlock_t lock; unsigned int count; void *wait[2]; $2 };" \
		'struct shrinker { char body[64]; };' \
		'spinlock_t a; struct semaphore b; struct shrinker c;' > "$out/$1.c"
	gcc -g -c -o "$out/$1.o" "$out/$1.c" &&
		pahole --btf_encode_detached="$out/$1.btf" "$out/$1.o" 2>/dev/null
}
fake_btf prod "" && fake_btf blocker "unsigned long last_holder;"
ok $? "fixture kernel BTFs (semaphore of 24 and 32 bytes)"
table() { # BTF KERNEL-RELEASE
	PAGETRAIL_VMLINUX_BTF=$out/$1.btf PAGETRAIL_KERNEL_RELEASE=$2 "$TOP/scripts/pagetrail-load" \
		--target nvidia --source table --driver-version 595.45.04 --dry-run 2>&1
}
pool_of() { echo "$(param nv_pool_node_id "$1") $(param nv_pool_order "$1") $(param nv_pool_lock "$1") $(param nv_pool_size "$1") $(param nv_pool_shrinker "$1")"; }
p=$(table prod 6.12.95)
is "$(pool_of "$p")" "136 140 152 168 -1" "table, production 6.12 locks: pool offsets 136/140/152, size 168"
like "$p" "pool offsets from kernel BTF" "table: says the pool offsets come from the kernel's BTF"
p=$(table prod 6.1.0)
is "$(pool_of "$p")" "136 140 152 232 168" "table, production 6.1 locks: embedded shrinker at 168, size 232"
p=$(table blocker 6.18.44)
is "$(pool_of "$p")" "144 148 160 176 -1" "table, hung-task blocker: node_id/order/lock 144/148/160, size 176"
like "$p" "struct semaphore 32 bytes" "table: says the semaphore grew and by how much"
# Debian's built kernels (tests/fixtures/kernels, from their own BTF by
# scripts/debian-kernel-facts): a BTF with each one's recorded lock sizes
# must give the pool offsets the real BTF gave (6.16-7.0: a 32-byte
# semaphore, 7.1 on: 24 again).
sized_btf() { # NAME SPINLOCK SEMAPHORE SHRINKER
	printf '%s\n' "struct spinlock { char b[$2]; }; typedef struct spinlock spinlock_t;" \
		"struct semaphore { char b[$3]; }; struct shrinker { char b[$4]; };" \
		'spinlock_t a; struct semaphore b; struct shrinker c;' > "$out/$1.c"
	gcc -g -c -o "$out/$1.o" "$out/$1.c" &&
		pahole --btf_encode_detached="$out/$1.btf" "$out/$1.o" 2>/dev/null
}
for f in "$TOP"/tests/fixtures/kernels/*.facts; do
	fx() { sed -n "s/^$1=//p" "$f"; }
	r=$(fx release)
	sized_btf "k-$r" "$(fx spinlock_t)" "$(fx semaphore)" "$(fx shrinker)"
	p=$(PAGETRAIL_KERNEL_CONFIG=/dev/null table "k-$r" "$r")
	is "$(pool_of "$p")" "$(fx nv_pool_node_id) $(fx nv_pool_order) $(fx nv_pool_lock) $(fx nv_pool_size) $(fx nv_pool_shrinker)" \
		"table, Debian $r (semaphore $(fx semaphore) bytes): pool offsets as from its own BTF"
done

# No kernel BTF: the production sizes are assumed only when the config has
# nothing that grows the locks; else the table refuses, naming the option.
printf 'CONFIG_SMP=y\n' > "$out/plain.config"
printf 'CONFIG_SMP=y\nCONFIG_PREEMPT_RT=y\n' > "$out/rt.config"
nobtf() { # CONFIG
	PAGETRAIL_VMLINUX_BTF=$out/none.btf PAGETRAIL_KERNEL_CONFIG=$out/$1 PAGETRAIL_KERNEL_RELEASE=6.12.95 \
		"$TOP/scripts/pagetrail-load" --target nvidia --source table --driver-version 595.45.04 --dry-run 2>&1
}
p=$(nobtf plain.config)
is "$?:$(pool_of "$p")" "0:136 140 152 168 -1" "table, no kernel BTF, plain config: production pool offsets"
p=$(nobtf rt.config); rc=$?
is "$rc:$(param nv_pool_node_id "$p")" "1:" "table, no kernel BTF, PREEMPT_RT: refused, nothing printed"
like "$p" "no kernel BTF to size spinlock_t and struct semaphore, and this kernel has CONFIG_PREEMPT_RT=y" \
	"table: says why, naming the option"

p=$("$TOP/scripts/pagetrail-load" --target nosuch --source btf --dry-run 2>&1)
ok $([ $? -ne 0 ]; echo $?) "btf: a target without BTF is refused"
summary

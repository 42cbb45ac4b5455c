#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The loader and the probe profile against the facts measured on the real
# NVIDIA open module (tests/fixtures/nvidia, made by scripts/nvidia-facts):
# the table source gives exactly the offsets pahole measured for each
# release, kernel and compiler, and every probe whose symbol an optimising
# build drops is optional in module/nvidia/profile.c. Needs neither the
# NVIDIA source nor the network.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-nvidia-facts}
dir=${PAGETRAIL_NVIDIA_FACTS:-$TOP/tests/fixtures/nvidia}
mkdir -p "$out"

loader=${PAGETRAIL_LOAD:-$TOP/scripts/pagetrail-load}
keys_alloc="nv_alloc_size nv_alloc_usage_count nv_alloc_usage_size nv_alloc_pool_bit nv_alloc_num_pages nv_alloc_order nv_alloc_page_table"
keys_other="nv_pte_size nv_pte_phys_addr nv_pte_virt_addr nv_entry_virt_addr nv_entry_list_node"
keys_pool="nv_pool_size nv_pool_clean_list nv_pool_dirty_list nv_pool_node_id nv_pool_order nv_pool_lock nv_pool_shrinker"

fact() { sed -n "s/^$1=//p" "$f"; }
param() { sed -n "s/^$1=//p" <<< "$2"; }
vals() { # KEYS TEXT-WITH-KEY=VALUE-LINES
	local k s=
	for k in $1; do s="$s $k=$(sed -n "s/^$k=//p" <<< "$2")"; done
	echo "${s# }"
}

shopt -s nullglob
files=("$dir"/*.facts)
ok $([ ${#files[@]} -ge 12 ]; echo $?) "at least 12 facts files (3 releases x 2 kernels x 2 compilers): ${#files[@]}"
rels=$(sed -n 's/^release=//p' "${files[@]}" | sort -u | tr '\n' ' ')
like "$rels" "590\.44\.01 590\.48\.01 595\.45\.04" "releases measured: $rels"
modes=$(sed -n 's/^compiler=//p' "${files[@]}" | sort -u | tr '\n' ' ')
like "$modes" "gcc-O2" "compilers measured include the kbuild default gcc-O2: $modes"
like "$modes" "gcc-O3|clang-O2" "and an inlining build (gcc-O3 or clang-O2)"

# The probe table: DRV is required, DRV_INLINABLE optional.
profile=${PAGETRAIL_NV_PROFILE:-$TOP/module/nvidia/profile.c}
required=$(sed -n 's/^[ \t]*DRV("\([a-z_0-9]*\)".*/\1/p' "$profile" | sort)
optional=$(sed -n 's/^[ \t]*DRV_INLINABLE("\([a-z_0-9]*\)".*/\1/p' "$profile" | sort)
ok $([ -n "$required" ] && [ -n "$optional" ]; echo $?) "profile.c: $(wc -w <<< "$required") required and $(wc -w <<< "$optional") optional driver probes"

# A kernel BTF with the lock sizes a facts file measured (as in loader.sh):
# the table source reads spinlock_t, struct semaphore and struct shrinker.
kernel_btf() { # SPIN SEM SHRINKER -> path
	local name=locks-$1-$2-$3
	if [ ! -s "$out/$name.btf" ]; then
		{
			echo "struct spinlock { char b[$1]; }; typedef struct spinlock spinlock_t;"
			echo "struct semaphore { char b[$2]; };"
			[ "$3" -lt 0 ] || echo "struct shrinker { char b[$3]; }; struct shrinker c;"
			echo "spinlock_t a; struct semaphore b;"
		} > "$out/$name.c"
		gcc -g -c -o "$out/$name.o" "$out/$name.c" &&
			pahole --btf_encode_detached="$out/$name.btf" "$out/$name.o" 2>/dev/null
	fi
	echo "$out/$name.btf"
}

inlining_seen=0
for f in "${files[@]}"; do
	rel=$(fact release) kv=$(fact kernel) mode=$(fact compiler)
	t="$rel/$(fact kernel_label)/$mode"
	ok $([ -n "$rel" ] && [ -n "$kv" ] && [ -n "$mode" ] && [ -n "$(fact date)" ] &&
		[ "$(basename "$f")" = "${rel}__$(fact kernel_label)__$mode.facts" ]; echo $?) \
		"$t: header names release, kernel, compiler and date, as the file name does"
	# At generation time the loader's DWARF path read the object itself.
	is "$(fact loader_dwarf_agrees)" "yes" "$t: the loader's DWARF path on the object agreed with pahole"

	# The table source now, for this kernel's lock sizes and release.
	btf=$(kernel_btf "$(fact kernel_spinlock_size)" "$(fact kernel_semaphore_size)" "$(fact kernel_shrinker_size)")
	p=$(PAGETRAIL_VMLINUX_BTF=$btf PAGETRAIL_KERNEL_RELEASE=$kv "$loader" \
		--target nvidia --source table --driver-version "$rel" --dry-run 2>&1)
	facts=$(cat "$f")
	is "$(vals "$keys_alloc" "$p")" "$(vals "$keys_alloc" "$facts")" "$t: table nv_alloc_t = pahole"
	is "$(vals "$keys_other" "$p")" "$(vals "$keys_other" "$facts")" "$t: table nvidia_pte_t and pool entry = pahole"
	is "$(vals "$keys_pool" "$p")" "$(vals "$keys_pool" "$facts")" \
		"$t: table nv_page_pool_t = pahole (spinlock_t $(fact kernel_spinlock_size), semaphore $(fact kernel_semaphore_size))"

	# Every driver probe was measured; an absent symbol is an optional probe.
	missing= bad= inl=
	for s in $required $optional; do
		v=$(fact "sym\.$s")
		case $v in
		"") missing="$missing $s" ;;
		-) inl="$inl $s"; grep -qx "$s" <<< "$optional" || bad="$bad $s" ;;
		esac
	done
	is "${missing# }" "" "$t: every driver probe of profile.c was measured (else regenerate the facts)"
	is "${bad# }" "" "$t: no required probe is inlined${inl:+ (inlined:$inl)}"
	[ -z "$inl" ] || inlining_seen=1
	# A clone (.isra, .constprop, .part) may take other registers: none
	# expected. A .cold part is code split off a function that keeps its
	# entry and return, so probes are unaffected.
	is "$(sed -n 's/^clones\.[a-z_0-9]*=//p' "$f" | tr ',' '\n' | grep -v '\.cold$' | tr '\n' ' ')" "" \
		"$t: no clones of probed functions$(grep -q '^clones' "$f" && echo " (only .cold parts:" $(sed -n 's/^clones\.[a-z_0-9]*=//p' "$f")")")"

	# Where the kernel's config is installed, its lock options are the ones recorded.
	cfg=/lib/modules/$kv/build/.config
	if [ -r "$cfg" ]; then
		o=
		for x in DETECT_HUNG_TASK_BLOCKER PREEMPT_RT DEBUG_SPINLOCK DEBUG_LOCK_ALLOC MEMCG SHRINKER_DEBUG; do
			grep -q "^CONFIG_$x=y" "$cfg" && o="$o${o:+,}$x"
		done
		is "$(fact kernel_options)" "${o:-none}" "$t: installed $kv config has the recorded lock options"
	fi
done

# What the facts say, pinned: numbers from pahole, names from nm.
pick() { # RELEASE KERNEL-GLOB MODE KEY...
	local g k s=
	g=($dir/${1}__${2}__$3.facts)	# KERNEL-GLOB expands here
	[ -r "${g[0]}" ] || { echo "no facts for $1 $2 $3"; return; }
	shift 3
	for k; do s="$s $(sed -n "s/^$k=//p" "${g[0]}")"; done
	echo "${s# }"
}
is "$(pick 590.44.01 '6.12.*[0-9]-amd64' gcc-O2 nv_alloc_size nv_alloc_usage_size nv_alloc_pool_bit nv_alloc_page_table)" "104 4 171 40" \
	"590.44.01: nv_alloc_t 104 bytes, atomic_t usage_count, pool bit 171, page_table at 40"
is "$(pick 595.45.04 '6.12.*[0-9]-amd64' gcc-O2 nv_alloc_size nv_alloc_usage_size nv_alloc_pool_bit nv_alloc_page_table)" "112 8 203 48" \
	"595.45.04: nv_alloc_t 112 bytes, atomic64_t usage_count, pool bit 203, page_table at 48"
is "$(pick 595.45.04 '6.1.*' gcc-O2 nv_pool_node_id nv_pool_order nv_pool_lock nv_pool_shrinker nv_pool_size)" "136 140 152 168 232" \
	"6.1: pool node_id/order/lock 136/140/152, embedded shrinker at 168, size 232"
is "$(pick 595.45.04 '6.12.*[0-9]-amd64' gcc-O2 nv_pool_node_id nv_pool_order nv_pool_lock nv_pool_shrinker nv_pool_size)" "136 140 152 -1 168" \
	"6.12: pool node_id/order/lock 136/140/152, no embedded shrinker, size 168"
is "$(pick 595.45.04 '6.12.*[0-9]-amd64' gcc-O2 sym.nv_alloc_set_page sym.nv_mem_pool_move_pages sym.nv_mem_pool_free_page_list sym.nv_alloc_coherent_pages)" "t t t t" \
	"gcc-O2 (kbuild): the static helpers stay out of line"
is "$(pick 595.45.04 '6.12.*[0-9]-amd64' gcc-O3 sym.nv_alloc_set_page sym.nv_mem_pool_move_pages sym.nv_mem_pool_free_page_list sym.nv_alloc_coherent_pages)" "- - - t" \
	"gcc-O3: set_page, move_pages and free_page_list inlined; coherent_pages kept"
ok $([ $inlining_seen = 1 ]; echo $?) "at least one measured build inlines a probed helper (the optional split is exercised)"
is "$(pick 595.45.04 '6.12.*-rt-amd64' gcc-O2 kernel_spinlock_size kernel_semaphore_size nv_pool_node_id nv_pool_order nv_pool_lock nv_pool_size)" \
	"32 24 160 164 176 192" "6.12 PREEMPT_RT: spinlock_t 32 bytes (an rt_mutex) moves the pool to 160/164/176, size 192"
is "$(pick 595.45.04 '7.*-kb-prod-7.x' gcc-O2 sym.nv_alloc_set_page sym.nv_mem_pool_move_pages sym.nv_mem_pool_free_page_list)" "t - t" \
	"7.3 defconfig, GCC 12 -O2 as kbuild builds it: nv_mem_pool_move_pages already inlined"
# CONFIG_DETECT_HUNG_TASK_BLOCKER (6.16+) adds last_holder to struct
# semaphore. On 6.16-6.x that is 8 more bytes (32: the pool moves to
# 144/148/160, loader.sh's fixture BTF); Linux 7.3 also replaced its
# wait_list by a first_waiter pointer, so with the blocker it is 24 bytes
# again and the pool is where it is on 6.12. Measured, not assumed:
blocker=0
for f in "${files[@]}"; do
	grep -q 'DETECT_HUNG_TASK_BLOCKER' <<< "$(fact kernel_options)" || continue
	blocker=1
	like "$(fact kernel_semaphore_members)" "(^|,)last_holder(,|$)" \
		"$(fact release)/$(fact kernel_label)/$(fact compiler): hung-task blocker: struct semaphore has last_holder"
done
ok $([ $blocker = 1 ]; echo $?) "a kernel with the hung-task blocker was measured"
is "$(pick 595.45.04 '7.*-kb-prod-7.x' gcc-O2 kernel_semaphore_members kernel_semaphore_size nv_pool_node_id nv_pool_order nv_pool_lock nv_pool_size)" \
	"lock,count,first_waiter,last_holder 24 136 140 152 168" \
	"7.3 defconfig with the blocker: semaphore 24 bytes (first_waiter, last_holder), pool 136/140/152, size 168"
is "$(pick 595.45.04 '7.*-kb-debug-7.x' gcc-Os kernel_spinlock_size kernel_semaphore_size nv_pool_node_id nv_pool_order nv_pool_lock nv_pool_size)" \
	"72 96 272 276 288 304" \
	"7.3 test kernel (blocker, lockdep, spinlock debugging): spinlock_t 72, semaphore 96, pool 272/276/288, size 304"
# 595.58.03 to 610.43.02 (NVIDIA's release commits, from a fork that carries
# them: shared/reference/nvidia-610.md). Their structures are 595.45.04's
# (D9): every layout and lock key equals 595.45.04's on the same kernel and
# compiler, wherever both were measured.
like "$rels" "595\.58\.03 595\.71\.05 595\.80 610\.43\.02" "releases measured include 595.58.03 to 610.43.02: $rels"
# The kernels they are measured on, and the glob of their files' kernel
# label: Debian's 6.1, 6.12 and 6.12-rt as installed, and Debian's 7.3
# headers package unpacked by scripts/debian-kernel (labelled as installed).
kglob() {
	case $1 in
	6.1) echo '6.1.*' ;;
	6.12) echo '6.12.*[0-9]-amd64' ;;
	6.12-rt) echo '6.12.*-rt-amd64' ;;
	7.3) echo '7.*+deb13-amd64' ;;
	esac
}
measured_on() { # RELEASE -> the kernel names it has facts for (all four: all)
	echo 6.1 6.12 6.12-rt 7.3
}
want=0
for r in 595.58.03 595.71.05 595.80 610.43.02; do
	for k in $(measured_on $r); do
		for m in gcc-O2 gcc-O3 clang-O2; do
			g=($dir/${r}__$(kglob $k)__$m.facts)
			ok $([ -r "${g[0]}" ]; echo $?) "$r $k $m: measured"
			want=$((want + 1))
		done
	done
done
lkeys="$keys_alloc $keys_other $keys_pool kernel_spinlock_size kernel_semaphore_size kernel_shrinker_size"
same=0
for f in "${files[@]}"; do
	case $(fact release) in 595.58.03|595.71.05|595.80|610.43.02) ;; *) continue ;; esac
	label=$(fact kernel_label) k=$lkeys
	base=$dir/595.45.04__${label}__$(fact compiler).facts
	case $label in
	*+deb13-amd64)
		# 595.45.04 was measured on a 7.3 defconfig tree with the hung-task
		# blocker, not on Debian's: Debian's adds MEMCG, which changes
		# struct shrinker only, and the pool has none on 7.3.
		base=$dir/595.45.04__${label%%+*}-kb-prod-7.x__$(fact compiler).facts
		k=${lkeys% kernel_shrinker_size} ;;
	esac
	[ -r "$base" ] || continue
	same=$((same + 1))
	is "$(vals "$k" "$(cat "$f")")" "$(vals "$k" "$(cat "$base")")" \
		"$(fact release)/$label/$(fact compiler): layout and lock sizes as 595.45.04's ($(basename "$base" .facts | sed 's/^595\.45\.04__//'))"
done
is "$same" "$want" "the four releases compared with 595.45.04 on every kernel they were measured on, three compilers each"
# 610.x: the take and the admission are static and inlined into their one
# caller in every build; destroy is static too but kept out of line.
for k in $(measured_on 610.43.02); do
	for m in gcc-O2 gcc-O3 clang-O2; do
		is "$(pick 610.43.02 "$(kglob $k)" $m sym.nv_mem_pool_alloc_pages sym.nv_mem_pool_free_pages sym.nv_mem_pool_destroy sym.nv_alloc_system_pages sym.nv_free_system_pages)" \
			"- - t T T" "610.43.02 $k $m: alloc_pages and free_pages inlined, destroy static (t), their callers kept"
	done
	is "$(pick 610.43.02 "$(kglob $k)" gcc-O2 sym.nv_alloc_set_page sym.nv_mem_pool_move_pages sym.nv_mem_pool_free_page_list)" "t t t" \
		"610.43.02 $k gcc-O2 (kbuild): move_pages, the take's fallback, is still a symbol"
done
# Linux 7.x has no linux/of_gpio.h. 595.58.03 includes it unconditionally
# (kernel-open/common/inc/nv-linux.h:1729, "fatal error: linux/of_gpio.h:
# No such file or directory" building nvidia/nv-vm.c on Debian's 7.3), so it
# is measured there with an empty stand-in, as 595.45.04 on the 7.3 trees;
# nothing in nv-vm.c or nv-mmap.c uses it. From 595.71.05 NVIDIA's conftest
# (NV_LINUX_OF_GPIO_H_PRESENT) has a compat and the build needs no stub.
for r in 595.58.03 595.71.05 595.80 610.43.02; do
	want=
	[ $r != 595.58.03 ] || want="linux/of_gpio.h (missing from this kernel; empty)"
	for m in gcc-O2 gcc-O3 clang-O2; do
		is "$(pick $r '7.*+deb13-amd64' $m build_stub_headers)" "$want" \
			"$r 7.3 $m: $([ -n "$want" ] && echo "built with an empty linux/of_gpio.h" || echo "built without a stub header")"
	done
done
# 595.58.03 to 595.80 keep the pool entry points global, as 595.45.04 did.
for r in 595.58.03 595.71.05 595.80; do
	for k in $(measured_on $r); do
		for m in gcc-O2 gcc-O3 clang-O2; do
			is "$(pick $r "$(kglob $k)" $m sym.nv_mem_pool_alloc_pages sym.nv_mem_pool_free_pages sym.nv_mem_pool_destroy)" \
				"T T T" "$r $k $m: alloc_pages, free_pages and destroy global and out of line"
		done
	done
done
summary

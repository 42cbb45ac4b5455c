#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms add + build for both installed Debian kernels, in a private DKMS tree
# (the system's /var/lib/dkms and /usr/src stay untouched), then install and
# remove into a private install tree with pagetrail(4) going along.
. "$(dirname "$0")/tap.bash"
out=$(realpath -m "${1:-$BUILD/host-dkms}")
rm -rf "$out"
mkdir -p "$out/tree" "$out/src"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
"$TOP/scripts/dkms-source" "$out/src" > /dev/null
# dkms signs what it builds; keep its generated key out of /var/lib/dkms.
export mok_signing_key=$out/mok.key mok_certificate=$out/mok.pub
D=(dkms --dkmstree "$out/tree" --sourcetree "$out/src")

"${D[@]}" add -m pagetrail -v "$ver" > "$out/add.log" 2>&1
ok $? "dkms add pagetrail/$ver"
for k in 6.1 6.12; do
	kv=$(stock_kernel "$k")
	"${D[@]}" build -m pagetrail -v "$ver" -k "$kv" > "$out/build-$k.log" 2>&1
	ok $? "dkms build for $kv"
	[ $? = 0 ] || tail -n 30 "$out/build-$k.log" | sed 's/^/# /'
	ko=$(find "$out/tree/pagetrail/$ver/$kv" -name 'pagetrail.ko*' | head -n1)
	ok $([ -n "$ko" ]; echo $?) "$k: pagetrail.ko built ($(basename "${ko:-none}"))"
done
st=$("${D[@]}" status 2>&1)
for k in 6.1 6.12; do
	grep -qF "pagetrail/$ver, $(stock_kernel $k), x86_64: built" <<< "$st"
	ok $? "dkms status lists the $k build"
done

# dkms install and remove into a private install tree (no depmod): the
# package's pagetrail(4) comes with the module (POST_INSTALL) and goes with
# it from the last kernel (POST_REMOVE); PAGETRAIL_MANDIR keeps it here.
export PAGETRAIL_MANDIR=$out/man
I=("${D[@]}" --installtree "$out/lib" --no-depmod)
for k in 6.1 6.12; do
	mkdir -p "$out/lib/$(stock_kernel $k)"
	"${I[@]}" install -m pagetrail -v "$ver" -k "$(stock_kernel $k)" > "$out/install-$k.log" 2>&1
	ok $? "dkms install for $k (private install tree)"
done
cmp -s "$out/man/man4/pagetrail.4" "$out/src/pagetrail-$ver/man/pagetrail.4"
ok $? "dkms install put the package's pagetrail(4) in place"
"${I[@]}" remove -m pagetrail -v "$ver" -k "$(stock_kernel 6.1)" > "$out/remove-6.1.log" 2>&1
ok $([ -f "$out/man/man4/pagetrail.4" ]; echo $?) "dkms remove for 6.1 keeps pagetrail(4): 6.12 still has the module"
"${I[@]}" remove -m pagetrail -v "$ver" -k "$(stock_kernel 6.12)" > "$out/remove-6.12.log" 2>&1
ok $([ ! -e "$out/man/man4/pagetrail.4" ]; echo $?) "dkms remove for the last kernel removes pagetrail(4)"
is "$(find "$out/lib" -name 'pagetrail.ko*' | wc -l)" 0 "dkms remove took the modules out of the install tree"
summary

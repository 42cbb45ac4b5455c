#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages: pagetrail(8), pagetrail-load(8) and pagetrail(4) render
# without a warning; pagetrail(4)'s parameters and debugfs files are the
# module's (module_param, debugfs_create_file) and README's, row for row;
# pagetrail-load(8)'s options are the script's; make install puts every
# page and the bash completion where man and bash-completion look; the
# DKMS package ships pagetrail(4) and its POST_INSTALL/POST_REMOVE put it
# in place and take it away with the last kernel.
. "$(dirname "$0")/tap.bash"
out=$(realpath -m "${1:-$BUILD/host-man}")
rm -rf "$out"
mkdir -p "$out"
M=$TOP/build/man

make -s -C "$TOP" man > "$out/build.log" 2>&1
ok $? "make man: pagetrail.8, pagetrail-load.8, pagetrail.4"
for p in pagetrail.8 pagetrail-load.8 pagetrail.4; do
	is "$(groff -man -Tutf8 -ww -z "$M/$p" 2>&1)" "" "$p: groff -man -ww renders it without a warning"
	if command -v man > /dev/null; then
		is "$(MANWIDTH=80 man -l "$M/$p" 2>&1 > /dev/null)" "" "$p: man -l renders it without a warning"
	fi
done

# A section of the roff page: from .SH NAME to the next .SH.
section() { awk -v s=".SH $2" '$0 == s { on = 1; next } /^\.SH / { on = 0 } on' "$1"; }
# The tags of a section's .TP entries, one name a line.
tags() { section "$1" "$2" | awk '/^\.TP$/ { getline; print }' | sed 's/\\-/-/g' |
	grep -o '\\fB[^\\]*\\fR' | sed 's/\\fB//; s/\\fR//' | sort -u; }
# A README table's first column (every name in backquotes), under HEADING.
readme_names() { awk -v h="$1" '$0 == h { on = 1; next } on && /^#/ { exit } on && /^\| `/' "$TOP/README.md" |
	cut -d'|' -f2 | grep -o '`[^`]*`' | tr -d '`' | sort -u; }

# Module parameters: module_param(NAME, ...), module_param_named(NAME, ...),
# and a macro that wraps module_param_named(PREFIX##arg, ...).
code_params() {
	find "$TOP/module" -name '*.c' -print0 | xargs -0 awk '
		FNR == 1 { delete wrap }
		/^#define [A-Za-z_0-9]+\(/ { name = $2; sub(/\(.*/, "", name); def = $0
			while (def ~ /\\$/ && (getline l) > 0) def = def l
			if (match(def, /module_param_named\([a-z_0-9]*##/)) {
				p = substr(def, RSTART + 19, RLENGTH - 21); wrap[name] = p } }
		{ for (m in wrap) if (match($0, "^" m "\\([a-z_0-9]+")) print wrap[m] substr($0, RSTART + length(m) + 1, RLENGTH - length(m) - 1) }
		match($0, /module_param(_named)?\([a-z_0-9]+,/) && $0 !~ /##/ {
			s = substr($0, RSTART, RLENGTH - 1); sub(/.*\(/, "", s); print s }' | sort -u
}
code_params > "$out/params.code"
readme_names "## Module parameters" > "$out/params.readme"
tags "$M/pagetrail.4" PARAMETERS > "$out/params.man"
is "$(wc -l < "$out/params.code")" "$(grep -c . "$out/params.code")" "module parameters found in module/ ($(wc -l < "$out/params.code"))"
is "$(diff "$out/params.code" "$out/params.readme" | grep '^[<>]' | tr '\n' ' ')" "" \
	"README's parameter table names every module_param, and nothing else (< code only, > README only)"
is "$(diff "$out/params.code" "$out/params.man" | grep '^[<>]' | tr '\n' ' ')" "" \
	"pagetrail(4) PARAMETERS: one entry per module parameter"
# A parameter only root may read says so in its row.
priv=$(grep -rhoE 'module_param(_named)?\([a-z_0-9]+, [^,]+, [^,]+, 0400\)|module_param\([a-z_0-9]+, [a-z]+, 0400\)' "$TOP/module" |
	sed -E 's/module_param(_named)?\(([a-z_0-9]+),.*/\2/' | sort -u)
bad=
for p in $priv; do
	grep -qE "^\| \`$p\` \| [^|]* \| \(mode 0400" "$TOP/README.md" || bad="$bad $p"
done
is "${priv:+x}:$bad" "x:" "the 0400 parameters ($(echo $priv)) say 'mode 0400' in README and pagetrail(4)"

# debugfs files.
grep -rhoE 'debugfs_create_file\("[^"]+"' "$TOP/module" | sed 's/.*("//; s/"$//' | sort -u > "$out/files.code"
readme_names "## debugfs: /sys/kernel/debug/pagetrail/ (root only)" > "$out/files.readme"
tags "$M/pagetrail.4" FILES > "$out/files.man"
is "$(diff "$out/files.code" "$out/files.readme" | grep '^[<>]' | tr '\n' ' ')" "" \
	"README's debugfs table names every file the module creates, and nothing else"
is "$(diff "$out/files.code" "$out/files.man" | grep '^[<>]' | tr '\n' ' ')" "" \
	"pagetrail(4) FILES: one entry per debugfs file"
like "$(section "$M/pagetrail.4" SECURITY)" "nv_pools_addr" "pagetrail(4) SECURITY: README's 'Who can see what'"
like "$(section "$M/pagetrail.4" TRACEPOINTS)" "devcg_deny" "pagetrail(4) TRACEPOINTS: README's tracepoints"
printf '# x\n' > "$out/nosection.md"
PAGETRAIL_README=$out/nosection.md "$TOP/scripts/mkman" "$TOP/man/pagetrail.4.md" > /dev/null 2> "$out/mkman.err"
rc=$?
like "$rc $(cat "$out/mkman.err")" "^1 mkman: .*/pagetrail.4.md: no section '## Module parameters'" "mkman: a README section gone is an error, not an empty page section"
sed 's/`overwrite=0\\|1`/`overwrite=0|1`/' "$TOP/README.md" > "$out/badtable.md"
PAGETRAIL_README=$out/badtable.md "$TOP/scripts/mkman" "$TOP/man/pagetrail.4.md" > /dev/null 2> "$out/mkman2.err"
like "$? $(cat "$out/mkman2.err")" "^1 mkman: 3 cells where the header has 2" "mkman: a table row split by an unescaped | is an error"

# pagetrail-load(8): the options its case statement takes, and no others.
grep -oE '^	(-h\|)?--[a-z-]+\)' "$TOP/scripts/pagetrail-load" | tr -d '\t)' | tr '|' '\n' | grep -v '^--$' | sort -u > "$out/load.code"
tags "$M/pagetrail-load.8" OPTIONS | grep -v '^--$' > "$out/load.man"
is "$(diff "$out/load.code" "$out/load.man" | grep '^[<>]' | tr '\n' ' ')" "" \
	"pagetrail-load(8) OPTIONS: the script's options ($(tr '\n' ' ' < "$out/load.code"))"

# make install: the pages where man looks, the completion where bash-completion does.
d=$out/destdir
make -s -C "$TOP" install DESTDIR="$d" > "$out/install.log" 2>&1
ok $? "make install DESTDIR=$d"
for p in man8/pagetrail.8 man8/pagetrail-load.8 man4/pagetrail.4; do
	cmp -s "$d/usr/local/share/man/$p" "$M/${p#*/}"
	ok $? "installed /usr/local/share/man/$p"
done
if command -v man > /dev/null; then
	like "$(manpath -g 2> /dev/null)" "(^|:)/usr/local/share/man(:|$)" "man's default path has /usr/local/share/man"
	for p in "8 pagetrail" "8 pagetrail-load" "4 pagetrail"; do
		is "$(man -M "$d/usr/local/share/man" -w $p 2>&1)" "$d/usr/local/share/man/man${p% *}/${p#* }.${p% *}" \
			"man -w $p finds the installed page"
	done
	like "$(MANWIDTH=80 man -M "$d/usr/local/share/man" 4 pagetrail 2>&1)" "^PAGETRAIL\(4\) .*Kernel Interfaces" "man 4 pagetrail shows it"
fi
cmp -s "$d/usr/local/share/bash-completion/completions/pagetrail" "$TOP/tools/pagetrail/pagetrail.bash"
ok $? "installed /usr/local/share/bash-completion/completions/pagetrail"
make -s -C "$TOP" install DESTDIR="$d/p" PREFIX=/usr > /dev/null 2>&1
ok $([ -f "$d/p/usr/share/bash-completion/completions/pagetrail" ] && [ -f "$d/p/usr/share/man/man4/pagetrail.4" ]; echo $?) \
	"PREFIX=/usr: /usr/share/bash-completion/completions/pagetrail and /usr/share/man/man4/pagetrail.4"
if [ -r /usr/share/bash-completion/bash_completion ]; then
	is "$(XDG_DATA_DIRS=$d/usr/local/share bash -c '. /usr/share/bash-completion/bash_completion
		__load_completion pagetrail; complete -p pagetrail' 2>&1)" "complete -F _pagetrail pagetrail" \
		"bash-completion loads the installed completion on demand"
fi

# The DKMS package: pagetrail(4) shipped, installed and removed by DKMS.
src=$("$TOP/scripts/dkms-source" "$out/dkms")
cmp -s "$src/man/pagetrail.4" "$M/pagetrail.4"
ok $? "dkms-source ships man/pagetrail.4"
for k in POST_INSTALL POST_REMOVE; do
	s=$(. "$src/dkms.conf" 2> /dev/null; eval echo "\$$k")
	ok $([ -n "$s" ] && [ -x "$src/${s%% *}" ]; echo $?) "dkms.conf $k ($s) is an executable in the package"
done
# DKMS runs them in its tree's pagetrail/VERSION/source.
t=$out/dkmstree/pagetrail
ver=$(basename "$src"); ver=${ver#pagetrail-}
mkdir -p "$t/$ver" && ln -s "$src" "$t/$ver/source"
ln -s "$ver/6.1.0-x/x86_64" "$t/kernel-6.1.0-x-x86_64"
ln -s "$ver/6.12.0-x/x86_64" "$t/kernel-6.12.0-x-x86_64"
mp=$out/dkmsman
dk() { (cd "$t/$ver/source" && PAGETRAIL_MANDIR=$mp bash -c "$(. "$src/dkms.conf"; eval echo "\$$1")") > /dev/null 2>&1; }
dk POST_INSTALL
cmp -s "$mp/man4/pagetrail.4" "$M/pagetrail.4"
ok $? "POST_INSTALL installs pagetrail(4)"
rm "$t/kernel-6.1.0-x-x86_64" && dk POST_REMOVE
ok $([ -f "$mp/man4/pagetrail.4" ]; echo $?) "POST_REMOVE keeps it while another kernel has the module"
rm "$t/kernel-6.12.0-x-x86_64" && dk POST_REMOVE
ok $([ ! -e "$mp/man4/pagetrail.4" ]; echo $?) "POST_REMOVE of the last kernel removes it"
summary

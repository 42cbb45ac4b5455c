#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion (tools/pagetrail/pagetrail.bash), driven as bash
# drives it (COMP_WORDS, COMP_CWORD, then _pagetrail): subcommands, every
# subcommand's options as its --help lists them, option values, a
# capture's pfns after history --from, a trace's after --trace, the live
# pages table without reading events.bin, and capture's command.
. "$(dirname "$0")/tap.bash"
out=$(realpath -m "${1:-$BUILD/host-completion}")
rm -rf "$out"
mkdir -p "$out"
FX=$TOP/tests/host/fixtures
export LC_ALL=C

make -s -C "$TOP" "$BUILD/progs/pagetrail" > "$out/build.log" 2>&1
ok $? "pagetrail builds"
gcc -O2 -Wall -Wextra -Werror -I"$TOP/include" -I"$TOP/tools/pagetrail" -o "$out/ptfixture" \
	"$TOP/tests/host/ptfixture.c" "$TOP/tools/pagetrail/records.c"
ok $? "ptfixture builds"
"$out/ptfixture" "$FX/foreign.fx" "$out/foreign"
PAGETRAIL_DEBUGFS=$out/foreign "$BUILD/progs/pagetrail" capture -o "$out/foreign.cap" 2> /dev/null

# comp WORD...: the candidates for the last word, sorted, on one line.
comp() {
	(cd "$out" && PATH=$BUILD/progs:$PATH bash -c '
		. "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_pagetrail
		printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " "' \
		"$TOP/tools/pagetrail/pagetrail.bash" "$@") | sed 's/ $//'
}

subs="anomalies capture decode denials devices diagnose evidence history status timeline"
is "$(comp pagetrail "")" "--help --version ${subs/ history/ help history}" "pagetrail <TAB>: every subcommand, help, --help, --version"
is "$(comp pagetrail d)" "decode denials devices diagnose" "pagetrail d<TAB>"
is "$(comp pagetrail help di)" "diagnose" "pagetrail help di<TAB>: the subcommands"
is "$(comp pagetrail nosuch "")" "" "an unknown subcommand: nothing"

# Each subcommand's options are the ones its --help lists (one table).
bad=
for s in $subs; do
	want=$("$BUILD/progs/pagetrail" "$s" --help | sed -n '/^options:$/,/^$/p' |
		grep -oE '^  (-[a-zA-Z], )?--[a-z-]+' | tr -d ',' | tr ' ' '\n' | grep . | sort -u | tr '\n' ' ' | sed 's/ $//')
	got=$(comp pagetrail "$s" -)
	[ "$got" = "$want" ] || { bad="$bad $s"; printf '#   %s: got %s\n#   want %s\n' "$s" "$got" "$want"; }
done
is "$bad" "" "pagetrail SUB -<TAB>: the options SUB --help lists, for all ten"
is "$(comp pagetrail status --j)" "--json" "pagetrail status --j<TAB>"

# Option values: a fixed set, a file, a directory.
is "$(comp pagetrail devices --cgroup "")" "legacy unified" "devices --cgroup <TAB>: unified, legacy"
is "$(comp pagetrail history --from fore)" "foreign foreign.cap" "history --from <TAB>: files"
mkdir -p "$out/dd"
is "$(comp pagetrail status --debugfs d)" "dd" "status --debugfs <TAB>: directories only"
is "$(comp pagetrail evidence -o "")" "dd foreign" "evidence -o DIR <TAB>: directories"
is "$(comp pagetrail timeline -o "")" "$(cd "$out" && ls -A | tr '\n' ' ' | sed 's/ $//')" "timeline -o FILE.svg <TAB>: files"

# history's PFN: the pfns of the source on the line.
pfns=$("$BUILD/progs/pagetrail" decode --from "$out/foreign.cap" | grep -o ' pfn=0x[0-9a-f]*' |
	sed 's/ pfn=//' | grep -v '^0x0$' | sort -u | tr '\n' ' ' | sed 's/ $//')
is "$(comp pagetrail history --from foreign.cap "")" "$pfns" "history --from CAPTURE <TAB>: the capture's pfns ($pfns)"
is "$(comp pagetrail history --from foreign.cap 0x2)" "0x22000" "history --from CAPTURE 0x2<TAB>"
is "$(comp pagetrail history --from = foreign.cap "")" "$pfns" "history --from=CAPTURE <TAB> (bash splits at =)"
is "$(comp pagetrail history --json --from foreign "")" "$pfns" "history --from DIR <TAB>: the directory's pfns"
is "$(comp pagetrail history --from foreign.cap 0x11a40 "")" "" "history: one PFN only"
is "$(comp pagetrail history --from nosuch.cap "")" "" "history --from a missing file: nothing, no error on the terminal"
if "$BUILD/progs/pagetrail" status --trace "$FX/stale_nozero.dat" > /dev/null 2>&1 ||
	[ $? = 1 ]; then
	tp=$("$BUILD/progs/pagetrail" decode --trace "$FX/stale_nozero.dat" | grep -o ' pfn=0x[0-9a-f]*' |
		sed 's/ pfn=//' | grep -v '^0x0$' | sort -u | tr '\n' ' ' | sed 's/ $//')
	is "$(comp pagetrail history --trace "$FX/stale_nozero.dat" "" | wc -w) $(comp pagetrail history --trace "$FX/stale_nozero.dat" "")" \
		"$(wc -w <<< "$tp") $tp" "history --trace TRACE.DAT <TAB>: the trace's pfns"
fi
# Live: only the pages table, never events.bin (reading it consumes). A
# FIFO there would block a reader: completion returns at once regardless.
mkdir -p "$out/live"
cp "$out/foreign"/* "$out/live/"
rm "$out/live/events.bin" && mkfifo "$out/live/events.bin"
pages=$(grep -o '^pfn=0x[0-9a-f]*' "$out/live/pages" | sed 's/pfn=//' | sort -u | tr '\n' ' ' | sed 's/ $//')
is "$(PAGETRAIL_DEBUGFS=$out/live timeout 10 bash -c "$(declare -f comp); out=$out TOP=$TOP BUILD=$BUILD comp pagetrail history ''")" "$pages" \
	"history <TAB> on the live debugfs: the pages table's pfns, events.bin not read"
is "$(timeout 10 bash -c "$(declare -f comp); out=$out TOP=$TOP BUILD=$BUILD comp pagetrail history --debugfs live ''")" "$pages" \
	"history --debugfs DIR <TAB>: the same"

# capture runs a command: after it (or --), the shell's commands, then files.
like "$(comp pagetrail capture -- bas)" "(^| )bash( |$)" "capture -- <TAB>: commands"
like "$(comp pagetrail capture bas)" "(^| )bash( |$)" "capture <TAB>: commands"
is "$(comp pagetrail capture -o x.cap ls fore)" "foreign foreign.cap" "capture COMMAND <TAB>: its arguments are files"
is "$(comp pagetrail capture -)" "--debugfs --force --help --output -h -o" "capture -<TAB>: its own options"
summary

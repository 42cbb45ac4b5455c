# SPDX-License-Identifier: GPL-2.0
# bash completion for pagetrail: the command answers from its own option
# tables (pagetrail help --complete CWORD WORD...); @file, @dir and
# @command in its answer ask for the shell's own lists.
_pagetrail()
{
	local cur=${COMP_WORDS[COMP_CWORD]} pt=${COMP_WORDS[0]} c
	local IFS=$'\n'

	COMPREPLY=()
	[[ $cur == = ]] && cur=
	[[ $pt == \~/* ]] && pt=$HOME/${pt#\~/}
	for c in $(command "$pt" help --complete "$COMP_CWORD" "${COMP_WORDS[@]}" 2> /dev/null); do
		case $c in
		@file) compopt -o filenames 2> /dev/null
			COMPREPLY+=($(compgen -f -- "$cur")) ;;
		@dir) compopt -o filenames 2> /dev/null
			COMPREPLY+=($(compgen -d -- "$cur")) ;;
		@command) COMPREPLY+=($(compgen -c -- "$cur")) ;;
		*) [[ $c == "$cur"* ]] && COMPREPLY+=("$c") ;;
		esac
	done
}
complete -F _pagetrail pagetrail

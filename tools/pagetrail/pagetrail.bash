# SPDX-License-Identifier: GPL-2.0
# bash completion for pagetrail: the command answers from its own option
# tables (pagetrail help --complete CWORD WORD...); @file, @dir and
# @command in its answer ask for the shell's own lists.
_pagetrail()
{
	local cur=${COMP_WORDS[COMP_CWORD]} pt=${COMP_WORDS[0]} c

	COMPREPLY=()
	[[ $cur == = ]] && cur=
	[[ $pt == \~/* ]] && pt=$HOME/${pt#\~/}
	while IFS= read -r c; do
		case $c in
		@file) compopt -o filenames 2> /dev/null
			mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur") ;;
		@dir) compopt -o filenames 2> /dev/null
			mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -d -- "$cur") ;;
		@command)
			mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -c -- "$cur") ;;
		*) [[ $c == "$cur"* ]] && COMPREPLY+=("$c") ;;
		esac
	done < <(command "$pt" help --complete "$COMP_CWORD" "${COMP_WORDS[@]}" 2> /dev/null)
}
complete -F _pagetrail pagetrail

# SPDX-License-Identifier: GPL-2.0-or-later
# whyslow.bash - bash completion for whyslow: commands, options, metric and event names, presets, and files.
#
# Installed as share/bash-completion/completions/whyslow; for a build tree, `source completions/whyslow.bash`.
# The commands and each command's options are read from the program's own -h, and the names from
# `whyslow list --names`, so that the completion never falls out of step with the program it completes.

# The commands, from `whyslow -h`.
_whyslow_commands()
{
	"$1" -h 2>/dev/null | sed -n 's/^    \([a-z][a-z-]*\)  .*/\1/p'
}

# A command's options, one per line as "OPTION KIND", KIND being flag, arg or optarg (--functions[=EVENT]),
# from `whyslow CMD -h`.
_whyslow_options()
{
	"$1" "$2" -h 2>/dev/null | sed -n \
		-e 's/^    \(-[A-Za-z]\), \(--[a-z][a-z-]*\)\[=.*/\1 optarg\n\2 optarg/p' \
		-e 's/^    \(--[a-z][a-z-]*\)\[=.*/\1 optarg/p' \
		-e 's/^    \(-[A-Za-z]\), \(--[a-z][a-z-]*\) [^ ].*/\1 arg\n\2 arg/p' \
		-e 's/^    \(--[a-z][a-z-]*\) [^ ].*/\1 arg/p' \
		-e 's/^    \(-[A-Za-z]\), \(--[a-z][a-z-]*\)\( .*\)\{0,1\}$/\1 flag\n\2 flag/p' \
		-e 's/^    \(--[a-z][a-z-]*\)\(  .*\)\{0,1\}$/\1 flag/p'
}

# Fill COMPREPLY with the candidates on stdin that start with the token typed ($1). Bash has split the
# token at '=' and ':' (COMP_WORDBREAKS), so what it already shows of it is taken off each candidate. Call it
# with its input redirected, not at the end of a pipe: a pipe would run it in a subshell.
_whyslow_reply()
{
	local tok=$1 pre= c
	local -A seen=()

	case $tok in
	*[=:]*) pre=${tok%"${tok##*[=:]}"} ;;
	esac
	COMPREPLY=()
	while IFS= read -r c; do
		# A metric and a generic event may share a name: offer it once.
		[[ $c == "$tok"* && -z ${seen[$c]-} ]] || continue
		seen[$c]=1
		COMPREPLY+=("${c#"$pre"}")
	done
}

# Files, those ending in .json (and directories) when $2 is "json".
_whyslow_files()
{
	local cur=$1
	compopt -o filenames 2>/dev/null
	if [ "${2-}" = json ]; then
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

# The values of option $3 (of command $2), for the token $4 that holds them after the prefix $5.
_whyslow_values()
{
	local prog=$1 cmd=$2 opt=$3 val=$4 pre=$5 kinds=

	case $opt in
	-e | --events)
		# A comma-separated list: complete its last name.
		local head=${val%"${val##*,}"}
		_whyslow_reply "$pre$val" < <("$prog" list --names --kind metric,event 2>/dev/null | sed "s|^|$pre$head|")
		return ;;
	--functions) kinds=event ;;
	--metric | --primary) kinds=metric ;;
	--sim-preset) kinds=preset ;;
	--effect | --call-graph | --sim-scope)
		# The option's own words, as its -h and manual page list them.
		case $opt in
		--effect) set -- hl bootstrap ;;
		--call-graph) set -- fp dwarf none ;;
		*) set -- all regions regions-warm ;;
		esac
		_whyslow_reply "$pre$val" < <(printf '%s\n' "$@" | sed "s|^|$pre|")
		return ;;
	--output)
		# null, pipe, inherit, or a file (which holds a /, as hyperfine has it); not inherit for sim-job,
		# whose stdout carries the piece it prints, and which refuses it.
		if [ "$cmd" = sim-job ]; then set -- null pipe; else set -- null pipe inherit; fi
		_whyslow_reply "$pre$val" < <(printf '%s\n' "$@" | sed "s|^|$pre|")
		case $val in */*) _whyslow_files "$val" ;; esac
		return ;;
	--kind)
		_whyslow_reply "$pre$val" < <(printf '%s\n' metric event runner perf simulator derived hardware software \
			pfm backend preset | sed "s|^|$pre|")
		return ;;
	--backend)
		_whyslow_reply "$pre$val" < <({ "$prog" list --names --kind backend 2>/dev/null; echo auto; } | sed "s|^|$pre|")
		return ;;
	-r | --runs)
		_whyslow_reply "$pre$val" < <(echo auto | sed "s|^|$pre|")
		return ;;
	--sim-cache)
		_whyslow_reply "$pre$val" < <(printf '%s\n' L1i= L1d= L2= L3= LL= | sed "s|^|$pre|")
		compopt -o nospace 2>/dev/null
		return ;;
	--cost | --result) _whyslow_files "$val" json; return ;;
	--export-*) _whyslow_files "$val"; return ;;
	*) COMPREPLY=(); return ;;
	esac
	_whyslow_reply "$pre$val" < <("$prog" list --names --kind "$kinds" 2>/dev/null | sed "s|^|$pre|")
}

# Set words to the words between COMP_WORDS[$1] (the command) and the token under the cursor, as the user
# typed them. COMP_WORDS keeps a quoted command in one word, but splits at the '=' and ':' of
# COMP_WORDBREAKS: join those pieces back, and leave out the ones that belong to the token under the cursor.
_whyslow_words()
{
	local j last=$COMP_CWORD join= w

	while [ $((last - 1)) -gt "$1" ] && w=${COMP_WORDS[last - 1]} && [ -n "$w" ] && [ -z "${w//[=:]/}" ]; do
		last=$((last - 2))
	done
	words=()
	for ((j = $1 + 1; j < last; j++)); do
		w=${COMP_WORDS[j]}
		if [ -n "$w" ] && [ -z "${w//[=:]/}" ] && [ ${#words[@]} -gt 0 ]; then
			words[${#words[@]} - 1]+=$w
			join=1
		elif [ -n "$join" ]; then
			words[${#words[@]} - 1]+=$w
			join=
		else
			words+=("$w")
		fi
	done
}

_whyslow()
{
	local prog=${COMP_WORDS[0]} line=${COMP_LINE:0:COMP_POINT} tok head prevtok cmd= i opts
	# The whole token under the cursor and the one before it, as the user typed them (bash's own words are
	# split at '=' and ':', which option values and libpfm4 event names hold).
	tok=${line##*[[:space:]]}
	head=${line%"$tok"}
	head=${head%"${head##*[![:space:]]}"}
	prevtok=${head##*[[:space:]]}

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		_whyslow_reply "$tok" < <({ _whyslow_commands "$prog"; printf '%s\n' help --help --version; })
		return
	fi
	if [ "$cmd" = help ]; then
		_whyslow_reply "$tok" < <({ _whyslow_commands "$prog"; printf '%s\n' result whyslow.h; })
		return
	fi
	opts=$(_whyslow_options "$prog" "$cmd")

	# Walk the words between the command and this one: stat and sim-job stop reading options at the command
	# they run (`whyslow stat sort --output x` gives --output to sort), every command at "--"; compare's -L
	# takes two words (-L VAR a,b,c; one where it is VAR=a,b,c) and -P three (-P VAR MIN MAX), not one.
	local w words=() ended= nargs=0 value= extra=0 listname=
	_whyslow_words "$i"
	for w in "${words[@]}"; do
		if [ -n "$value" ]; then
			value=
		elif [ $extra -gt 0 ]; then
			extra=$((extra - 1))
			[ -n "$listname" ] && [[ $w == *=* ]] && extra=0
			listname=
		elif [ -n "$ended" ]; then
			nargs=$((nargs + 1))
		else
			case $w in
			--) ended=1 ;;
			-L | --parameter-list) [ "$cmd" = compare ] && extra=2 listname=1 ;;
			-P | --parameter-scan) [ "$cmd" = compare ] && extra=3 ;;
			-*) printf '%s\n' "$opts" | grep -qFx -- "$w arg" && value=1 ;;
			*)
				nargs=$((nargs + 1))
				case $cmd in stat | sim-job) ended=1 ;; esac ;;
			esac
		fi
	done
	# The name, values, minimum or maximum of -L or -P: nothing to offer, not even files.
	if [ $extra -gt 0 ]; then
		COMPREPLY=()
		return
	fi

	if [ -z "$ended" ]; then
		# A value: --opt=VALUE, or the word after an option that takes one.
		case $tok in
		--*=*)
			_whyslow_values "$prog" "$cmd" "${tok%%=*}" "${tok#*=}" "${tok%%=*}="
			return ;;
		esac
		if [ -n "$value" ]; then
			_whyslow_values "$prog" "$cmd" "$prevtok" "$tok" ""
			return
		fi
		case $tok in
		-*)
			_whyslow_reply "$tok" < <(printf '%s\n' "$opts" | while read -r o k; do
				printf '%s\n' "$o"
				[ "$k" = optarg ] && printf '%s=\n' "$o"
			done)
			return ;;
		esac
	fi

	# An argument.
	case $cmd in
	diff | report) _whyslow_files "$tok" json ;;
	list) _whyslow_reply "$tok" < <("$prog" list --names --kind metric,event 2>/dev/null) ;;
	stat | sim-job)
		# The command to run, then its own arguments.
		if [ $nargs = 0 ]; then
			_whyslow_reply "$tok" < <(compgen -c -- "$tok")
		else
			_whyslow_files "$tok"
		fi ;;
	*) _whyslow_files "$tok" ;;
	esac
}

complete -F _whyslow whyslow

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0210-completion.sh - the shell completions: bash's driven as bash drives it (COMP_* and the function that
# `complete -p` names); zsh's and fish's run by their shells where those are installed.
. "$WS_SRC/tests/cli/lib.sh"

command -v bash >/dev/null 2>&1 || test_skip_all 'bash is missing'

# complete.bash "LINE": the candidates bash would offer with the cursor at the end of `whyslow LINE`, one per
# line, sorted. COMP_WORDS is split as bash splits it: at blanks and at the '=' and ':' of COMP_WORDBREAKS.
cat >complete.bash <<-\END
	set -u
	. "$WS_SRC/completions/whyslow.bash"
	fn=$(complete -p whyslow | sed -n "s/^complete -F \([^ ]*\) whyslow$/\1/p")
	[ -n "$fn" ] || { echo "complete -p names no function for whyslow" >&2; exit 1; }
	COMP_LINE="$WHYSLOW $1"
	COMP_POINT=${#COMP_LINE}
	read -ra COMP_WORDS <<<"$(printf '%s' "$COMP_LINE" | sed 's/\([=:]\)/ \1 /g; s/: :/::/g')"
	case $COMP_LINE in *' ' | *= | *:) COMP_WORDS+=("") ;; esac
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$fn" whyslow "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
END
complete() { bash complete.bash "$1"; }

test_expect_success 'bash: complete -p names the function for whyslow' '
	bash -c ". \"$WS_SRC/completions/whyslow.bash\" && complete -p whyslow" >out &&
	echo "complete -F _whyslow whyslow" >expect &&
	test_cmp expect out
'

test_expect_success 'bash: the commands, as whyslow -h lists them, and help' '
	complete "" >actual &&
	{ whyslow -h | sed -n "s/^    \([a-z][a-z-]*\) .*/\1/p"; printf "%s\n" --help --version help; } | sort >expect &&
	test_cmp expect actual &&
	complete "st" >actual &&
	echo stat >expect &&
	test_cmp expect actual
'

test_expect_success 'bash: every option of a command, as its -h lists them' '
	for c in stat compare diff report list asm-diff
	do
		complete "$c -" >actual &&
		whyslow "$c" -h | sed -n "s/^    \(-[A-Za-z]\), \(--[a-z][a-z-]*\).*/\1\n\2/p; s/^    \(--[a-z][a-z-]*\).*/\1/p" >opts &&
		whyslow "$c" -h | sed -n "s/^    .*\(--[a-z][a-z-]*\)\[=.*/\1=/p" >optarg &&
		sort opts optarg >expect &&
		test_cmp expect actual || return 1
	done &&
	complete "stat --ru" >actual &&
	echo --runs >expect &&
	test_cmp expect actual
'

test_expect_success 'bash: metric and event names after -e, each name of a list' '
	complete "stat -e L1-dcache-l" >actual &&
	whyslow list --names --kind metric,event | grep "^L1-dcache-l" | sort -u >expect &&
	test_line_count -ge 2 expect &&
	test_cmp expect actual &&
	complete "compare --events=wall-time,L1-dcache-l" >actual &&
	sed "s/^/wall-time,/" expect >expect2 &&
	test_cmp expect2 actual
'

test_expect_success 'bash: presets, backends, the gate metric and list kinds' '
	complete "stat --sim-preset " >actual &&
	whyslow list --names --kind preset | sort >expect &&
	test_line_count -ge 3 expect &&
	test_cmp expect actual &&
	complete "compare --sim-preset=z" >actual &&
	echo zen4 >expect &&
	test_cmp expect actual &&
	complete "stat --backend " >actual &&
	{ whyslow list --names --kind backend; echo auto; } | sort >expect &&
	test_cmp expect actual &&
	complete "diff --metric wall-t" >actual &&
	echo wall-time >expect &&
	test_cmp expect actual &&
	complete "list --kind pre" >actual &&
	echo preset >expect &&
	test_cmp expect actual &&
	complete "compare --primary task-c" >actual &&
	echo task-clock >expect &&
	test_cmp expect actual &&
	complete "compare --effect " >actual &&
	printf "%s\n" bootstrap hl >expect &&
	test_cmp expect actual &&
	complete "stat --functions --call-graph=d" >actual &&
	echo dwarf >expect &&
	test_cmp expect actual &&
	complete "compare --sim-scope r" >actual &&
	printf "%s\n" regions regions-warm >expect &&
	test_cmp expect actual &&
	complete "stat --output i" >actual &&
	echo inherit >expect &&
	test_cmp expect actual
'

test_expect_success 'bash: result files for diff and report, files for the exports, a command for stat' '
	mkdir -p dir &&
	touch a.json b.json notes.txt &&
	complete "report " >actual &&
	printf "%s\n" a.json b.json dir >expect &&
	test_cmp expect actual &&
	complete "diff a.json " >actual &&
	test_cmp expect actual &&
	complete "compare --export-html no" >actual &&
	echo notes.txt >expect &&
	test_cmp expect actual &&
	complete "stat -r 5 --sim-preset zen4 whoam" >actual &&
	echo whoami >expect &&
	test_cmp expect actual &&
	complete "stat -r 5 ./prog no" >actual &&
	echo notes.txt >expect &&
	test_cmp expect actual
'

test_expect_success 'bash: no options once stat has its command, or after "--"' '
	touch notes.txt &&
	complete "stat sort --ou" >actual &&
	test_line_count = 0 actual &&
	complete "stat -r 5 -- sort --ou" >actual &&
	test_line_count = 0 actual &&
	complete "stat sort --output no" >actual &&
	echo notes.txt >expect &&
	test_cmp expect actual &&
	complete "stat -- whoam" >actual &&
	echo whoami >expect &&
	test_cmp expect actual &&
	complete "sim-job --plan p --program 0 --run 0 -- sort --ou" >actual &&
	test_line_count = 0 actual &&
	complete "compare -- true --ou" >actual &&
	test_line_count = 0 actual &&
	complete "compare true false --ou" >actual &&
	echo --output >expect &&
	test_cmp expect actual
'

test_expect_success 'bash: sim-job --output offers no inherit, which it refuses' '
	complete "sim-job --output " >actual &&
	printf "%s\n" null pipe >expect &&
	test_cmp expect actual
'

test_expect_success 'bash: nothing for the words of -L VAR a,b,c and -P VAR MIN MAX' '
	touch notes.txt &&
	complete "compare -L no" >actual &&
	test_line_count = 0 actual &&
	complete "compare -L n no" >actual &&
	test_line_count = 0 actual &&
	complete "compare --parameter-list n 1,2 no" >actual &&
	echo notes.txt >expect &&
	test_cmp expect actual &&
	complete "compare -L n=1,2 no" >actual &&
	test_cmp expect actual &&
	complete "compare -P n 1 no" >actual &&
	test_line_count = 0 actual &&
	complete "compare -P n 1 3 --ou" >actual &&
	echo --output >expect &&
	test_cmp expect actual
'

test_expect_success 'bash: help offers the pages' '
	complete "help r" >actual &&
	printf "%s\n" report result >expect &&
	test_cmp expect actual
'

# zsh's and fish's tests run whyslow -h many times from their command substitutions. In the sanitizer build,
# LeakSanitizer's check at exit stops the process with a tracer thread, and there it hung one exit in
# twenty or so (Linux 6.18: the traced process kept running, the tracer waiting for it to stop), which
# took the test to its timeout. The leak check stays on for the bash tests above and every other test.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

if command -v zsh >/dev/null 2>&1; then
	test_expect_success 'zsh: the completion parses, and reads the options as bash does' '
		zsh -n "$WS_SRC/completions/_whyslow" &&
		sed "/^_whyslow \"\$@\"$/d" "$WS_SRC/completions/_whyslow" >functions.zsh &&
		zsh -fc ". ./functions.zsh; _whyslow_options \"$WHYSLOW\" compare" | cut -f1,2 | tr "\t" " " >actual &&
		bash -c ". \"$WS_SRC/completions/whyslow.bash\"; _whyslow_options \"$WHYSLOW\" compare" >expect &&
		test_line_count -ge 40 expect &&
		test_cmp expect actual
	'

	# zcomplete "LINE": what _whyslow asks of zsh for `whyslow LINE`, the builtins and functions it calls
	# replaced by ones that print their names and arguments (zsh completes only at a terminal).
	cat >complete.zsh <<-\END
		. ./functions.zsh
		compadd() { print -r -- "compadd $*"; }
		_files() { print -r -- "_files $*"; }
		_command_names() { print -r -- "_command_names $*"; }
		_describe() { print -r -- "_describe $2 ${(j: :)${(@)${(P)4}%%:*}}"; }
		_message() { print -r -- "_message $*"; }
		compset() { return 1; }
		words=(${(z)1})
		[[ $1 == *" " ]] && words+=("")
		CURRENT=${#words}
		_whyslow
	END
	zcomplete() { zsh -f complete.zsh "$WHYSLOW $1"; }

	test_expect_success 'zsh: the commands, help, --help and --version, as bash offers them' '
		zcomplete "" >actual &&
		echo _describe commands $(whyslow -h | sed -n "s/^    \([a-z][a-z-]*\) .*/\1/p") help >expect &&
		echo "_describe options --help --version" >>expect &&
		test_cmp expect actual
	'

	test_expect_success 'zsh: no options once stat has its command, or after "--"; nothing for -L and -P words' '
		zcomplete "stat sort --ou" >actual &&
		echo "_files " >expect &&
		test_cmp expect actual &&
		zcomplete "stat -- sort --output " >actual &&
		test_cmp expect actual &&
		zcomplete "compare -- true --ou" >actual &&
		test_cmp expect actual &&
		zcomplete "compare -L n 1,2 " >actual &&
		test_cmp expect actual &&
		zcomplete "compare -L n " >actual &&
		echo "_message -e values value" >expect &&
		test_cmp expect actual &&
		zcomplete "compare -P n 1 " >actual &&
		test_cmp expect actual &&
		zcomplete "stat -r 5 whoam" >actual &&
		echo "_command_names -e" >expect &&
		test_cmp expect actual &&
		zcomplete "compare true false --ou" >actual &&
		test_grep "^_describe options .* --output " actual &&
		zcomplete "sim-job --output " >actual &&
		printf "%s\n" "compadd -- null pipe" "_files " >expect &&
		test_cmp expect actual
	'
else
	test_skip_next 'zsh is not installed'
	test_expect_success 'zsh: the completion parses, and reads the options as bash does' 'false'
	test_skip_next 'zsh is not installed'
	test_expect_success 'zsh: the commands, help, --help and --version, as bash offers them' 'false'
	test_skip_next 'zsh is not installed'
	test_expect_success 'zsh: no options once stat has its command, or after "--"; nothing for -L and -P words' 'false'
fi

if command -v fish >/dev/null 2>&1; then
	test_expect_success 'fish: commands, options and presets' '
		mkdir -p bin && ln -sf "$WHYSLOW" bin/whyslow &&
		PATH="$PWD/bin:$PATH" fish --no-config -c "source \"$WS_SRC/completions/whyslow.fish\"
			complete -C \"whyslow st\"; complete -C \"whyslow stat --sim-pre\"
			complete -C \"whyslow stat --sim-preset \"" | cut -f1 >actual &&
		{ echo stat; echo --sim-preset; whyslow list --names --kind preset | sort; } >expect &&
		test_cmp expect actual
	'

	# fcomplete "LINE"...: the candidates fish offers for each `whyslow LINE`, one list after the other.
	fcomplete() {
		for l
		do
			printf "complete -C \"whyslow %s\"\n" "$l"
		done >complete.fish &&
		PATH="$PWD/bin:$PATH" fish --no-config -c "source \"$WS_SRC/completions/whyslow.fish\"
			source complete.fish" | cut -f1
	}

	test_expect_success 'fish: --help and --version, as bash offers them' '
		fcomplete "--" >actual &&
		printf "%s\n" --help --version >expect &&
		test_cmp expect actual
	'

	test_expect_success 'fish: no options once stat has its command, or after "--"; no inherit for sim-job' '
		touch notes.txt &&
		fcomplete "stat sort --ou" "stat -- sort --ou" "compare -- true --ou" >actual &&
		test_line_count = 0 actual &&
		fcomplete "stat sort --output no" "stat -- whoam" "compare true false --ou" "sim-job --output " >actual &&
		printf "%s\n" notes.txt whoami --output null pipe >expect &&
		test_cmp expect actual
	'

	test_expect_success 'fish: nothing for the words of -L VAR a,b,c and -P VAR MIN MAX' '
		touch notes.txt &&
		fcomplete "compare -L no" "compare -L n no" "compare -P n no" "compare -P n 1 no" >actual &&
		test_line_count = 0 actual &&
		fcomplete "compare -L n 1,2 no" "compare -L n=1,2 no" "compare -P n 1 3 no" >actual &&
		printf "%s\n" notes.txt notes.txt notes.txt >expect &&
		test_cmp expect actual
	'
else
	for t in 'commands, options and presets' '--help and --version, as bash offers them' \
		'no options once stat has its command, or after "--"; no inherit for sim-job' \
		'nothing for the words of -L VAR a,b,c and -P VAR MIN MAX'
	do
		test_skip_next 'fish is not installed'
		test_expect_success "fish: $t" 'false'
	done
fi

test_done

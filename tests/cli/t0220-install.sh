#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0220-install.sh - `make install DESTDIR=...` (DESTDIR=... meson install): the program, the marker library, its
# header and pkg-config file, the manual pages and the shell completions, each where its users look.
. "$WS_SRC/tests/cli/lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all 'jq is missing'

# The build's directories, relative to the prefix unless absolute.
dir() { meson introspect "$WS_BUILD" --buildoptions | jq -r ".[] | select(.name == \"$1\") | .value"; }

test_expect_success 'make install DESTDIR=... installs into the staging directory only' '
	# What the Makefile runs (its `all` prerequisite would rebuild under the other tests).
	grep -q "^	DESTDIR=\$(DESTDIR) meson install -C \$(BUILD) --no-rebuild$" "$WS_SRC/Makefile" &&
	DESTDIR="$PWD/root" meson install -C "$WS_BUILD" --no-rebuild --quiet >log 2>&1 &&
	prefix=$(dir prefix) &&
	test -d "root$prefix" &&
	echo "root$prefix" >P
'

test_expect_success 'the program, the library, its header and its pkg-config file' '
	P=$(cat P) &&
	test -x "$P/$(dir bindir)/whyslow" &&
	test -f "$P/$(dir includedir)/whyslow.h" &&
	ls "$P/$(dir libdir)"/libwhyslow.so.* >/dev/null &&
	test -L "$P/$(dir libdir)/libwhyslow.so" &&
	test -f "$P/$(dir libdir)/libwhyslow.a" &&
	pc="$P/$(dir libdir)/pkgconfig/whyslow.pc" &&
	test -f "$pc" &&
	test "$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=prefix whyslow)" = "$(dir prefix)" &&
	PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --libs whyslow | grep -q -- "-lwhyslow" &&
	"$P/$(dir bindir)/whyslow" --version | grep -q "^whyslow "
'

if [ -f "$WS_BUILD/man/whyslow.1" ]; then
	test_expect_success 'the manual pages, each in its section, and they render' '
		P=$(cat P) &&
		M="$P/$(dir mandir)" &&
		for p in whyslow.1 whyslow-stat.1 whyslow-compare.1 whyslow-diff.1 whyslow-report.1 whyslow-doctor.1 \
			whyslow-list.1 whyslow-asm-diff.1 whyslow-merge.1 whyslow-sim-job.1 whyslow.h.3 whyslow-result.5
		do
			test -f "$M/man${p##*.}/$p" || { echo "no $M/man${p##*.}/$p" >&2; return 1; }
		done &&
		MANWIDTH=80 man -l "$M/man1/whyslow-stat.1" 2>err | grep -q "whyslow-stat - run one command" &&
		! test -s err &&
		find "$M" -type f | wc -l >n &&
		echo 12 >expect &&
		test_cmp expect n
	'
else
	test_skip_next 'the manual pages are not built: scdoc is missing (tools/install-deps installs it)'
	test_expect_success 'the manual pages, each in its section, and they render' 'false'
fi

test_expect_success 'the completions, where bash-completion, zsh and fish look for them' '
	P=$(cat P) &&
	D="$P/$(dir datadir)" &&
	test_cmp "$WS_SRC/completions/whyslow.bash" "$D/bash-completion/completions/whyslow" &&
	test_cmp "$WS_SRC/completions/_whyslow" "$D/zsh/site-functions/_whyslow" &&
	test_cmp "$WS_SRC/completions/whyslow.fish" "$D/fish/vendor_completions.d/whyslow.fish" &&
	bash -c ". \"$D/bash-completion/completions/whyslow\" && complete -p whyslow" | grep -q "_whyslow whyslow"
'

test_expect_success 'nothing is installed outside the prefix' '
	find root -mindepth 1 -maxdepth 1 >top &&
	echo "root/$(dir prefix | cut -d/ -f2)" >expect &&
	test_cmp expect top
'

test_done

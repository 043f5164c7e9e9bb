#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cargo.sh - build or test one r1cs-rs variant with Debian's cargo and rustc, offline, for meson or by hand.
#
#   cargo.sh build WORKDIR VARIANT OUTPUT   release build with markers, copied to OUTPUT (+ OUTPUT.d)
#   cargo.sh test WORKDIR VARIANT           cargo test of the variant (unit tests), in debug
#
# WORKDIR holds everything cargo writes: CARGO_HOME (WORKDIR/home) and one target directory per variant
# (WORKDIR/target-VARIANT), so that builds of different variants may run at once. WHYSLOW_LIB_DIR, when
# set, is the directory of libwhyslow.a, for the region markers (see build.rs).
#
# Only Debian's toolchain: /usr/bin/cargo and /usr/bin/rustc, with /usr/bin first on PATH, because a
# rustup toolchain may come first on this machine's PATH (and its ~/.cargo/config with it); a CARGO_HOME
# of our own keeps that config out. Crates come from /usr/share/cargo/registry (.cargo/config.toml, read
# from the working directory: hence the cd). --locked: Cargo.lock is the source's, never rewritten.

set -eu

usage() {
	echo "usage: cargo.sh build WORKDIR VARIANT OUTPUT | cargo.sh test WORKDIR VARIANT" >&2
	exit 2
}

[ $# -ge 3 ] || usage
mode=$1
work=$2
variant=$3
case $variant in
vec | vec-pool | smallvec1 | smallvec2 | smallvec4) ;;
*)
	echo "cargo.sh: unknown variant '$variant'; use vec, vec-pool, smallvec1, smallvec2 or smallvec4" >&2
	exit 2
	;;
esac

src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ "$mode" = build ]; then
	[ $# -eq 4 ] || usage
	out=$4
	case $out in /*) ;; *) out="$(pwd)/$out" ;; esac
fi

export PATH="/usr/bin:/bin:$PATH"
export CARGO_HOME="$work/home"
export RUSTC=/usr/bin/rustc
export RUSTDOC=/usr/bin/rustdoc
# Flags meant for another toolchain must not reach this one.
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_ENCODED_RUSTFLAGS RUSTC_WRAPPER CARGO_BUILD_TARGET CARGO_TARGET_DIR
cd "$src"

case $mode in
build)
	target="$work/target-$variant"
	/usr/bin/cargo build --offline --locked --release --quiet --features "$variant,markers" \
		--target-dir "$target"
	cp "$target/release/r1cs-rs" "$out.tmp"
	mv "$out.tmp" "$out"
	# cargo's dep-info names its own output; ninja wants ours (spaces escaped, as in Makefiles).
	DEP_TARGET=$(printf '%s' "$out" | sed 's/ /\\ /g') awk \
		'NR == 1 { sub(/^[^:]*:/, ""); $0 = ENVIRON["DEP_TARGET"] ":" $0 } { print }' \
		"$target/release/r1cs-rs.d" >"$out.d"
	;;
test)
	[ $# -eq 3 ] || usage
	/usr/bin/cargo test --offline --locked --features "$variant" --target-dir "$work/target-test-$variant"
	;;
*)
	usage
	;;
esac

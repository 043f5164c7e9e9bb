#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# build-tool.sh - compile and link the wsim Valgrind tool, and lay out a VALGRIND_LIB directory beside it.
#
#   build-tool.sh OUT VGINC VGLIBDIR VGLIBEXEC SRCDIR PROTODIR CC [CC ARGS...]
#
# OUT is the tool (…/wsim-amd64-linux); VGINC holds pub_tool_*.h; VGLIBDIR holds libcoregrind and libvex;
# VGLIBEXEC is Valgrind's own library directory; PROTODIR holds what the tool shares with whyslow
# (protocol/). Meson's flags stay out on purpose: the tool links no libc
# and must not be PIE, sanitized or built with the project's -D options. Beside OUT it creates vglib/, which
# holds the tool and links to everything in VGLIBEXEC, for VALGRIND_LIB (which replaces that whole directory).
set -eu

out=$1 vginc=$2 vglibdir=$3 vglibexec=$4 srcdir=$5 protodir=$6
shift 6

outdir=$(dirname "$out")
objdir="$outdir/wsim-obj"
mkdir -p "$objdir"

cflags="-O2 -g -std=gnu11 -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-sign-compare
	-Wno-missing-field-initializers -fno-pie -fno-strict-aliasing -fno-builtin -fno-stack-protector
	-fomit-frame-pointer -fno-asynchronous-unwind-tables
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1
	-I$vginc -I$srcdir -I$protodir"
[ "${WSIM_WERROR:-0}" = 1 ] && cflags="$cflags -Werror"

objs=
for src in wsim-main wsim-config wsim-sim wsim-output wsim-async wsim-calls wsim-frames; do
	# shellcheck disable=SC2086 # word splitting of the flag lists is intended
	"$@" $cflags -c "$srcdir/$src.c" -o "$objdir/$src.o"
	objs="$objs $objdir/$src.o"
done

# shellcheck disable=SC2086
"$@" -o "$out.tmp" $objs \
	"$vglibdir/libcoregrind-amd64-linux.a" "$vglibdir/libvex-amd64-linux.a" -lgcc \
	"$vglibdir/libgcc-sup-amd64-linux.a" \
	-static -nodefaultlibs -nostartfiles -no-pie -u _start -Wl,--build-id=none \
	-Wl,-Ttext-segment=0x58000000
mv -f "$out.tmp" "$out"

# The same layout as the installed one (OUT is always named wsim-amd64-linux: see meson.build).
DESTDIR= "$srcdir/install-vglib.sh" "$outdir" "$vglibexec"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# install-vglib.sh - lay out LIBEXECDIR/vglib: a link to the wsim beside it plus links to Valgrind's own
# library directory, so that VALGRIND_LIB=LIBEXECDIR/vglib valgrind --tool=wsim works. Run at `meson
# install`, and by build-tool.sh for the build tree.
#
#   install-vglib.sh LIBEXECDIR VGLIBEXEC       (DESTDIR, when set, prefixes LIBEXECDIR)
set -eu
dir="${DESTDIR:-}$1/vglib"
rm -rf "$dir"
mkdir -p "$dir"
for f in "$2"/*; do
	ln -s "$f" "$dir/$(basename "$f")"
done
ln -s ../wsim-amd64-linux "$dir/wsim-amd64-linux"

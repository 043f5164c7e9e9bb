# SPDX-License-Identifier: GPL-2.0-or-later
# Makefile - the front door: installs what is missing, configures meson in build/, builds, tests, demos.
#
#   make            build build/whyslow (installing missing Debian packages first)
#   make test       build, then run every unit and CLI test (Chromium is installed for the HTML report's)
#   make demo       build, then run the main job on the bundled case study, in C and in Rust
#   make test-sanitize   the same tests in an ASan+UBSan build (build-san/)
#   make bench      the benchmarks against named peers (bench/)
#   make install    honours PREFIX and DESTDIR
#
# WERROR=1 turns warnings into errors (CI sets it).

PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
WERROR ?= 0
MESON_OPTS ?=

werror_opt = -Dwerror=$(if $(filter 1 yes true,$(WERROR)),true,false)

.PHONY: all deps test test-sanitize demo bench install clean FORCE

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@tools/install-deps

# Configure once; reconfigure when the options asked for differ from the ones in effect.
$(BUILD)/build.ninja: deps FORCE
	@if [ -f $@ ]; then \
		meson configure $(BUILD) --prefix=$(PREFIX) $(werror_opt) $(MESON_OPTS) >/dev/null; \
	else \
		meson setup $(BUILD) --prefix=$(PREFIX) --buildtype=debugoptimized $(werror_opt) $(MESON_OPTS); \
	fi

test: all
	@tools/install-deps --browser || echo "make: chromium could not be installed: the HTML report's browser checks will skip" >&2
	meson test -C $(BUILD) --print-errorlogs $(TESTS); \
	rc=$$?; tools/test-summary $(BUILD); exit $$rc

test-sanitize:
	$(MAKE) test BUILD=build-san MESON_OPTS='-Dsanitize=true'

demo: all
	BUILD=$(BUILD) examples/r1cs-synth/demo.sh
	BUILD=$(BUILD) examples/r1cs-rs/demo.sh

bench: all
	@tools/install-deps --bench
	BUILD=$(BUILD) bench/run-all

install: all
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild

clean:
	rm -rf build build-san demo

FORCE:

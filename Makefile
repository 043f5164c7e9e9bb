# SPDX-License-Identifier: GPL-2.0-or-later
# Makefile - the front door: installs what is missing, configures meson in build/, builds, tests, demos.
#
#   make            build build/whyslow (installing missing Debian packages first)
#   make test       build, then run every unit and CLI test (Chromium, zsh and fish are installed for their tests)
#   make demo       build, then run the main job on the bundled case study, in C and in Rust
#   make test-sanitize   the same tests in an ASan+UBSan build (build-san/)
#   make test-memcheck   the CLI tests that do not need the simulator, whyslow under Valgrind's memcheck
#                        (slow: not part of make test); any memcheck error fails it and is shown
#   make fuzz       build the libFuzzer targets with clang in build-fuzz/ (fuzz/) and fuzz each for
#                   FUZZ_SECONDS (60) under ASan+UBSan, from the corpus in fuzz/corpus/ (bench/fuzz.sh);
#                   make test replays that corpus and fuzzes each target for a few seconds
#   make bench      the benchmarks against named peers (bench/)
#   make install    honours PREFIX and DESTDIR
#
# WERROR=1 turns warnings into errors (CI sets it).

PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
WERROR ?= 0
MESON_OPTS ?=
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
# The CLI tests of make test-memcheck: those that run no simulation of their own (a command whyslow measures
# runs outside memcheck anyway; these keep the run short), less those that assert on timings (t1000, t2000,
# t2100, t2200: a run's wall time includes whyslow's child up to its exec, which memcheck slows 20-fold).
MEMCHECK_TESTS ?= t0000-basic t1100-doctor-list t2300-html t5100-regions t7100-topdown t8003-profile-errors \
	t8100-functions t9000-asm-diff t9001-asm-diff-errors

werror_opt = -Dwerror=$(if $(filter 1 yes true,$(WERROR)),true,false)

.PHONY: all deps test test-sanitize test-memcheck fuzz fuzz-build demo bench install clean FORCE

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
	@tools/install-deps --fuzz || echo "make: clang and libFuzzer could not be installed: the fuzz tests will skip" >&2
	@tools/install-deps --shells || echo "make: zsh and fish could not be installed: their completion tests will skip" >&2
	meson test -C $(BUILD) --print-errorlogs $(TESTS); \
	rc=$$?; tools/test-summary $(BUILD); exit $$rc

test-sanitize:
	$(MAKE) test BUILD=build-san MESON_OPTS='-Dsanitize=true'

test-memcheck: all
	rm -rf $(BUILD)/memcheck
	WS_MEMCHECK=1 meson test -C $(BUILD) --print-errorlogs --timeout-multiplier 10 $(MEMCHECK_TESTS); \
	rc=$$?; \
	for f in $(BUILD)/memcheck/*.log; do \
		grep -q '^==[0-9]*== ' "$$f" 2>/dev/null || continue; \
		echo "make: memcheck found errors ($$f):" >&2; grep '^==[0-9]*== ' "$$f" >&2; rc=1; \
	done; \
	exit $$rc

# The fuzzers need clang: a build directory of their own, configured once.
fuzz-build:
	@tools/install-deps --fuzz
	@[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Dsim=disabled \
		-Dman=disabled --buildtype=debugoptimized
	ninja -C $(FUZZ_BUILD) $(addprefix fuzz/fuzz-,result event command sim-output elf)

fuzz: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) bench/fuzz.sh $(FUZZ_SECONDS)

demo: all
	BUILD=$(BUILD) examples/r1cs-synth/demo.sh
	BUILD=$(BUILD) examples/r1cs-rs/demo.sh

bench: all
	@tools/install-deps --bench
	BUILD=$(BUILD) bench/run-all

install: all
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild

clean:
	rm -rf build build-san build-fuzz demo

FORCE:

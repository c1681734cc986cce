# tilec - build the library (shared and static) and the command-line driver.
#   make            build build/libtilec.{a,so} and build/tilec
#   make test       run the whole test suite (prints "N passed, N failed")
#   make check-gpu  the CUDA target on a machine with an NVIDIA GPU (tests/gpu/run.sh)
#   make asan       run the test suite with ASan/UBSan (any UBSan report fails the test)
#   make fuzz       build the libFuzzer harnesses (clang); make fuzz-run runs each
#                   FUZZ_SECONDS (60) seconds
#   make format     clang-format (.clang-format) every C file; make format-check fails
#                   when one differs (CI)
#   make install    PREFIX=/usr/local DESTDIR= : tilec.h, libtilec.so (SONAME, versioned
#                   links), libtilec.a, tilec.pc (pkg-config), the tilec command
#   make clean
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Werror -fPIC -Iinclude -Isrc \
           -I$(BUILD)/gen -MMD -MP
LDLIBS  += -ldl -lxxhash -lm -lpthread

# src/<stage>/ (docs/internals.md: which folder holds which stage); a target's own
# passes sit in src/targets/<name>/passes/.
LIB_SRC := $(wildcard src/*/*.c src/targets/*/*.c src/targets/*/passes/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
EMBED   := $(wildcard runtime/c/*.h runtime/cuda/*.h)
EMBED_H := $(BUILD)/gen/embedded_runtime.h
# libtilec's own TileLang-language helpers (the intrinsics emitters), run by its meta level
EMBED_PY   := $(filter-out %/__init__.py,$(wildcard python/tilec/compat/intrinsics/*.py))
EMBED_PY_H := $(BUILD)/gen/embedded_python.h

all: $(BUILD)/libtilec.a $(BUILD)/libtilec.so $(BUILD)/tilec

# Device/target runtime headers are embedded into the library as C strings.
$(EMBED_H): $(EMBED) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(EMBED) > $@.tmp && mv $@.tmp $@

$(EMBED_PY_H): $(EMBED_PY) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(EMBED_PY) > $@.tmp
	printf 'static const struct { const char *name, *text; } embedded_python[] = {\n' >> $@.tmp
	for f in $(EMBED_PY); do b=$$(basename $$f); \
	    printf '    {"%s", embedded_%s},\n' $$b $$(echo $$b | sed 's/[^A-Za-z0-9]/_/g'); done >> $@.tmp
	printf '};\n' >> $@.tmp && mv $@.tmp $@

$(BUILD)/%.o: %.c | $(EMBED_H) $(EMBED_PY_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libtilec.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# The shared library exports the functions of include/tilec.h and nothing else (a linker
# version script listing every `tl_name(` of the header), and carries the SONAME
# libtilec.so.MAJOR.
VERSION := $(shell sed -n 's/^\#define TILEC_VERSION "\(.*\)"/\1/p' include/tilec.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
$(BUILD)/gen/libtilec.map: include/tilec.h
	@mkdir -p $(dir $@)
	{ echo '{ global:'; grep -o 'tl_[a-z0-9_]*(' $< | sort -u | sed 's/($$/;/'; \
	  echo 'local: *; };'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/libtilec.so: $(LIB_OBJ) $(BUILD)/gen/libtilec.map
	$(CC) -shared -Wl,-soname,libtilec.so.$(SOMAJOR) -Wl,--version-script,$(BUILD)/gen/libtilec.map \
	    -o $@ $(LIB_OBJ) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tilec: $(BUILD)/tools/tilec.o $(BUILD)/libtilec.a
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# ---- tests ----------------------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# The unit tests read their kernels from tests/unit/kernels (tests/unit/kernels.h).
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libtilec.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DTEST_KERNEL_DIR='"$(CURDIR)/tests/unit/kernels"' -o $@ $^ $(LDFLAGS) $(LDLIBS)

unit: $(UNIT_BIN)

test: all unit
	LDFLAGS="$(LDFLAGS)" python3 tests/run_tests.py --build $(BUILD)

# On a machine with an NVIDIA GPU: build, unit tests, every example on the cuda target
# checked against the c target, then under compute-sanitizer (tests/gpu/run.sh; logs in
# $OUT/gpu-logs when OUT is set).
check-gpu:
	BUILD=$(BUILD) tests/gpu/run.sh

# ASan/UBSan build of the whole suite. allocator_may_return_null: the out-of-memory
# tests need malloc to fail, not ASan to abort. TEST_EMIT_CUDA_FAST: test_emit_cuda
# lowers and emits everything (tilec's code, instrumented) but skips NVRTC and the host
# simulation (code outside tilec, not instrumented), which take minutes under ASan.
SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	ASAN_OPTIONS=allocator_may_return_null=1 TEST_EMIT_CUDA_FAST=1 $(MAKE) BUILD=build-asan \
	    OPT="-O1 $(SAN) -fno-omit-frame-pointer -Wno-format-truncation" \
	    LDFLAGS="$(SAN)" test

# libFuzzer harnesses (tests/fuzz/*.c) on the library built by clang with ASan/UBSan.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) \
	    OPT="-O1 -g $(SAN) -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
	    LDFLAGS="$(SAN) -fsanitize=fuzzer" build-fuzz/fuzz_frontend build-fuzz/fuzz_npy

fuzz-run: fuzz
	tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libtilec.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# ---- install ------------------------------------------------------------------------------
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
PCDIR   ?= $(LIBDIR)/pkgconfig
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(PCDIR)
	install -m 755 $(BUILD)/tilec $(DESTDIR)$(BINDIR)/tilec
	install -m 644 include/tilec.h $(DESTDIR)$(INCDIR)/tilec.h
	install -m 644 $(BUILD)/libtilec.a $(DESTDIR)$(LIBDIR)/libtilec.a
	install -m 755 $(BUILD)/libtilec.so $(DESTDIR)$(LIBDIR)/libtilec.so.$(VERSION)
	ln -sf libtilec.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtilec.so.$(SOMAJOR)
	ln -sf libtilec.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libtilec.so
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' tools/tilec.pc.in > $(DESTDIR)$(PCDIR)/tilec.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tilec $(DESTDIR)$(INCDIR)/tilec.h $(DESTDIR)$(LIBDIR)/libtilec.a \
	    $(DESTDIR)$(LIBDIR)/libtilec.so $(DESTDIR)$(LIBDIR)/libtilec.so.$(SOMAJOR) \
	    $(DESTDIR)$(LIBDIR)/libtilec.so.$(VERSION) $(DESTDIR)$(PCDIR)/tilec.pc

clean:
	rm -rf build build-asan build-fuzz

# The C style (.clang-format, clang-format 14: other versions lay some lines out
# differently, so CI installs 14).
CLANG_FORMAT ?= $(shell command -v clang-format-14 || echo clang-format)
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' '*.cu')
format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)
format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES) && \
	echo "format-check: $(words $(FORMAT_FILES)) files as .clang-format lays them out"

.PHONY: all unit test check-gpu asan fuzz fuzz-run format format-check install uninstall clean
-include $(LIB_OBJ:.o=.d) $(BUILD)/tools/tilec.d

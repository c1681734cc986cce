# tilec - build the library (shared and static) and the command-line driver.
#   make            build build/libtilec.{a,so} and build/tilec
#   make test       run the whole test suite (prints "N passed, N failed")
#   make check-gpu  the CUDA target on a machine with an NVIDIA GPU (tests/gpu/run.sh)
#   make asan       run the test suite with ASan/UBSan (any UBSan report fails the test)
#   make fuzz       build the libFuzzer harnesses (clang); make fuzz-run runs each
#                   FUZZ_SECONDS (60) seconds
#   make clean
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Werror -fPIC -Iinclude -Isrc \
           -I$(BUILD)/gen -MMD -MP
LDLIBS  += -ldl -lxxhash -lm -lpthread

LIB_SRC := $(wildcard src/*.c src/passes/*.c src/targets/*.c src/targets/*/*.c src/rt/*.c src/layout/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
EMBED   := $(wildcard runtime/c/*.h runtime/cuda/*.h)
EMBED_H := $(BUILD)/gen/embedded_runtime.h

all: $(BUILD)/libtilec.a $(BUILD)/libtilec.so $(BUILD)/tilec

# Device/target runtime headers are embedded into the library as C strings.
$(EMBED_H): $(EMBED) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(EMBED) > $@.tmp && mv $@.tmp $@

$(BUILD)/%.o: %.c | $(EMBED_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libtilec.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libtilec.so: $(LIB_OBJ)
	$(CC) -shared -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/tilec: $(BUILD)/tools/tilec.o $(BUILD)/libtilec.a
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# ---- tests ----------------------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libtilec.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

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

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all unit test check-gpu asan fuzz fuzz-run clean
-include $(LIB_OBJ:.o=.d) $(BUILD)/tools/tilec.d

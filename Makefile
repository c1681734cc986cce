# tilec - build the library (shared and static) and the command-line driver.
#   make            build build/libtilec.{a,so} and build/tilec
#   make test       run the whole test suite (prints "N passed, N failed")
#   make check-gpu  the CUDA target on a machine with an NVIDIA GPU (tests/gpu/run.sh)
#   make asan       run the test suite with ASan/UBSan
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

asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(MAKE) BUILD=build-asan \
	    OPT="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -Wno-format-truncation" \
	    LDFLAGS="-fsanitize=address,undefined" test

clean:
	rm -rf build build-asan

.PHONY: all unit test check-gpu asan clean
-include $(LIB_OBJ:.o=.d) $(BUILD)/tools/tilec.d

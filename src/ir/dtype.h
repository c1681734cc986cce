/* dtype.h - the element types of the language, defined once. */
#ifndef TILEC_DTYPE_H
#define TILEC_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

/* X(enum, canonical name, bits, class, DLPack code, DLPack bits)
 * class: I signed int, U unsigned int (bool is U), F IEEE float, B bfloat16, E fp8.
 * DLPack codes: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool, 10 f8e4m3fn, 12 f8e5m2.
 * int4 and uint4 (TileLang's sub-byte integers) exist in the front end only: at the end of
 * elaboration (frontend/subbyte.c) their buffers become int8/uint8 buffers holding two
 * elements per byte, so no pass or target sees a 4-bit dtype. */
#define TL_DTYPES(X)                                                                               \
    X(DT_BOOL, "bool", 8, U, 6, 8)                                                                 \
    X(DT_INT8, "int8", 8, I, 0, 8)                                                                 \
    X(DT_INT16, "int16", 16, I, 0, 16)                                                             \
    X(DT_INT32, "int32", 32, I, 0, 32)                                                             \
    X(DT_INT64, "int64", 64, I, 0, 64)                                                             \
    X(DT_UINT8, "uint8", 8, U, 1, 8)                                                               \
    X(DT_UINT16, "uint16", 16, U, 1, 16)                                                           \
    X(DT_UINT32, "uint32", 32, U, 1, 32)                                                           \
    X(DT_UINT64, "uint64", 64, U, 1, 64)                                                           \
    X(DT_FLOAT16, "float16", 16, F, 2, 16)                                                         \
    X(DT_BFLOAT16, "bfloat16", 16, B, 4, 16)                                                       \
    X(DT_FLOAT32, "float32", 32, F, 2, 32)                                                         \
    X(DT_FLOAT64, "float64", 64, F, 2, 64)                                                         \
    X(DT_FLOAT8_E4M3, "float8_e4m3", 8, E, 10, 8)                                                  \
    X(DT_FLOAT8_E5M2, "float8_e5m2", 8, E, 12, 8)                                                  \
    X(DT_INT4, "int4", 4, I, 0, 4)                                                                 \
    X(DT_UINT4, "uint4", 4, U, 1, 4)

typedef enum DType {
    DT_INVALID = 0,
#define X(e, name, bits, cls, dlcode, dlbits) e,
    TL_DTYPES(X)
#undef X
        DT_COUNT
} DType;

const char *dtype_name(DType t);
int dtype_bits(DType t);
int dtype_bytes(DType t);     /* bool is 1 byte */
bool dtype_is_float(DType t); /* F, B and E classes */
bool dtype_is_int(DType t);   /* I and U classes, bool included */
bool dtype_is_signed(DType t);
/* Accepts canonical names and TileLang's aliases ("float", "half", "float8_e4m3fn",
 * "e4m3_float8", "bf16", "fp16", "fp32", ...). Returns DT_INVALID if unknown. */
DType dtype_parse(const char *name);
/* DLPack (code, bits, lanes=1) <-> DType; DT_INVALID if no match. */
DType dtype_from_dlpack(uint8_t code, uint8_t bits);
void dtype_to_dlpack(DType t, uint8_t *code, uint8_t *bits);
/* Result type of a binary arithmetic op (TVM rules: float beats int, wider wins). */
DType dtype_promote(DType a, DType b);

#endif

/* dtype.c - the dtype table and its queries. */
#include "ir/dtype.h"

#include <string.h>

enum { CLS_I, CLS_U, CLS_F, CLS_B, CLS_E };

static const struct {
    const char *name;
    int bits, cls;
    uint8_t dlcode, dlbits;
} dtype_table[DT_COUNT] = {[DT_INVALID] = {"invalid", 0, 0, 255, 0},
#define X(e, name, bits, cls, dlcode, dlbits) [e] = {name, bits, CLS_##cls, dlcode, dlbits},
                           TL_DTYPES(X)
#undef X
};

const char *dtype_name(DType t) { return t < DT_COUNT ? dtype_table[t].name : "invalid"; }
int dtype_bits(DType t) { return t < DT_COUNT ? dtype_table[t].bits : 0; }
int dtype_bytes(DType t) { return (dtype_bits(t) + 7) / 8; }

bool dtype_is_float(DType t) {
    int c = dtype_table[t].cls;
    return t != DT_INVALID && (c == CLS_F || c == CLS_B || c == CLS_E);
}

bool dtype_is_int(DType t) { return t != DT_INVALID && !dtype_is_float(t); }
bool dtype_is_signed(DType t) { return dtype_table[t].cls == CLS_I || dtype_is_float(t); }

DType dtype_parse(const char *name) {
    static const struct {
        const char *alias;
        DType t;
    } aliases[] = {
        {"float", DT_FLOAT32},
        {"half", DT_FLOAT16},
        {"double", DT_FLOAT64},
        {"fp16", DT_FLOAT16},
        {"bf16", DT_BFLOAT16},
        {"fp32", DT_FLOAT32},
        {"fp64", DT_FLOAT64},
        {"int", DT_INT32},
        {"bfloat", DT_BFLOAT16},
        {"uint", DT_UINT32},
        {"long", DT_INT64},
        {"short", DT_INT16},
        {"ulong", DT_UINT64},
        /* TensorFloat-32: float32 storage; tilec's gemms compute it as float32 (exact) */
        {"tfloat32", DT_FLOAT32},
        {"float8_e4m3fn", DT_FLOAT8_E4M3},
        {"e4m3_float8", DT_FLOAT8_E4M3},
        {"float8_e5m2fn", DT_FLOAT8_E5M2},
        {"e5m2_float8", DT_FLOAT8_E5M2},
        {"fp8_e4m3", DT_FLOAT8_E4M3},
        {"fp8_e5m2", DT_FLOAT8_E5M2},
        {"float8_e4m3fnuz", DT_INVALID},
    };
    for (int t = 1; t < DT_COUNT; t++)
        if (!strcmp(name, dtype_table[t].name)) return (DType)t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].alias)) return aliases[i].t;
    return DT_INVALID;
}

DType dtype_from_dlpack(uint8_t code, uint8_t bits) {
    for (int t = 1; t < DT_COUNT; t++)
        if (dtype_table[t].dlcode == code && dtype_table[t].dlbits == bits) return (DType)t;
    if (code == 1 && bits == 1) return DT_BOOL; /* some producers spell bool as uint1 */
    return DT_INVALID;
}

void dtype_to_dlpack(DType t, uint8_t *code, uint8_t *bits) {
    *code = dtype_table[t].dlcode;
    *bits = dtype_table[t].dlbits;
}

static int dtype_rank(DType t) {
    /* float64 > float32 > bfloat16/float16 > fp8 > ints by width; among equal widths the
     * later-listed type wins (unsigned over signed, as in C). */
    if (dtype_is_float(t)) return 1000 + dtype_bits(t) * 4 + (t == DT_FLOAT16);
    return dtype_bits(t) * 4 + !dtype_is_signed(t);
}

DType dtype_promote(DType a, DType b) {
    if (a == b) return a;
    if (a == DT_BOOL) return b;
    if (b == DT_BOOL) return a;
    return dtype_rank(a) >= dtype_rank(b) ? a : b;
}

/* gemm_template_test.cu - tests tl_cuda.h's tensor-core primitives on the GPU:
 * tl_swizzle, tl_cp_async{16,8,4} (zero-fill included), tl_gemm_ss and tl_gemm_rs (and
 * their float32 TF32 forms, tl_gemm_ss_tf32 and tl_gemm_rs_tf32), for
 * every TRANS_A/TRANS_B combination, fp16 and bf16, swizzled and plain tiles, several
 * warp grids and tile shapes (odd NT too), against a double-precision CPU reference.
 *
 * The kernel copies A and B from global to shared with cp.async (swizzled when asked;
 * the last stored row of A is copied with valid = false, so it must read as zeros), loads
 * the thread's accumulators from C0 by the documented accumulator layout, runs the GEMM
 * and writes them back by the same layout into an output that starts as NaN. The inputs
 * are multiples of 1/16 in [-2, 2] and C0 multiples of 1/16: every partial sum is exact
 * in float32, so only a wrong layout or fragment gives an error above the tolerance.
 * Prints one line per configuration and "N passed, N failed"; exits 1 on a failure.
 *
 *   nvcc -arch=sm_90a -O2 -o gemm_template_test tests/gpu/gemm_template_test.cu
 * (tests/gpu/run.sh builds and runs it). The headers come in the order generated files
 * paste them. */
#include "../../runtime/c/tl_c.h"
#include "../../runtime/cuda/tl_cuda.h"

#include <vector>

/* One configuration: the GEMM C[M][N] += A * B on one block of 32 * WM * WN threads.
 * RS: A from registers (tl_gemm_rs; A then stored [M][K]), else from shared memory.
 * CP: bytes per cp.async (16, 8 or 4). */
template <int M, int N, int K, int WM, int WN, bool TA, bool TB, bool BF, int SA, int SB, bool RS,
          int CP>
struct Cfg {
    static constexpr int M_ = M, N_ = N, K_ = K, WM_ = WM, WN_ = WN, CP_ = CP, SA_ = SA, SB_ = SB;
    static constexpr bool TA_ = TA, TB_ = TB, BF_ = BF, RS_ = RS;
    static constexpr int AR = TA && !RS ? K : M, AL = TA && !RS ? M : K; /* A stored [AR][AL] */
    static constexpr int BR = TB ? N : K, BL = TB ? K : N;               /* B stored [BR][BL] */
    static constexpr int MT = M / WM / 16, NT = N / WN / 8, THREADS = 32 * WM * WN;
    static constexpr int B_OFF = (AR * AL * 2 + 1023) / 1024 * 1024; /* bytes from A to B */
    static constexpr int SMEM = 1024 + B_OFF + BR * BL * 2;          /* 1024: for alignment */
};

/* Copies a ROWS x LEN tile of 16-bit elements global -> shared in CP-byte pieces, laid out
 * as SWZ says (TL_SMEM_*: rows, swizzled rows or 64-column panels); with zero_last, the last
 * row is copied with valid = false. */
template <int ROWS, int LEN, int SWZ, int CP>
__device__ void copy_tile(uint16_t *s, const uint16_t *g, bool zero_last, int tid, int nthreads) {
    constexpr int E = CP / 2; /* elements per piece */
    for (int i = tid; i < ROWS * LEN / E; i += nthreads) {
        int o = i * E, p = o;
        if constexpr (SWZ == TL_SMEM_PANELS) p = tl_panel_swizzle<ROWS, LEN>(o);
        else if constexpr (SWZ == TL_SMEM_SWIZZLED) p = tl_swizzle<LEN * 2, 2>(o);
        bool valid = !(zero_last && o / LEN == ROWS - 1);
        if constexpr (CP == 16) tl_cp_async16(s + p, g + o, valid);
        else if constexpr (CP == 8) tl_cp_async8(s + p, g + o, valid);
        else tl_cp_async4(s + p, g + o, valid);
    }
}

template <class C>
__global__ void __launch_bounds__(C::THREADS)
    gemm_kernel(const uint16_t *gA, const uint16_t *gB, const float *gC0, float *gC) {
    constexpr int M = C::M_, N = C::N_, K = C::K_, WM = C::WM_, WN = C::WN_;
    constexpr bool TA = C::TA_, TB = C::TB_, BF = C::BF_;
    constexpr int SA = C::SA_, SB = C::SB_;
    extern __shared__ unsigned char smem_raw[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint32_t base = (uint32_t)__cvta_generic_to_shared(smem_raw);
    unsigned char *smem = smem_raw + (1024 - base % 1024) % 1024;
    uint16_t *sA = (uint16_t *)smem, *sB = (uint16_t *)(smem + C::B_OFF);
    if (!C::RS_) copy_tile<C::AR, C::AL, SA, C::CP_>(sA, gA, true, tid, C::THREADS);
    copy_tile<C::BR, C::BL, SB, C::CP_>(sB, gB, false, tid, C::THREADS);
    tl_cp_async_commit();
    tl_cp_async_wait<0>();
    __syncthreads();

    const int m0 = warp / WN * (M / WM), n0 = warp % WN * (N / WN);
    float acc[C::MT * C::NT * 4];
#pragma unroll
    for (int l = 0; l < C::MT * C::NT * 4; l++) {
        int mi = l / 4 / C::NT, ni = l / 4 % C::NT, c = l % 4;
        int row = m0 + mi * 16 + lane / 4 + 8 * (c / 2), col = n0 + ni * 8 + 2 * (lane % 4) + c % 2;
        acc[l] = gC0[row * N + col];
    }
    if constexpr (C::RS_) {
        uint16_t a[C::MT * (K / 8) * 4];
#pragma unroll
        for (int l = 0; l < C::MT * (K / 8) * 4; l++) {
            int mi = l / 4 / (K / 8), ki = l / 4 % (K / 8), c = l % 4;
            int row = m0 + mi * 16 + lane / 4 + 8 * (c / 2), col = ki * 8 + 2 * (lane % 4) + c % 2;
            a[l] = gA[row * K + col];
        }
        tl_gemm_rs<M, N, K, WM, WN, TB, BF, SB>(a, sB, acc, tid);
    } else {
        tl_gemm_ss<M, N, K, WM, WN, TA, TB, BF, SA, SB>(sA, sB, acc, tid);
    }
#pragma unroll
    for (int l = 0; l < C::MT * C::NT * 4; l++) {
        int mi = l / 4 / C::NT, ni = l / 4 % C::NT, c = l % 4;
        int row = m0 + mi * 16 + lane / 4 + 8 * (c / 2), col = n0 + ni * 8 + 2 * (lane % 4) + c % 2;
        gC[row * N + col] = acc[l];
    }
}

static int passed, failed;
static unsigned rng_state = 12345;

/* A random multiple of 1/16 in [-lim, lim] (exact in fp16 and bf16 for lim <= 4). */
static double rnd(int lim) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)((int)(rng_state >> 8) % (32 * lim + 1) - 16 * lim) / 16.0;
}

/* The storage bits of v, exactly representable in fp16 (bf16 when bf). */
static uint16_t encode(double v, bool bf) {
    uint32_t bits = tl_f32_bits((float)v);
    if (bf) return (uint16_t)(bits >> 16);
    uint16_t sign = (uint16_t)(bits >> 16 & 0x8000u);
    return (uint16_t)(sign | tl_encode_small(bits & 0x7fffffffu, 10, 15));
}

static bool cuda_ok(cudaError_t e, const char *what, char *why, size_t n) {
    if (e == cudaSuccess) return true;
    snprintf(why, n, "%s: %s", what, cudaGetErrorString(e));
    return false;
}

template <int M, int N, int K, int WM, int WN, bool TA, bool TB, bool BF, int SA, int SB, bool RS,
          int CP>
static void run() {
    typedef Cfg<M, N, K, WM, WN, TA, TB, BF, SA, SB, RS, CP> C;
    std::vector<double> a(M * K), b(K * N), c0(M * N); /* logical A[m][k], B[k][n] */
    std::vector<uint16_t> hA(M * K), hB(K * N);
    std::vector<float> hC0(M * N), hC(M * N);
    for (int i = 0; i < C::AR * C::AL; i++) {
        double v = rnd(2);
        int r = i / C::AL, l = i % C::AL, m = TA && !RS ? l : r, k = TA && !RS ? r : l;
        hA[i] = encode(v, BF);
        a[m * K + k] = !RS && r == C::AR - 1 ? 0.0 : v; /* the zero-filled row */
    }
    for (int i = 0; i < C::BR * C::BL; i++) {
        double v = rnd(2);
        int r = i / C::BL, l = i % C::BL;
        hB[i] = encode(v, BF);
        b[TB ? l * N + r : r * N + l] = v;
    }
    for (int i = 0; i < M * N; i++) hC0[i] = (float)(c0[i] = rnd(4));

    char name[160], why[200] = "";
    snprintf(name, sizeof name,
             "%s %dx%dx%d warps %dx%d trans_A=%d trans_B=%d %s swz_A=%d "
             "swz_B=%d cp.async%d",
             RS ? "gemm_rs" : "gemm_ss", M, N, K, WM, WN, TA, TB, BF ? "bf16" : "f16", SA, SB, CP);
    uint16_t *dA = nullptr, *dB = nullptr;
    float *dC0 = nullptr, *dC = nullptr;
    auto kern = gemm_kernel<C>;
    bool ok = cuda_ok(cudaMalloc(&dA, hA.size() * 2), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMalloc(&dB, hB.size() * 2), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMalloc(&dC0, hC0.size() * 4), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMalloc(&dC, hC.size() * 4), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMemcpy(dA, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice),
                      "cudaMemcpy", why, sizeof why) &&
              cuda_ok(cudaMemcpy(dB, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice),
                      "cudaMemcpy", why, sizeof why) &&
              cuda_ok(cudaMemcpy(dC0, hC0.data(), hC0.size() * 4, cudaMemcpyHostToDevice),
                      "cudaMemcpy", why, sizeof why) &&
              cuda_ok(cudaMemset(dC, 0xff, hC.size() * 4), "cudaMemset", why, sizeof why) &&
              cuda_ok(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           C::SMEM),
                      "cudaFuncSetAttribute", why, sizeof why);
    if (ok) {
        kern<<<1, C::THREADS, C::SMEM>>>(dA, dB, dC0, dC);
        ok = cuda_ok(cudaGetLastError(), "launch", why, sizeof why) &&
             cuda_ok(cudaDeviceSynchronize(), "kernel", why, sizeof why) &&
             cuda_ok(cudaMemcpy(hC.data(), dC, hC.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy",
                     why, sizeof why);
    }
    cudaFree(dA), cudaFree(dB), cudaFree(dC0), cudaFree(dC);

    double tol = 1e-3 * sqrt((double)K), worst = 0;
    int bad = 0, bad_m = 0, bad_n = 0;
    for (int m = 0; ok && m < M; m++)
        for (int n = 0; n < N; n++) {
            double ref = c0[m * N + n];
            for (int k = 0; k < K; k++) ref += a[m * K + k] * b[k * N + n];
            double err = fabs((double)hC[m * N + n] - ref);
            if (!(err <= tol)) { /* NaN: not written */
                if (!bad++) bad_m = m, bad_n = n;
                if (err != err || err > worst) worst = err;
            }
        }
    if (ok && bad)
        snprintf(why, sizeof why, "%d of %d wrong, first (%d, %d): got %g, max error %g", bad,
                 M * N, bad_m, bad_n, (double)hC[bad_m * N + bad_n], worst);
    if (ok && !bad) {
        passed++;
        printf("PASS %s\n", name);
    } else {
        failed++;
        printf("FAIL %s: %s\n", name, why);
    }
}

/* ---- float32 on TF32 tensor cores (tl_gemm_ss_tf32, tl_gemm_rs_tf32) ----------------------
 * A and B are float32 tiles stored [AR][AL] and [BR][BL] as above (plain stores, swizzled
 * by tl_swizzle<row bytes, 4> when asked); RS takes A's registers in the m16n8k8 tf32 A
 * layout (a_i of k-step ki: row g + 8 (i % 2), column ki * 8 + t + 4 (i / 2)). The inputs
 * are multiples of 1/16 plus 3 * 2^-13, which TF32 cannot hold: the reference rounds them
 * to nearest with ties away from zero (by frexp, not by tl_c.h's bit operations), so a
 * missing or truncating rounding, or a wrong fragment, is off by far more than the
 * tolerance. */
template <class C>
__global__ void __launch_bounds__(C::THREADS)
    tf32_kernel(const float *gA, const float *gB, const float *gC0, float *gC) {
    constexpr int M = C::M_, N = C::N_, K = C::K_, WM = C::WM_, WN = C::WN_;
    extern __shared__ unsigned char smem_raw[];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint32_t base = (uint32_t)__cvta_generic_to_shared(smem_raw);
    unsigned char *smem = smem_raw + (1024 - base % 1024) % 1024;
    float *sA = (float *)smem, *sB = (float *)(smem + 2 * C::B_OFF); /* 4-byte elements */
    for (int o = tid; o < C::AR * C::AL && !C::RS_; o += C::THREADS) {
        if constexpr (C::SA_) sA[tl_swizzle<C::AL * 4, 4>(o)] = gA[o];
        else sA[o] = gA[o];
    }
    for (int o = tid; o < C::BR * C::BL; o += C::THREADS) {
        if constexpr (C::SB_) sB[tl_swizzle<C::BL * 4, 4>(o)] = gB[o];
        else sB[o] = gB[o];
    }
    __syncthreads();
    const int m0 = warp / WN * (M / WM), n0 = warp % WN * (N / WN);
    float acc[C::MT * C::NT * 4];
#pragma unroll
    for (int l = 0; l < C::MT * C::NT * 4; l++) {
        int mi = l / 4 / C::NT, ni = l / 4 % C::NT, c = l % 4;
        int row = m0 + mi * 16 + lane / 4 + 8 * (c / 2), col = n0 + ni * 8 + 2 * (lane % 4) + c % 2;
        acc[l] = gC0[row * N + col];
    }
    if constexpr (C::RS_) {
        float a[C::MT * (K / 8) * 4];
#pragma unroll
        for (int l = 0; l < C::MT * (K / 8) * 4; l++) {
            int mi = l / 4 / (K / 8), ki = l / 4 % (K / 8), i = l % 4;
            int row = m0 + mi * 16 + lane / 4 + 8 * (i % 2), col = ki * 8 + lane % 4 + 4 * (i / 2);
            a[l] = gA[row * K + col];
        }
        tl_gemm_rs_tf32<M, N, K, WM, WN, C::TB_, C::SB_>(a, sB, acc, tid);
    } else {
        tl_gemm_ss_tf32<M, N, K, WM, WN, C::TA_, C::TB_, C::SA_, C::SB_>(sA, sB, acc, tid);
    }
#pragma unroll
    for (int l = 0; l < C::MT * C::NT * 4; l++) {
        int mi = l / 4 / C::NT, ni = l / 4 % C::NT, c = l % 4;
        int row = m0 + mi * 16 + lane / 4 + 8 * (c / 2), col = n0 + ni * 8 + 2 * (lane % 4) + c % 2;
        gC[row * N + col] = acc[l];
    }
}

/* v rounded to 11 significant bits, to nearest with ties away from zero (TF32). */
static double tf32_ref(double v) {
    int e;
    double m = frexp(v, &e); /* v = m * 2^e, 0.5 <= |m| < 1 */
    double q = floor(fabs(m) * 2048.0 + 0.5);
    return ldexp((m < 0 ? -q : q) / 2048.0, e);
}

template <int M, int N, int K, int WM, int WN, bool TA, bool TB, bool SA, bool SB, bool RS>
static void run_tf32() {
    /* (BF, CP unused; the float tiles take twice Cfg's 16-bit bytes) */
    typedef Cfg<M, N, K, WM, WN, TA, TB, false, SA, SB, RS, 16> C;
    constexpr int SMEM = 1024 + 2 * C::B_OFF + C::BR * C::BL * 4; /* as tf32_kernel's */
    static_assert(2 * C::B_OFF >= C::AR * C::AL * 4, "A fits before B");
    std::vector<double> a(M * K), b(K * N), c0(M * N);
    std::vector<float> hA(M * K), hB(K * N), hC0(M * N), hC(M * N);
    for (int i = 0; i < C::AR * C::AL; i++) {
        float v = (float)(rnd(2) + 3.0 / 8192);
        int r = i / C::AL, l = i % C::AL, m = TA && !RS ? l : r, k = TA && !RS ? r : l;
        hA[i] = v;
        a[m * K + k] = tf32_ref(v);
    }
    for (int i = 0; i < C::BR * C::BL; i++) {
        float v = (float)(rnd(2) - 3.0 / 8192);
        int r = i / C::BL, l = i % C::BL;
        hB[i] = v;
        b[TB ? l * N + r : r * N + l] = tf32_ref(v);
    }
    for (int i = 0; i < M * N; i++) hC0[i] = (float)(c0[i] = rnd(4));

    char name[160], why[200] = "";
    snprintf(name, sizeof name,
             "%s %dx%dx%d warps %dx%d trans_A=%d trans_B=%d tf32 swz_A=%d swz_B=%d",
             RS ? "gemm_rs_tf32" : "gemm_ss_tf32", M, N, K, WM, WN, TA, TB, SA, SB);
    float *dA = nullptr, *dB = nullptr, *dC0 = nullptr, *dC = nullptr;
    auto kern = tf32_kernel<C>;
    bool ok = cuda_ok(cudaMalloc(&dA, hA.size() * 4), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMalloc(&dB, hB.size() * 4), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMalloc(&dC0, hC0.size() * 4), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMalloc(&dC, hC.size() * 4), "cudaMalloc", why, sizeof why) &&
              cuda_ok(cudaMemcpy(dA, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice),
                      "cudaMemcpy", why, sizeof why) &&
              cuda_ok(cudaMemcpy(dB, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice),
                      "cudaMemcpy", why, sizeof why) &&
              cuda_ok(cudaMemcpy(dC0, hC0.data(), hC0.size() * 4, cudaMemcpyHostToDevice),
                      "cudaMemcpy", why, sizeof why) &&
              cuda_ok(cudaMemset(dC, 0xff, hC.size() * 4), "cudaMemset", why, sizeof why) &&
              cuda_ok(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM),
                      "cudaFuncSetAttribute", why, sizeof why);
    if (ok) {
        kern<<<1, C::THREADS, SMEM>>>(dA, dB, dC0, dC);
        ok = cuda_ok(cudaGetLastError(), "launch", why, sizeof why) &&
             cuda_ok(cudaDeviceSynchronize(), "kernel", why, sizeof why) &&
             cuda_ok(cudaMemcpy(hC.data(), dC, hC.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy",
                     why, sizeof why);
    }
    cudaFree(dA), cudaFree(dB), cudaFree(dC0), cudaFree(dC);

    double tol = 1e-4 * sqrt((double)K), worst = 0; /* the sums' float32 rounding */
    int bad = 0, bad_m = 0, bad_n = 0;
    for (int m = 0; ok && m < M; m++)
        for (int n = 0; n < N; n++) {
            double ref = c0[m * N + n];
            for (int k = 0; k < K; k++) ref += a[m * K + k] * b[k * N + n];
            double err = fabs((double)hC[m * N + n] - ref);
            if (!(err <= tol)) { /* NaN: not written */
                if (!bad++) bad_m = m, bad_n = n;
                if (err != err || err > worst) worst = err;
            }
        }
    if (ok && bad)
        snprintf(why, sizeof why, "%d of %d wrong, first (%d, %d): got %g, max error %g", bad,
                 M * N, bad_m, bad_n, (double)hC[bad_m * N + bad_n], worst);
    if (ok && !bad) {
        passed++;
        printf("PASS %s\n", name);
    } else {
        failed++;
        printf("FAIL %s: %s\n", name, why);
    }
}

int main() {
    /* 64x64x32, 2x2 warps: every TRANS_A/TRANS_B, fp16/bf16, swizzled or not */
#define ALL_TRANS(BF, S)                                                                           \
    run<64, 64, 32, 2, 2, false, false, BF, S, S, false, 16>();                                    \
    run<64, 64, 32, 2, 2, false, true, BF, S, S, false, 16>();                                     \
    run<64, 64, 32, 2, 2, true, false, BF, S, S, false, 16>();                                     \
    run<64, 64, 32, 2, 2, true, true, BF, S, S, false, 16>();
    ALL_TRANS(false, false)
    ALL_TRANS(false, true)
    ALL_TRANS(true, false)
    ALL_TRANS(true, true)
    run<64, 64, 32, 2, 2, false, false, false, true, false, false, 8>();
    run<64, 64, 32, 2, 2, true, true, true, false, true, false, 4>();
    /* tiles in wgmma's 64-column panels (TL_SMEM_PANELS): attention backward's dQ = dS^T K
     * (M = 32, K_s read by a wgmma too), panels on either side, A in registers */
    run<32, 192, 128, 1, 8, true, false, false, TL_SMEM_SWIZZLED, TL_SMEM_PANELS, false, 16>();
    run<64, 128, 128, 2, 2, false, true, true, TL_SMEM_PANELS, TL_SMEM_PANELS, false, 16>();
    run<64, 64, 128, 2, 2, true, false, false, TL_SMEM_PANELS, TL_SMEM_ROWS, false, 16>();
    run<64, 128, 64, 4, 1, false, false, true, TL_SMEM_ROWS, TL_SMEM_PANELS, true, 16>();

    /* one warp, one mma tile; 8-byte and 4-byte copies */
    run<16, 8, 16, 1, 1, false, false, false, false, true, false, 8>();
    run<16, 8, 16, 1, 1, false, true, false, true, false, false, 4>();
    run<16, 8, 16, 1, 1, true, false, true, true, true, false, 16>();
    run<16, 8, 16, 1, 1, true, true, true, false, false, false, 4>();

    /* 128x128x32 on 2x2, 4x1, 1x4 and 2x4 warps */
    run<128, 128, 32, 2, 2, false, false, false, true, true, false, 16>();
    run<128, 128, 32, 2, 2, true, true, false, true, true, false, 16>();
    run<128, 128, 32, 2, 2, false, true, true, false, false, false, 8>();
    run<128, 128, 32, 4, 1, false, true, false, true, true, false, 16>();
    run<128, 128, 32, 4, 1, true, false, true, false, true, false, 16>();
    run<128, 128, 32, 1, 4, false, false, false, true, true, false, 16>();
    run<128, 128, 32, 1, 4, true, true, true, true, false, false, 16>();
    run<128, 128, 32, 2, 4, false, false, true, true, true, false, 16>();

    /* 128x256x64 on 2x4 warps (256 threads, 64x64 per warp) */
    run<128, 256, 64, 2, 4, false, false, false, true, true, false, 16>();
    run<128, 256, 64, 2, 4, false, true, true, true, true, false, 16>();
    run<128, 256, 64, 2, 4, true, true, false, false, false, false, 16>();

    /* odd NT (3: ldmatrix .x4 then .x2) and NT = 1; [K][24] B rows are 48 bytes: plain */
    run<32, 24, 32, 2, 1, false, false, false, true, false, false, 16>();
    run<32, 24, 32, 2, 1, false, true, true, true, true, false, 16>();
    run<32, 24, 32, 2, 1, true, true, false, true, true, false, 16>();
    run<32, 24, 32, 2, 1, true, false, true, false, false, false, 16>();
    run<64, 8, 16, 4, 1, false, false, false, true, true, false, 16>();

    /* A from registers */
    run<64, 64, 64, 4, 1, false, false, false, false, true, true, 16>();
    run<64, 64, 64, 4, 1, false, true, false, false, true, true, 16>();
    run<64, 64, 64, 4, 1, false, false, true, false, false, true, 16>();
    run<64, 64, 64, 4, 1, false, true, true, false, false, true, 16>();
    run<64, 64, 64, 2, 2, false, false, false, false, true, true, 16>();
    run<64, 64, 64, 2, 2, false, true, true, false, true, true, 16>();
    run<64, 64, 64, 2, 2, false, true, false, false, false, true, 8>();
    run<64, 24, 32, 4, 1, false, false, true, false, false, true, 16>();

    /* float32 on TF32 tensor cores: every transpose, swizzled or not, K a multiple of 8 */
    run_tf32<64, 32, 32, 2, 2, false, false, true, true, false>();
    run_tf32<64, 32, 32, 2, 2, false, true, true, true, false>();
    run_tf32<64, 32, 32, 2, 2, true, false, true, true, false>();
    run_tf32<64, 32, 32, 2, 2, true, true, false, false, false>();
    run_tf32<32, 24, 40, 2, 1, false, true, false, false, false>();
    run_tf32<128, 128, 32, 2, 2, false, true, true, true, false>();
    run_tf32<32, 32, 256, 2, 2, false, true, false, true, true>(); /* mhc_pre's gemm */
    run_tf32<64, 32, 24, 4, 1, false, false, false, false, true>();

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

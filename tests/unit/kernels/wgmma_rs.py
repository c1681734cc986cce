# tests/exec/kernels/wgmma_rs.py with e4m3 operands, for sm_90a. TileLang's raw wgmma
# with A in registers (tests/exec/test_wgmma_raw.py): each thread
# loads its part of A (64 x K) by wgmma's A fragment layout (registers a0..a3 of each
# K step: rows g and g + 8 of its warp's 16, K columns 2q.. / 4q.. and 8 / 16 further),
# B's image goes to shared memory under a descriptor, and KSTEPS T.ptx_wgmma_rs
# accumulate; C[thread, register] are the accumulators.
import tilelang
import tilelang.language as T


def wgmma_rs(N=32, KSTEPS=2, SB=4096, B_LAYOUT=1, B_LBO=1, B_SBO=64, B_STEP=2, B_K=True,
             AB="e4m3", STORE="float8_e4m3"):
    ES = 2 if AB == "bf16" or AB == "fp16" else 1
    PER = 16 // ES  # elements of A a thread holds per K step (four 32-bit registers)
    KINST = 32 // ES
    prefix = "m64n" + str(N) + "k" + str(KINST)

    @T.prim_func
    def main(A: T.Tensor((64, KSTEPS * KINST), STORE), B: T.Tensor((SB,), STORE),
             C: T.Tensor((128, N // 2), "float32")):
        with T.Kernel(1, threads=128) as bx:
            B_s = T.alloc_shared((SB,), STORE)
            a_regs = T.alloc_local((KSTEPS * PER,), STORE)
            acc = T.alloc_local((N // 2,), "float32")
            desc_b = T.alloc_wgmma_desc()
            tx = T.get_thread_binding()
            for t in T.serial(KSTEPS):
                for r in T.serial(4):
                    for e in T.serial(PER // 4):
                        a_regs[t * PER + r * (PER // 4) + e] = A[
                            16 * (tx // 32) + tx % 32 // 4 + 8 * (r % 2),
                            t * KINST + r // 2 * (KINST // 2) + tx % 4 * (PER // 4) + e]
            T.copy(B, B_s)
            T.fence_proxy_async()
            T.initialize_wgmma_descriptor(desc_b, B_s, B_LAYOUT, B_LBO, B_SBO)
            T.warpgroup_fence_operand(a_regs)
            T.warpgroup_fence_operand(acc)
            T.warpgroup_arrive()
            for ki in T.unroll(KSTEPS):
                T.ptx_wgmma_rs("float32", prefix, B_K, AB, AB, "fp32", a_regs.data, ki * PER,
                               desc_b.data, ki * B_STEP, acc.data, 0, T.Select(ki != 0, 1, 0),
                               1, 1)
            T.warpgroup_commit_batch()
            T.warpgroup_wait(0)
            T.warpgroup_fence_operand(acc)
            for i in T.serial(N // 2):
                C[tx, i] = acc[i]

    return main

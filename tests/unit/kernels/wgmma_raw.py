# TileLang's raw wgmma on sm_90a (tests/exec/kernels/wgmma_raw.py with bfloat16 tiles and
# B MN-major): descriptors, T.ptx_wgmma_ss over K steps, warpgroup fences, commit, wait.
import tilelang
import tilelang.language as T


def wgmma_raw(N=64, KSTEPS=4, SA=4096, SB=4096, A_LAYOUT=1, A_LBO=1, A_SBO=64, B_LAYOUT=1,
              B_LBO=256, B_SBO=64, A_STEP=2, B_STEP=128, A_K=True, B_K=False, AB="bf16",
              STORE="bfloat16", B_PAD=0, SCALE_A=1, SCALE_B=1):
    KINST = 16 if AB == "bf16" or AB == "fp16" else 32
    prefix = "m64n" + str(N) + "k" + str(KINST)

    @T.prim_func
    def main(A: T.Tensor((SA,), STORE), B: T.Tensor((SB,), STORE),
             C: T.Tensor((128, N // 2), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((SA,), STORE)
            B_s = T.alloc_shared((SB,), STORE)
            acc = T.alloc_local((N // 2,), "float32")
            desc_a = T.alloc_wgmma_desc()
            desc_b = T.alloc_descriptor("wgmma")
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.fence_proxy_async()
            T.initialize_wgmma_descriptor(desc_a, T.access_ptr(A_s, "r"), A_LAYOUT, A_LBO,
                                          A_SBO)
            T.initialize_wgmma_descriptor(desc_b, B_s, B_LAYOUT, B_LBO, B_SBO)
            T.increase_descriptor_offset(desc_b, B_PAD)
            T.warpgroup_fence_operand(acc)
            T.warpgroup_arrive()
            for ki in T.unroll(KSTEPS):
                T.ptx_wgmma_ss("float32", prefix, A_K, B_K, AB, AB, "fp32", desc_a.data,
                               ki * A_STEP, desc_b.data, ki * B_STEP, acc.data, 0,
                               T.Select(ki != 0, 1, 0), SCALE_A, SCALE_B)
            T.warpgroup_commit_batch()
            T.warpgroup_wait(0)
            T.warpgroup_fence_operand(acc, num_regs=N // 2)
            tx = T.get_thread_binding()
            for i in T.serial(N // 2):
                C[tx, i] = acc[i]

    return main

"""A grid of one block per SM, as TileLang's persistent examples size it with
carver.arch.driver.get_num_sms(): block b writes b at b, b + sms, ... (test_lang.py)."""
import tilelang
import tilelang.language as T
from tilelang.carver.arch import driver

def k(M=1000):
    sm_num = driver.get_num_sms()
    @T.prim_func
    def main(A: T.Tensor((M,), "int32")):
        with T.Kernel(sm_num, threads=32) as b:
            for i in T.serial(T.ceildiv(M, sm_num)):
                if b + i * sm_num < M:
                    A[b + i * sm_num] = b
    return main
